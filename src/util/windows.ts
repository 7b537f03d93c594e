/**
 * Every Windows decision of the stdio transport and the command line, as
 * pure functions of (platform, environment, a view of the file system):
 * which file a command names, how its arguments survive `cmd.exe`, what an
 * npm shim really runs, the child's environment, how a process tree is
 * stopped, how a URL is opened, where the token store lives, what goes on
 * the wire and what an error says. No `node:` or `Deno` API is used here,
 * so Linux tests pin each decision; the backends and the command line bring
 * the effects. Loaded lazily (with a process backend, or on Windows only);
 * internal, never exported.
 *
 * @module
 */

import { webUrlProblem } from "./url_policy.ts";
import {
  type ChildEnvironment,
  inheritedNames,
  inheritedSecrets,
  NETWORK_ENV_KEYS,
  passable,
} from "./child_env.ts";

/** What the resolver may look at: whether a path is a file, and a small file's text. */
export interface FileView {
  /** Whether `path` names an existing regular file. */
  isFile(path: string): boolean;
  /** The text of a small file (an npm shim); `undefined` when it cannot be read. */
  readText(path: string): string | undefined;
}

/** A variable's value, the name matched case-insensitively (as Windows does). */
export function getEnvValue(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): string | undefined {
  const exact = env[name];
  if (exact !== undefined) return exact;
  const upper = name.toUpperCase();
  for (const key of Object.keys(env)) {
    if (key.toUpperCase() === upper) return env[key];
  }
  return undefined;
}

/** Windows' own default when `PATHEXT` is unset. */
export const DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD";

/** The extensions `PATHEXT` lists, upper-cased, in order. */
export function pathExtensions(
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const value = getEnvValue(env, "PATHEXT") || DEFAULT_PATHEXT;
  const seen = new Set<string>();
  for (const raw of value.split(";")) {
    const ext = raw.trim().toUpperCase();
    if (ext.startsWith(".") && ext.length > 1) seen.add(ext);
  }
  return [...seen];
}

/** The folders `PATH` lists, quotes removed, empty entries skipped. */
export function pathFolders(
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const value = getEnvValue(env, "PATH") ?? "";
  return value.split(";").map((dir) => dir.trim().replace(/^"(.*)"$/, "$1"))
    .filter((dir) => dir !== "");
}

/** Whether `path` is absolute on Windows: `C:\…`, `C:/…` or a UNC/device path. */
export function isAbsoluteWindowsPath(path: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(path) || /^[\\/]{2}/.test(path);
}

/** Joins Windows path segments and resolves `.` and `..`; keeps the drive or UNC root. */
export function joinWindowsPath(...parts: string[]): string {
  const joined = parts.filter((part) => part !== "").join("\\");
  const root = /^([A-Za-z]:[\\/]|[\\/]{2}[^\\/]+[\\/][^\\/]+[\\/]?)/.exec(
    joined,
  )?.[0] ?? "";
  const segments: string[] = [];
  for (const segment of joined.slice(root.length).split(/[\\/]+/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  const prefix = root.replace(/\//g, "\\");
  return prefix.endsWith("\\") || prefix === ""
    ? prefix + segments.join("\\")
    : `${prefix}\\${segments.join("\\")}`;
}

/** A command found on disk. */
export interface ResolvedCommand {
  /** The absolute path of the file to start. */
  path: string;
  /** `batch` for `.cmd`/`.bat` (run through `cmd.exe`), else `exe`. */
  kind: "exe" | "batch";
}

function kindOf(path: string): "exe" | "batch" {
  return /\.(?:cmd|bat)$/i.test(path) ? "batch" : "exe";
}

/** The candidates for `base`: itself when its extension is in `PATHEXT`, else base + each extension. */
function candidates(base: string, extensions: readonly string[]): string[] {
  const dot = base.lastIndexOf(".");
  const ext = dot > Math.max(base.lastIndexOf("\\"), base.lastIndexOf("/"))
    ? base.slice(dot).toUpperCase()
    : "";
  if (ext !== "" && extensions.includes(ext)) return [base];
  return extensions.map((extension) => base + extension.toLowerCase());
}

/** Options of {@linkcode resolveWindowsCommand}. */
export interface ResolveOptions {
  /** The child's environment: its `PATH` and `PATHEXT` are searched. */
  env: Readonly<Record<string, string | undefined>>;
  /** What a relative path (`.\bin\server`) is relative to: the child's working directory. */
  cwd: string;
  /** The file system. */
  files: FileView;
}

/**
 * Finds the file a command names, the way a Windows user expects and no
 * further: a bare name (`npx`) over the child's `PATH` × `PATHEXT` — never
 * the current folder, so a workspace cannot plant its own `npx.cmd`; a
 * name with a folder (`.\bin\server`, `C:\tools\server`) relative to `cwd`,
 * tried as is when its extension is in `PATHEXT`, else with each extension.
 *
 * @param command The configured command.
 * @param options The child's environment, working directory and the file system.
 * @returns The file, or `undefined` when no candidate exists.
 */
export function resolveWindowsCommand(
  command: string,
  options: ResolveOptions,
): ResolvedCommand | undefined {
  const extensions = pathExtensions(options.env);
  const found = (path: string): ResolvedCommand | undefined =>
    options.files.isFile(path) ? { path, kind: kindOf(path) } : undefined;
  if (/[\\/]/.test(command) || /^[A-Za-z]:/.test(command)) {
    const base = isAbsoluteWindowsPath(command)
      ? joinWindowsPath(command)
      : joinWindowsPath(options.cwd, command.replace(/^[A-Za-z]:/, ""));
    for (const path of candidates(base, extensions)) {
      const hit = found(path);
      if (hit) return hit;
    }
    return undefined;
  }
  for (const dir of pathFolders(options.env)) {
    if (!isAbsoluteWindowsPath(dir)) continue; // a relative PATH entry is a cwd search
    for (const path of candidates(joinWindowsPath(dir, command), extensions)) {
      const hit = found(path);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** What an npm shim (`.cmd` written by npm's `cmd-shim`) runs. */
export interface CmdShim {
  /** The program the shim starts, as it names it: `"node"`. */
  program: string;
  /** The script, relative to the shim's folder (`..\pkg\bin\cli.js`). */
  script: string;
}

// cmd-shim ≥ 3 (npm 7+): `"%_prog%"  "%dp0%\..\pkg\cli.js" %*`, _prog set above.
const MODERN_SHIM =
  /^endLocal & goto #_undefined_# 2>NUL \|\| title %COMSPEC% & "%_prog%" +"%dp0%\\([^"%\r\n]+)" %\*[ \t]*$/m;
const MODERN_PROGRAM = /^[ \t]*SET "_prog=([A-Za-z0-9_.-]+)"[ \t]*$/m;
// cmd-shim < 3: `"%~dp0\node.exe"  "%~dp0\..\pkg\cli.js" %*`, else `node  "…" %*`.
const LEGACY_SHIM =
  /^[ \t]*"%~dp0\\([A-Za-z0-9_.-]+)\.exe" +"%~dp0\\([^"%\r\n]+)" %\*[ \t]*$/m;

/**
 * Reads what an npm `cmd-shim` `.cmd` file runs, so the program can be
 * started directly (no `cmd.exe`, no second parse of the arguments). Only
 * the exact shapes `cmd-shim` writes are recognised, without extra
 * program arguments; anything else is `undefined` and goes through
 * `cmd.exe`.
 *
 * @param text The `.cmd` file's text.
 * @returns The program and script, or `undefined`.
 */
export function parseCmdShim(text: string): CmdShim | undefined {
  const modern = MODERN_SHIM.exec(text);
  if (modern) {
    const program = MODERN_PROGRAM.exec(text)?.[1];
    if (program === undefined) return undefined;
    if (!text.includes(`IF EXIST "%dp0%\\${program}.exe"`)) return undefined;
    return { program, script: modern[1]! };
  }
  const legacy = LEGACY_SHIM.exec(text);
  if (legacy) return { program: legacy[1]!, script: legacy[2]! };
  return undefined;
}

/** An argument `cmd.exe` cannot pass on unchanged: a line break or NUL ends its command. */
const UNPASSABLE = /[\0\r\n]/;
/** ASCII that needs no quotes for cmd.exe (Rust's list); everything else is quoted. */
const BARE = /^[A-Za-z0-9#$*+\-./:?@\\_\u0080-\uffff]+$/;

/**
 * Quotes one argument for a command line that `cmd.exe` parses before the
 * batch file's program does (the BatBadBut class): inside `"…"` cmd's
 * operators (`& | < > ^ ( )`) are plain text, an embedded `"` is doubled
 * (`""`, which keeps cmd's quote state and which `CommandLineToArgvW`
 * reads as one `"`), backslashes before a `"` are doubled, and each `%`
 * becomes `%%cd:~,%` — an empty substring of `%cd%` that keeps `%NAME%`
 * from being expanded (cmd's command-line parse has no `%%` escape).
 * Delayed expansion (`!`) is off through `/v:OFF`.
 *
 * @param arg The argument.
 * @param forceQuotes Quote even a bare word (the script's own path).
 * @returns The text for the command line.
 * @throws {RangeError} When the argument holds a line break or NUL.
 */
export function quoteBatchArgument(arg: string, forceQuotes = false): string {
  if (UNPASSABLE.test(arg)) {
    throw new RangeError(
      `An argument with a line break or NUL cannot be passed through cmd.exe to a .cmd/.bat file: ${
        JSON.stringify(arg.slice(0, 40))
      }; start the program the .cmd file runs directly`,
    );
  }
  const quote = forceQuotes || arg === "" || arg.endsWith("\\") ||
    !BARE.test(arg);
  let out = quote ? '"' : "";
  let backslashes = 0;
  for (const char of arg) {
    if (char === "\\") {
      backslashes++;
      out += char;
      continue;
    }
    if (char === '"') out += "\\".repeat(backslashes) + '"';
    else if (char === "%") out += "%%cd:~,";
    backslashes = 0;
    out += char;
  }
  return quote ? out + "\\".repeat(backslashes) + '"' : out;
}

/** `%SystemRoot%` of the parent, else `C:\Windows`: where System32's programs are. */
export function systemRoot(
  env: Readonly<Record<string, string | undefined>>,
): string {
  const root = getEnvValue(env, "SystemRoot") ?? getEnvValue(env, "windir");
  return root !== undefined && isAbsoluteWindowsPath(root)
    ? root.replace(/[\\/]+$/, "")
    : "C:\\Windows";
}

/** A program with its arguments. */
export interface ProgramCall {
  /** The absolute path of the program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /**
   * When true, `args` is already a command line (joined with spaces,
   * never re-quoted: Node's `windowsVerbatimArguments`).
   */
  verbatim: boolean;
}

/** Options of {@linkcode windowsSpawnPlan}. */
export interface SpawnPlanOptions extends ResolveOptions {
  /** The parent's environment: its `SystemRoot` locates `cmd.exe`. */
  parentEnv: Readonly<Record<string, string | undefined>>;
}

/**
 * How to start a command on Windows without a shell: the resolved file
 * itself when it is a program; for an npm shim, its program (beside the
 * shim, else over `PATH` without `.JS`, as the shim does) with the script;
 * for any other `.cmd`/`.bat`, `%SystemRoot%\System32\cmd.exe /d /e:ON
 * /v:OFF /s /c "…"` with every argument quoted by
 * {@linkcode quoteBatchArgument}.
 *
 * @param command The configured command.
 * @param args Its arguments.
 * @param options The child's environment and cwd, the parent's environment, the file system.
 * @returns What to spawn, or `undefined` when the command is not found.
 * @throws {RangeError} When a batch file's argument cannot pass through cmd.exe.
 */
export function windowsSpawnPlan(
  command: string,
  args: readonly string[],
  options: SpawnPlanOptions,
): ProgramCall | undefined {
  const resolved = resolveWindowsCommand(command, options);
  if (resolved === undefined) return undefined;
  if (resolved.kind === "exe") {
    return { command: resolved.path, args: [...args], verbatim: false };
  }
  const shim = parseCmdShim(options.files.readText(resolved.path) ?? "");
  const folder = resolved.path.slice(0, resolved.path.lastIndexOf("\\"));
  if (shim !== undefined) {
    const beside = joinWindowsPath(folder, `${shim.program}.exe`);
    const program = options.files.isFile(beside)
      ? { path: beside, kind: "exe" as const }
      : resolveWindowsCommand(shim.program, {
        ...options,
        env: withoutJsExtension(options.env),
      });
    if (program?.kind === "exe") {
      return {
        command: program.path,
        args: [joinWindowsPath(folder, shim.script), ...args],
        verbatim: false,
      };
    }
  }
  const line = [
    quoteBatchArgument(resolved.path, true),
    ...args.map((arg) => quoteBatchArgument(arg)),
  ].join(" ");
  return {
    command: `${systemRoot(options.parentEnv)}\\System32\\cmd.exe`,
    args: ["/d", "/e:ON", "/v:OFF", "/s", "/c", `"${line}"`],
    verbatim: true,
  };
}

/** The shim's own `SET PATHEXT=%PATHEXT:;.JS;=;%`: `node` must not find `node.js`. */
function withoutJsExtension(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const exts = pathExtensions(env).filter((ext) => ext !== ".JS");
  return { ...env, PATHEXT: exts.join(";") };
}

/**
 * What a server inherits on Windows: the SDK's `getDefaultEnvironment()`
 * list, plus what `cmd.exe`, npm, Python and Windows' own libraries read
 * (`PATHEXT`, `COMSPEC`, `WINDIR`, `TMP`, the program folders).
 */
export const WINDOWS_ENV_KEYS: readonly string[] = [
  "APPDATA",
  "COMMONPROGRAMFILES",
  "COMPUTERNAME",
  "COMSPEC",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "NUMBER_OF_PROCESSORS",
  "OS",
  "PATH",
  "PATHEXT",
  "PROCESSOR_ARCHITECTURE",
  "PROGRAMDATA",
  "PROGRAMFILES",
  "PROGRAMFILES(X86)",
  "PROGRAMW6432",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "TMP",
  "USERDOMAIN",
  "USERNAME",
  "USERPROFILE",
  "WINDIR",
];

/**
 * The child's environment on Windows: the allow-listed variables of the
 * parent ({@linkcode WINDOWS_ENV_KEYS} and the network and cache variables
 * of `child_env.ts`), those `inheritEnv` names (matched
 * case-insensitively), then `extra` (the config's `env`) merged
 * case-insensitively — one entry per name, the config's value and
 * spelling win (`Path` in a config replaces the inherited `PATH`). A
 * missing `SYSTEMROOT` (a Deno host with a narrow `--allow-env`) is a
 * warning: Windows' socket library needs it, so the server would start
 * without networking.
 *
 * @param getEnv Reads one variable of the parent; `undefined` if unset or not permitted.
 * @param extra The config's variables.
 * @param options The config's `inheritEnv`, and how to list the parent's variable names.
 * @returns The environment, the warnings and the inherited values to mask.
 */
export function windowsChildEnvironment(
  getEnv: (name: string) => string | undefined,
  extra: Readonly<Record<string, string>> | undefined,
  options: {
    inherit?: readonly string[] | undefined;
    envNames?: () => readonly string[] | undefined;
  } = {},
): ChildEnvironment {
  const { names, warnings } = inheritedNames(
    { getEnv, envNames: options.envNames ?? (() => undefined) },
    options.inherit,
    true,
  );
  const byName = new Map<string, [string, string]>();
  for (const key of [...WINDOWS_ENV_KEYS, ...NETWORK_ENV_KEYS, ...names]) {
    const value = getEnv(key);
    if (passable(value)) byName.set(key.toUpperCase(), [key, value]);
  }
  const inherited = Object.fromEntries(byName.values());
  const secrets = inheritedSecrets(inherited, names);
  for (const [key, value] of Object.entries(extra ?? {})) {
    byName.set(key.toUpperCase(), [key, value]);
  }
  if (!byName.has("SYSTEMROOT")) {
    warnings.push(
      "SYSTEMROOT could not be read from this process's environment (with Deno, grant it: --allow-env=SYSTEMROOT,…), so the server starts without it and Windows programs lose networking; allow reading it or set it in the server's env",
    );
  }
  return { env: Object.fromEntries(byName.values()), warnings, secrets };
}

/**
 * How to stop a process and all its descendants on Windows:
 * `%SystemRoot%\System32\taskkill.exe /PID n /T /F` (by its absolute path:
 * never a `taskkill` found on `PATH`). It must run while `pid` is alive:
 * `/T` follows parent ids, and a dead parent's children are no longer found.
 *
 * @param pid The direct child.
 * @param parentEnv The parent's environment (for `SystemRoot`).
 * @returns What to run.
 */
export function treeKillPlan(
  pid: number,
  parentEnv: Readonly<Record<string, string | undefined>>,
): ProgramCall {
  if (!Number.isSafeInteger(pid) || pid <= 0) {
    throw new RangeError(`Not a process id: ${pid}`);
  }
  return {
    command: `${systemRoot(parentEnv)}\\System32\\taskkill.exe`,
    args: ["/PID", String(pid), "/T", "/F"],
    verbatim: false,
  };
}

/**
 * How `login` opens a URL, or why it does not: `$BROWSER` when set (`none`
 * opens nothing), else `open` (macOS), `xdg-open`, or on Windows
 * `%SystemRoot%\System32\rundll32.exe url.dll,FileProtocolHandler <url>`
 * — no shell, so a `%VAR%` in the URL stays text. Only `https:` URLs and
 * `http:` on this machine are opened.
 *
 * @param url The URL.
 * @param options The platform (`process.platform` names) and environment.
 * @returns What to run, or a reason not to (the URL is printed anyway).
 */
export function openerPlan(
  url: string,
  options: {
    platform: string;
    env: Readonly<Record<string, string | undefined>>;
  },
): ProgramCall | { refused: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { refused: "it is not a URL" };
  }
  const problem = webUrlProblem(parsed);
  if (problem !== undefined) return { refused: problem };
  const browser = options.env.BROWSER;
  if (browser === "none") return { refused: "BROWSER is none" };
  if (browser) return { command: browser, args: [url], verbatim: false };
  if (options.platform === "darwin") {
    return { command: "open", args: [url], verbatim: false };
  }
  if (options.platform === "win32" || options.platform === "windows") {
    return {
      command: `${systemRoot(options.env)}\\System32\\rundll32.exe`,
      args: ["url.dll,FileProtocolHandler", url],
      verbatim: false,
    };
  }
  return { command: "xdg-open", args: [url], verbatim: false };
}

/** Where the command line keeps its OAuth tokens, and where older versions kept them. */
export interface TokenStoreLocation {
  /** The file. */
  path: string;
  /** A file of an older version to read when `path` does not exist yet. */
  legacy?: string;
}

/**
 * The token store's file. Windows: `%LOCALAPPDATA%\mcp-adapter\oauth.json`
 * (local, not the roaming `%APPDATA%` that is copied between machines),
 * reading `%APPDATA%\mcp-adapter\oauth.json` when only that exists.
 * Elsewhere `$XDG_CONFIG_HOME/mcp-adapter/oauth.json`, else
 * `<home>/.config/mcp-adapter/oauth.json`.
 *
 * @param options The platform (`process.platform` names), environment and home folder.
 * @returns The location.
 */
export function tokenStoreLocation(
  options: {
    platform: string;
    env: Readonly<Record<string, string | undefined>>;
    home: string;
  },
): TokenStoreLocation {
  const { env } = options;
  if (options.platform === "win32") {
    const local = env.LOCALAPPDATA;
    const roaming = env.APPDATA;
    const legacy = roaming
      ? joinWindowsPath(roaming, "mcp-adapter", "oauth.json")
      : undefined;
    if (local) {
      const path = joinWindowsPath(local, "mcp-adapter", "oauth.json");
      return legacy === undefined || legacy === path
        ? { path }
        : { path, legacy };
    }
    if (legacy !== undefined) return { path: legacy };
  }
  const base = env.XDG_CONFIG_HOME ||
    `${(env.HOME || options.home).replace(/\/+$/, "")}/.config`;
  return { path: `${base.replace(/\/+$/, "")}/mcp-adapter/oauth.json` };
}

/** Error codes of a rename that antivirus or the indexer blocked for a moment. */
const TRANSIENT_RENAME = new Set(["EPERM", "EACCES", "EBUSY"]);
/** How often a blocked rename is tried in all. */
export const RENAME_ATTEMPTS = 8;

/**
 * Whether a failed rename is tried again, and after how long: EPERM,
 * EACCES and EBUSY (a scanner holds the file) up to
 * {@linkcode RENAME_ATTEMPTS} attempts, waiting 20, 40, 80 … ms (about 2.5 s in all).
 *
 * @param code The error's `code`.
 * @param attempt How many attempts failed so far (1 after the first).
 * @returns The wait in milliseconds, or `undefined` to give up.
 */
export function renameRetryDelayMs(
  code: unknown,
  attempt: number,
): number | undefined {
  if (typeof code !== "string" || !TRANSIENT_RENAME.has(code)) {
    return undefined;
  }
  return attempt < RENAME_ATTEMPTS ? 20 * 2 ** (attempt - 1) : undefined;
}

const NON_ASCII = /[\u0080-\uffff]/;
const NON_ASCII_ALL = /[\u0080-\uffff]/g;

/**
 * One JSON line with every non-ASCII character written as `\uXXXX`: the
 * same JSON value, readable by a server that decodes its stdin in the
 * console code page (Python on cp1252). JSON text outside strings is
 * ASCII, so only string contents change.
 *
 * @param line A line of `JSON.stringify` output.
 * @returns The line, unchanged when it is ASCII already.
 */
export function escapeNonAscii(line: string): string {
  if (!NON_ASCII.test(line)) return line;
  return line.replace(
    NON_ASCII_ALL,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The exit code `cmd.exe` gives when it does not know a command ("is not recognized"). */
export const CMD_NOT_RECOGNIZED = 9009;

/**
 * The Windows hint for a server that could not start or that `cmd.exe`
 * could not find a program for; `undefined` for other failures.
 *
 * @param command The configured command.
 * @param failure The spawn error's `code`, or the exit code.
 * @returns The hint, to follow the message's first sentence.
 */
export function windowsStartHint(
  command: string,
  failure: { code?: unknown; exitCode?: number | null },
): string | undefined {
  const name = JSON.stringify(command);
  if (failure.code === "ENOENT") {
    return `${name} was not found in any folder of the server's PATH with any extension of PATHEXT (the current folder is not searched). Set "command" to the absolute path, e.g. "C:\\\\Program Files\\\\nodejs\\\\npx.cmd" (in JSON write \\\\ or /), or add its folder to PATH in the server's env.`;
  }
  if (failure.exitCode === CMD_NOT_RECOGNIZED) {
    return `cmd.exe exited with 9009: a program that ${name} runs "is not recognized" — not on the server's PATH with the extensions of PATHEXT. Put its folder on PATH in the server's env, or set "command" to the program's absolute path.`;
  }
  return undefined;
}

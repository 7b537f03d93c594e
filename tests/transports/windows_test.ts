/**
 * The Windows decisions (src/util/windows.ts), pinned on any
 * platform: command resolution over a fake PATH × PATHEXT file system,
 * batch-file quoting through a model of cmd.exe (golden lines, and an
 * injection marker through a simulated `%*`), npm shim parsing, the child
 * environment, the tree kill, the URL opener, the token store's place, the
 * wire's ASCII escaping and the hints. `windows_live_test.ts` runs the real
 * thing on Windows (the CI job).
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  escapeNonAscii,
  type FileView,
  getEnvValue,
  joinWindowsPath,
  openerPlan,
  parseCmdShim,
  quoteBatchArgument,
  RENAME_ATTEMPTS,
  renameRetryDelayMs,
  resolveWindowsCommand,
  tokenStoreLocation,
  treeKillPlan,
  WINDOWS_ENV_KEYS,
  windowsChildEnvironment,
  windowsSpawnPlan,
  windowsStartHint,
} from "../../src/util/windows.ts";
import { ProcessGroup } from "../../src/transports/_process/group.ts";
import { runThroughCmd, splitArgv } from "./_cmd.ts";

/** A file system holding `files` (path → text), matched case-insensitively as NTFS does. */
function fakeFiles(files: Record<string, string>): FileView & {
  looked: string[];
} {
  const byName = new Map(
    Object.entries(files).map(([path, text]) => [path.toLowerCase(), text]),
  );
  const looked: string[] = [];
  return {
    looked,
    isFile(path) {
      looked.push(path);
      return byName.has(path.toLowerCase());
    },
    readText(path) {
      return byName.get(path.toLowerCase());
    },
  };
}

const NODEJS = "C:\\Program Files\\nodejs";
const PATH =
  `C:\\Windows\\System32;${NODEJS};C:\\Users\\ada\\AppData\\Roaming\\npm`;
const ENV = { Path: PATH, PATHEXT: ".COM;.EXE;.BAT;.CMD;.VBS;.JS" };
const WORKSPACE = "D:\\repos\\untrusted";

// Verbatim from npm 10's bin/npx.cmd (what "npx" is on a Windows machine).
const NPM_OWN_NPX_CMD = [
  ":: Created by npm, please don't edit manually.",
  "@ECHO OFF",
  "",
  "SETLOCAL",
  "",
  'SET "NODE_EXE=%~dp0\\node.exe"',
  'IF NOT EXIST "%NODE_EXE%" (',
  '  SET "NODE_EXE=node"',
  ")",
  "",
  'SET "NPX_CLI_JS=%~dp0\\node_modules\\npm\\bin\\npx-cli.js"',
  '"%NODE_EXE%" "%NPX_CLI_JS%" %*',
  "",
].join("\r\n");

// What cmd-shim 6/7 (npm 7+) writes for a package's bin.
const MODERN_SHIM = [
  "@ECHO off",
  "GOTO start",
  ":find_dp0",
  "SET dp0=%~dp0",
  "EXIT /b",
  ":start",
  "SETLOCAL",
  "CALL :find_dp0",
  "",
  'IF EXIST "%dp0%\\node.exe" (',
  '  SET "_prog=%dp0%\\node.exe"',
  ") ELSE (",
  '  SET "_prog=node"',
  "  SET PATHEXT=%PATHEXT:;.JS;=;%",
  ")",
  "",
  'endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\..\\@modelcontextprotocol\\server-everything\\dist\\index.js" %*',
  "",
].join("\r\n");

// What cmd-shim before 3 wrote.
const LEGACY_SHIM = [
  '@IF EXIST "%~dp0\\node.exe" (',
  '  "%~dp0\\node.exe"  "%~dp0\\..\\server-memory\\dist\\index.js" %*',
  ") ELSE (",
  "  @SETLOCAL",
  "  @SET PATHEXT=%PATHEXT:;.JS;=;%",
  '  node  "%~dp0\\..\\server-memory\\dist\\index.js" %*',
  ")",
].join("\r\n");

describe("Windows command resolution (PATH × PATHEXT, no current folder)", () => {
  it('finds "npx" as npx.cmd on PATH, read from a "Path" spelt in any case', () => {
    const files = fakeFiles({ [`${NODEJS}\\npx.cmd`]: NPM_OWN_NPX_CMD });
    assert.deepEqual(
      resolveWindowsCommand("npx", { env: ENV, cwd: WORKSPACE, files }),
      { path: `${NODEJS}\\npx.cmd`, kind: "batch" },
    );
  });

  it("never runs an npx.cmd planted in the working directory", () => {
    const files = fakeFiles({
      [`${WORKSPACE}\\npx.cmd`]: "@echo pwned",
      [`${WORKSPACE}\\npx.exe`]: "MZ",
      [`${NODEJS}\\npx.cmd`]: NPM_OWN_NPX_CMD,
    });
    const found = resolveWindowsCommand("npx", {
      env: { ...ENV, Path: `.;${PATH}` },
      cwd: WORKSPACE,
      files,
    });
    assert.equal(found?.path, `${NODEJS}\\npx.cmd`);
    assert.equal(
      files.looked.some((path) => path.startsWith(WORKSPACE)),
      false,
      `looked in the workspace: ${files.looked.join(", ")}`,
    );
  });

  it("takes PATHEXT's order within a folder and PATH's order across folders", () => {
    const files = fakeFiles({
      "C:\\Windows\\System32\\tool.cmd": "",
      "C:\\Windows\\System32\\tool.exe": "MZ",
      [`${NODEJS}\\tool.com`]: "",
    });
    assert.equal(
      resolveWindowsCommand("tool", { env: ENV, cwd: WORKSPACE, files })?.path,
      "C:\\Windows\\System32\\tool.exe",
    );
  });

  it("uses .COM;.EXE;.BAT;.CMD when PATHEXT is unset", () => {
    const files = fakeFiles({ [`${NODEJS}\\node.exe`]: "MZ" });
    assert.equal(
      resolveWindowsCommand("node", { env: { PATH }, cwd: WORKSPACE, files })
        ?.path,
      `${NODEJS}\\node.exe`,
    );
  });

  it("tries a name with a PATHEXT extension as is, and a quoted PATH entry unquoted", () => {
    const files = fakeFiles({ "C:\\Tools Dir\\uvx.exe": "MZ" });
    const env = { PATH: '"C:\\Tools Dir";C:\\Windows' };
    assert.equal(
      resolveWindowsCommand("uvx.exe", { env, cwd: WORKSPACE, files })?.path,
      "C:\\Tools Dir\\uvx.exe",
    );
    assert.equal(
      resolveWindowsCommand("uvx", { env, cwd: WORKSPACE, files })?.kind,
      "exe",
    );
  });

  it("resolves an absolute path, and a relative one against the child's cwd", () => {
    const files = fakeFiles({
      "C:\\tools\\new.exe": "MZ",
      [`${WORKSPACE}\\bin\\server.cmd`]: "",
    });
    assert.equal(
      resolveWindowsCommand("C:/tools/new", { env: ENV, cwd: WORKSPACE, files })
        ?.path,
      "C:\\tools\\new.exe",
    );
    assert.deepEqual(
      resolveWindowsCommand(".\\bin\\server", {
        env: ENV,
        cwd: WORKSPACE,
        files,
      }),
      { path: `${WORKSPACE}\\bin\\server.cmd`, kind: "batch" },
    );
  });

  it("finds nothing for a missing command (the caller reports ENOENT)", () => {
    assert.equal(
      resolveWindowsCommand("uvx", {
        env: ENV,
        cwd: WORKSPACE,
        files: fakeFiles({}),
      }),
      undefined,
    );
  });

  it("joins paths and resolves .. without leaving the drive", () => {
    assert.equal(
      joinWindowsPath("C:\\a\\node_modules\\.bin", "..\\pkg\\cli.js"),
      "C:\\a\\node_modules\\pkg\\cli.js",
    );
    assert.equal(joinWindowsPath("C:\\", "..", "x"), "C:\\x");
    assert.equal(
      joinWindowsPath("\\\\server\\share\\dir", "..\\f.exe"),
      "\\\\server\\share\\f.exe",
    );
  });
});

describe("npm shim parsing (golden)", () => {
  it("reads cmd-shim's modern shim: node and the script beside it", () => {
    assert.deepEqual(parseCmdShim(MODERN_SHIM), {
      program: "node",
      script: "..\\@modelcontextprotocol\\server-everything\\dist\\index.js",
    });
  });

  it("reads cmd-shim's legacy shim", () => {
    assert.deepEqual(parseCmdShim(LEGACY_SHIM), {
      program: "node",
      script: "..\\server-memory\\dist\\index.js",
    });
  });

  it("does not take npm's own npx.cmd, or an edited shim, for a cmd-shim", () => {
    assert.equal(parseCmdShim(NPM_OWN_NPX_CMD), undefined);
    assert.equal(
      parseCmdShim(MODERN_SHIM.replace(" %*", " --inspect %*")),
      undefined,
    );
    assert.equal(
      parseCmdShim(MODERN_SHIM.replace('SET "_prog=node"', "")),
      undefined,
    );
    assert.equal(parseCmdShim("@echo off\r\ncalc.exe"), undefined);
  });
});

describe("spawn plans", () => {
  const parentEnv = { SystemRoot: "C:\\WINDOWS" };

  it("starts a program directly, its arguments left to the runtime's quoting", () => {
    const files = fakeFiles({ "C:\\tools\\uvx.exe": "MZ" });
    assert.deepEqual(
      windowsSpawnPlan("C:\\tools\\uvx", ["mcp-server-time", "a b"], {
        env: ENV,
        cwd: WORKSPACE,
        files,
        parentEnv,
      }),
      {
        command: "C:\\tools\\uvx.exe",
        args: ["mcp-server-time", "a b"],
        verbatim: false,
      },
    );
  });

  it("runs npm's npx.cmd through System32's cmd.exe with a verbatim command line (golden)", () => {
    const files = fakeFiles({ [`${NODEJS}\\npx.cmd`]: NPM_OWN_NPX_CMD });
    assert.deepEqual(
      windowsSpawnPlan(
        "npx",
        [
          "-y",
          "@modelcontextprotocol/server-filesystem",
          "C:\\Users\\ada\\My Docs\\",
        ],
        { env: ENV, cwd: WORKSPACE, files, parentEnv },
      ),
      {
        command: "C:\\WINDOWS\\System32\\cmd.exe",
        args: [
          "/d",
          "/e:ON",
          "/v:OFF",
          "/s",
          "/c",
          '""C:\\Program Files\\nodejs\\npx.cmd" -y @modelcontextprotocol/server-filesystem "C:\\Users\\ada\\My Docs\\\\""',
        ],
        verbatim: true,
      },
    );
  });

  it("runs a cmd-shim's node.exe and script directly, without cmd.exe", () => {
    const bin = `${WORKSPACE}\\node_modules\\.bin`;
    const files = fakeFiles({
      [`${bin}\\mcp-server-everything.cmd`]: MODERN_SHIM,
      // The shim drops .JS from PATHEXT so that "node" is not node.js.
      [`C:\\Windows\\System32\\node.js`]: "",
      [`${NODEJS}\\node.exe`]: "MZ",
    });
    assert.deepEqual(
      windowsSpawnPlan(".\\node_modules\\.bin\\mcp-server-everything", [
        "stdio",
        '"&calc&"',
      ], { env: ENV, cwd: WORKSPACE, files, parentEnv }),
      {
        command: `${NODEJS}\\node.exe`,
        args: [
          `${WORKSPACE}\\node_modules\\@modelcontextprotocol\\server-everything\\dist\\index.js`,
          "stdio",
          '"&calc&"',
        ],
        verbatim: false,
      },
    );
  });

  it("prefers the node.exe beside a shim", () => {
    const dir = "C:\\Users\\ada\\AppData\\Roaming\\npm";
    const files = fakeFiles({
      [`${dir}\\server-memory.cmd`]: LEGACY_SHIM,
      [`${dir}\\node.exe`]: "MZ",
      [`${NODEJS}\\node.exe`]: "MZ",
    });
    const plan = windowsSpawnPlan("server-memory", [], {
      env: ENV,
      cwd: WORKSPACE,
      files,
      parentEnv,
    });
    assert.equal(plan?.command, `${dir}\\node.exe`);
    assert.deepEqual(plan?.args, [
      "C:\\Users\\ada\\AppData\\Roaming\\server-memory\\dist\\index.js",
    ]);
  });

  it("falls back on C:\\Windows when SystemRoot is unreadable", () => {
    const files = fakeFiles({ "C:\\x\\run.bat": "" });
    assert.equal(
      windowsSpawnPlan("C:\\x\\run.bat", [], {
        env: ENV,
        cwd: WORKSPACE,
        files,
        parentEnv: { SystemRoot: "relative\\evil" },
      })?.command,
      "C:\\Windows\\System32\\cmd.exe",
    );
  });
});

describe("batch-file quoting survives cmd.exe's second parse (BatBadBut)", () => {
  it("quotes like the golden table", () => {
    const golden: [string, string][] = [
      ["plain", "plain"],
      ["-y", "-y"],
      ["@scope/pkg@1.2.3", "@scope/pkg@1.2.3"],
      ["C:\\dir\\file.txt", "C:\\dir\\file.txt"],
      ["", '""'],
      ["a b", '"a b"'],
      ["C:\\dir\\", '"C:\\dir\\\\"'],
      ['say "hi"', '"say ""hi"""'],
      ['back\\"slash', '"back\\\\""slash"'],
      ["%USERNAME%", '"%%cd:~,%USERNAME%%cd:~,%"'],
      ["a&b|c<d>e^f", '"a&b|c<d>e^f"'],
      ["!PATH!", '"!PATH!"'],
      ["naïve", "naïve"],
    ];
    for (const [arg, quoted] of golden) {
      assert.equal(quoteBatchArgument(arg), quoted, JSON.stringify(arg));
    }
  });

  const env = { USERNAME: "LEAKED-USERNAME", PATH: "LEAKED-PATH", cd: "C:\\" };
  const hostile = [
    '"&echo INJECTED&"',
    '"&calc.exe',
    "& echo INJECTED",
    "a|echo INJECTED",
    '\\"&echo INJECTED&\\"',
    '""&echo INJECTED',
    "%USERNAME%",
    "%PATH:~0,4%",
    "%%USERNAME%%",
    "^&echo INJECTED",
    "!USERNAME!",
    "trailing\\",
    'x\\\\"&echo INJECTED&"\\',
    "(echo INJECTED)",
    "<nul >C:\\pwned",
    "",
    "plain -y @scope/pkg",
    "ü €",
  ];

  it("passes each hostile argument through a simulated %* unchanged, running nothing", () => {
    const files = fakeFiles({ "C:\\srv\\server.cmd": "" });
    for (const arg of hostile) {
      const plan = windowsSpawnPlan("C:\\srv\\server.cmd", ["first", arg], {
        env: ENV,
        cwd: WORKSPACE,
        files,
        parentEnv: { SystemRoot: "C:\\Windows" },
      })!;
      const run = runThroughCmd(plan.args, env);
      assert.deepEqual(
        run.operators,
        [],
        `operator ran for ${JSON.stringify(arg)}`,
      );
      assert.equal(run.script, "C:\\srv\\server.cmd");
      assert.deepEqual(run.args, ["first", arg], JSON.stringify(arg));
      assert.equal(
        run.args.join(" ").includes("LEAKED"),
        false,
        `expanded a variable for ${JSON.stringify(arg)}`,
      );
    }
  });

  it("the model catches what naive quoting lets through (it can fail)", () => {
    const naive = (arg: string) => `"${arg.replace(/"/g, '\\"')}"`;
    const run = runThroughCmd(
      [
        "/d",
        "/s",
        "/c",
        `""C:\\srv\\server.cmd" ${naive('"&echo INJECTED&"')}"`,
      ],
      env,
    );
    assert.ok(run.operators.includes("&"), "the naive line ran no operator");
    const leak = runThroughCmd(
      ["/d", "/s", "/c", `""C:\\srv\\server.cmd" ${naive("%USERNAME%")}"`],
      env,
    );
    assert.deepEqual(leak.args, ["LEAKED-USERNAME"]);
  });

  it("refuses a line break or NUL, which would end cmd's command", () => {
    for (const arg of ["a\nb", "a\rb", "a\0b"]) {
      assert.throws(
        () => quoteBatchArgument(arg),
        /line break or NUL cannot be passed through cmd\.exe/,
      );
    }
  });

  it("splits a command line as CommandLineToArgvW does", () => {
    assert.deepEqual(splitArgv('a "b c" d\\\\"e f" "g""h" \\\\\\"i'), [
      "a",
      "b c",
      "d\\e f",
      'g"h',
      '\\"i',
    ]);
  });
});

describe("the child's environment on Windows", () => {
  // modelcontextprotocol/typescript-sdk, src/client/stdio.ts,
  // DEFAULT_INHERITED_ENV_VARS on win32 (SDK 1.32.2).
  const SDK_WINDOWS = [
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
  ];

  it("passes at least what the SDK's getDefaultEnvironment() passes, and what cmd and npm need", () => {
    for (const key of [...SDK_WINDOWS, "PATHEXT", "COMSPEC", "WINDIR", "TMP"]) {
      assert.ok(WINDOWS_ENV_KEYS.includes(key), key);
    }
    assert.equal(WINDOWS_ENV_KEYS.includes("PROCESSENV"), false);
  });

  it("reads PROCESSOR_ARCHITECTURE (not the PROCESSENV typo) and skips shell functions", () => {
    const parent: Record<string, string> = {
      PROCESSOR_ARCHITECTURE: "AMD64",
      SYSTEMROOT: "C:\\Windows",
      PATH: "C:\\Windows",
      COMSPEC: "() { :; }; echo pwned",
      SECRET_TOKEN: "hunter2",
    };
    const { env, warnings } = windowsChildEnvironment(
      (name) => parent[name],
      undefined,
    );
    assert.deepEqual(env, {
      PATH: "C:\\Windows",
      PROCESSOR_ARCHITECTURE: "AMD64",
      SYSTEMROOT: "C:\\Windows",
    });
    assert.deepEqual(warnings, []);
  });

  it("merges names case-insensitively: a config Path replaces the inherited PATH", () => {
    const parent: Record<string, string> = {
      PATH: "C:\\Windows",
      SYSTEMROOT: "C:\\Windows",
    };
    const { env } = windowsChildEnvironment((name) => parent[name], {
      Path: "C:\\tools;C:\\Windows",
      systemroot: "D:\\Win",
      API_KEY: "k",
    });
    assert.deepEqual(env, {
      Path: "C:\\tools;C:\\Windows",
      systemroot: "D:\\Win",
      API_KEY: "k",
    });
    assert.equal(getEnvValue(env, "PATH"), "C:\\tools;C:\\Windows");
  });

  it("warns when SYSTEMROOT cannot be read (a narrow --allow-env), unless the config sets it", () => {
    const { warnings } = windowsChildEnvironment(
      (name) => (name === "PATH" ? "C:\\Windows" : undefined),
      undefined,
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /SYSTEMROOT could not be read.*--allow-env/);
    assert.deepEqual(
      windowsChildEnvironment(() => undefined, { SystemRoot: "C:\\Windows" })
        .warnings,
      [],
    );
  });
});

describe("tree kill on Windows", () => {
  it("runs System32's taskkill by its absolute path on the whole tree", () => {
    assert.deepEqual(treeKillPlan(4242, { SYSTEMROOT: "C:\\Windows" }), {
      command: "C:\\Windows\\System32\\taskkill.exe",
      args: ["/PID", "4242", "/T", "/F"],
      verbatim: false,
    });
    assert.throws(() => treeKillPlan(0, {}), RangeError);
  });

  it("ProcessGroup kills the tree while the child lives, only the child after it exited", async () => {
    const calls: string[] = [];
    let exit!: () => void;
    const exited = new Promise<void>((resolve) => exit = resolve);
    const group = new ProcessGroup(77, {
      signal: () => calls.push("signal"),
      signalChild: (signal) => calls.push(`child ${signal}`),
      platform: "windows",
      proc: { entries: () => undefined, stat: () => undefined },
      killTree: (pid) => calls.push(`tree ${pid}`),
    }, exited);
    group.kill("SIGTERM");
    assert.equal(group.alive(), true);
    exit();
    await exited;
    group.kill("SIGKILL");
    assert.deepEqual(calls, ["tree 77", "child SIGKILL"]);
    assert.equal(group.alive(), false);
  });
});

describe("the login URL opener", () => {
  it("opens with System32's rundll32 url.dll, the URL one argument, %VAR% untouched", () => {
    const url = "https://auth.example/authorize?state=%USERNAME%&x=1";
    assert.deepEqual(
      openerPlan(url, {
        platform: "win32",
        env: { SystemRoot: "C:\\Windows" },
      }),
      {
        command: "C:\\Windows\\System32\\rundll32.exe",
        args: ["url.dll,FileProtocolHandler", url],
        verbatim: false,
      },
    );
  });

  it("opens only https: and loopback http:", () => {
    const env = { SystemRoot: "C:\\Windows" };
    for (
      const url of [
        "http://evil.example/authorize",
        "file:///C:/Windows/System32/calc.exe",
        "javascript:alert(1)",
        "ms-settings:",
        "https://user:pw@evil.example/",
        "not a url",
      ]
    ) {
      assert.ok(
        "refused" in openerPlan(url, { platform: "win32", env }),
        url,
      );
    }
    assert.equal(
      "command" in
        openerPlan("http://127.0.0.1:3000/cb", { platform: "win32", env }),
      true,
    );
  });

  it("uses $BROWSER, open or xdg-open elsewhere; BROWSER=none opens nothing", () => {
    const url = "https://auth.example/";
    assert.equal(
      (openerPlan(url, { platform: "darwin", env: {} }) as { command: string })
        .command,
      "open",
    );
    assert.equal(
      (openerPlan(url, { platform: "linux", env: {} }) as { command: string })
        .command,
      "xdg-open",
    );
    assert.deepEqual(
      openerPlan(url, { platform: "linux", env: { BROWSER: "firefox" } }),
      { command: "firefox", args: [url], verbatim: false },
    );
    assert.ok(
      "refused" in openerPlan(url, {
        platform: "win32",
        env: { BROWSER: "none" },
      }),
    );
  });
});

describe("the token store's place", () => {
  it("is %LOCALAPPDATA% on Windows, reading the old %APPDATA% file", () => {
    assert.deepEqual(
      tokenStoreLocation({
        platform: "win32",
        env: {
          LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local",
          APPDATA: "C:\\Users\\ada\\AppData\\Roaming",
        },
        home: "C:\\Users\\ada",
      }),
      {
        path: "C:\\Users\\ada\\AppData\\Local\\mcp-adapter\\oauth.json",
        legacy: "C:\\Users\\ada\\AppData\\Roaming\\mcp-adapter\\oauth.json",
      },
    );
  });

  it("stays on the XDG config folder elsewhere", () => {
    assert.deepEqual(
      tokenStoreLocation({
        platform: "linux",
        env: { HOME: "/home/ada", LOCALAPPDATA: "C:\\x" },
        home: "/nope",
      }),
      { path: "/home/ada/.config/mcp-adapter/oauth.json" },
    );
    assert.deepEqual(
      tokenStoreLocation({
        platform: "linux",
        env: { XDG_CONFIG_HOME: "/cfg/" },
        home: "/nope",
      }),
      { path: "/cfg/mcp-adapter/oauth.json" },
    );
  });

  it("retries a blocked rename a bounded number of times, nothing else", () => {
    const waits: number[] = [];
    for (let attempt = 1;; attempt++) {
      const wait = renameRetryDelayMs("EPERM", attempt);
      if (wait === undefined) break;
      waits.push(wait);
    }
    assert.equal(waits.length, RENAME_ATTEMPTS - 1);
    assert.ok(waits.reduce((a, b) => a + b, 0) < 5000);
    assert.equal(renameRetryDelayMs("EBUSY", 1), 20);
    assert.equal(renameRetryDelayMs("EACCES", 2), 40);
    assert.equal(renameRetryDelayMs("ENOENT", 1), undefined);
    assert.equal(renameRetryDelayMs(undefined, 1), undefined);
  });
});

describe("the stdio wire on Windows", () => {
  it("escapes non-ASCII as \\uXXXX: the same JSON value, ASCII only", () => {
    const message = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "échö",
        arguments: { text: "naïve € 日本 😀", "ключ": "ü" },
      },
    };
    const line = escapeNonAscii(JSON.stringify(message));
    assert.equal(/[\u0080-\uffff]/.test(line), false);
    assert.deepEqual(JSON.parse(line), message);
    assert.ok(line.includes("\\u00e9ch\\u00f6"));
    assert.ok(line.includes("\\ud83d\\ude00"));
  });

  it("returns an ASCII line as it is", () => {
    const line = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    assert.equal(escapeNonAscii(line), line);
  });
});

describe("Windows hints", () => {
  it("names PATH, PATHEXT and the absolute-path fix for a missing command", () => {
    const hint = windowsStartHint("npx", { code: "ENOENT" })!;
    assert.match(hint, /"npx" was not found/);
    assert.match(hint, /PATH/);
    assert.match(hint, /PATHEXT/);
    assert.match(hint, /absolute path/);
    assert.match(hint, /current folder is not searched/);
  });

  it("explains cmd.exe's exit code 9009", () => {
    const hint = windowsStartHint("npx", { exitCode: 9009 })!;
    assert.match(hint, /9009.*is not recognized/);
    assert.match(hint, /PATHEXT/);
    assert.equal(windowsStartHint("npx", { exitCode: 1 }), undefined);
    assert.equal(windowsStartHint("npx", { code: "EACCES" }), undefined);
  });
});

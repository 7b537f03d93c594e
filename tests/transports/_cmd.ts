/**
 * A model of how `cmd.exe` and `CommandLineToArgvW` read a command line,
 * for the Linux tests of the batch-file quoting: cmd's phase 1 (`%VAR%`
 * expansion, command-line rules: no `%%` escape, an undefined name stays
 * as typed), its phase 2 (quotes toggle, `^` escapes outside quotes, `& |
 * < >` outside quotes are operators — an injection), the `/s /c "…"`
 * outer-quote stripping, a batch file's `%*` substitution (not expanded
 * again), and the argument splitting of the program the batch file runs.
 * It follows the rules documented for cmd (and used by Rust's BatBadBut
 * fix); the Windows CI job checks the same round trip on real cmd.exe.
 */

/** cmd's phase 1 on a command line (`cmd /c`): `%NAME%` and `%NAME:~a,b%` expansion. */
export function expandCommandLine(
  line: string,
  env: Readonly<Record<string, string>>,
): string {
  const lookup = (name: string): string | undefined => {
    const upper = name.toUpperCase();
    for (const [key, value] of Object.entries(env)) {
      if (key.toUpperCase() === upper) return value;
    }
    return undefined;
  };
  let out = "";
  let i = 0;
  while (i < line.length) {
    const char = line[i]!;
    if (char !== "%") {
      out += char;
      i++;
      continue;
    }
    const close = line.indexOf("%", i + 1);
    if (close === -1) {
      out += line.slice(i);
      break;
    }
    const name = line.slice(i + 1, close);
    const substring = /^(.*?):~(-?\d*),(-?\d*)$/.exec(name);
    const value = lookup(substring ? substring[1]! : name);
    if (name === "" || value === undefined) {
      // Undefined: the % stays, and scanning goes on at the next one.
      out += "%";
      i++;
      continue;
    }
    if (substring) {
      const start = Number(substring[2] || 0);
      const length = Number(substring[3] || 0);
      out += value.slice(start, start + length);
    } else out += value;
    i = close + 1;
  }
  return out;
}

/** What cmd's phase 2 makes of a line: the text it passes on, and any operator it ran. */
export interface Phase2 {
  /** The line with escaping carets removed (quotes kept). */
  text: string;
  /** Operators (`& | < >`) found outside quotes: each one is an injection. */
  operators: string[];
}

/** cmd's phase 2: quote state, `^` escapes and operators. */
export function scanSpecial(line: string): Phase2 {
  let text = "";
  const operators: string[] = [];
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (char === '"') {
      quoted = !quoted;
      text += char;
    } else if (!quoted && char === "^") {
      i++;
      if (i < line.length) text += line[i];
    } else if (!quoted && "&|<>".includes(char)) {
      operators.push(char);
      text += char;
    } else text += char;
  }
  return { text, operators };
}

/** `CommandLineToArgvW` (and the MSVC runtime since 2008): the arguments a program sees. */
export function splitArgv(line: string): string[] {
  const args: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === " " || line[i] === "\t") i++;
    if (i >= line.length) return args;
    let arg = "";
    let quoted = false;
    while (i < line.length) {
      const char = line[i]!;
      if (char === "\\") {
        let n = 0;
        while (line[i] === "\\") {
          n++;
          i++;
        }
        if (line[i] === '"') {
          arg += "\\".repeat(Math.floor(n / 2));
          if (n % 2 === 1) {
            arg += '"';
            i++;
          }
        } else arg += "\\".repeat(n);
      } else if (char === '"') {
        if (quoted && line[i + 1] === '"') {
          arg += '"';
          i += 2;
        } else {
          quoted = !quoted;
          i++;
        }
      } else if (!quoted && (char === " " || char === "\t")) {
        break;
      } else {
        arg += char;
        i++;
      }
    }
    args.push(arg);
  }
}

/** The result of running a batch file the way {@linkcode runThroughCmd} models it. */
export interface CmdRun {
  /** The batch file cmd starts (its first token, unquoted). */
  script: string;
  /** What the batch file's `"%_prog%" "script" %*` line hands its program. */
  args: string[];
  /** Operators cmd acted on, in either parse: each one is an injection. */
  operators: string[];
}

/**
 * Runs `cmd.exe <args…>` (verbatim, joined with spaces) in the model: the
 * `/s /c "…"` line is expanded and scanned, its first token is the batch
 * file, the rest is `%*`; the batch file's line `"node.exe" "cli.js" %*` is
 * scanned again, and the program splits what reaches it.
 */
export function runThroughCmd(
  cmdArgs: readonly string[],
  env: Readonly<Record<string, string>>,
): CmdRun {
  const full = cmdArgs.join(" ");
  const at = full.indexOf("/c ");
  if (at === -1 || !cmdArgs.includes("/s")) {
    throw new Error(`not a /s /c command line: ${full}`);
  }
  let line = full.slice(at + 3);
  // /s: the first and the last quote go.
  const first = line.indexOf('"');
  const last = line.lastIndexOf('"');
  if (first !== -1 && last > first) {
    line = line.slice(0, first) + line.slice(first + 1, last) +
      line.slice(last + 1);
  }
  const outer = scanSpecial(expandCommandLine(line, env));
  const words = splitArgv(outer.text);
  // %* is the text after the first token, as typed (not expanded again).
  const token = /^\s*("[^"]*"|\S+)\s*/.exec(outer.text)![0];
  const rest = outer.text.slice(token.length);
  const inner = scanSpecial(`"C:\\node.exe" "C:\\cli.js" ${rest}`);
  return {
    script: words[0] ?? "",
    args: splitArgv(inner.text).slice(2),
    operators: [...outer.operators, ...inner.operators],
  };
}

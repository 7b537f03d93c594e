/**
 * What `scripts/ci.ts` prints instead of every step's full output: the key
 * figures of a step read from its log (test counts, smoke counts, bundle
 * and tarball sizes), the last lines of a failed step, and the closing
 * summary per stage, which ends with `node --test`'s own summary lines
 * (`# tests N`, `# pass N`, `# fail N`, …) so that readers of the last lines
 * of CI's output find them there.
 *
 * Pure functions over text; `tests/scripts/ci_report_test.ts` feeds them
 * real output.
 *
 * @module
 */

/** Colours and other terminal escapes, which some tools print even into a pipe. */
// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/**
 * The text without terminal escapes and carriage returns.
 *
 * @param text A tool's output.
 * @returns Plain text.
 *
 * @example
 * ```ts
 * import { plain } from "./_ci_report.ts";
 *
 * plain("\x1b[32mok\x1b[0m"); // "ok"
 * ```
 */
export function plain(text: string): string {
  return text.replace(ANSI, "").replace(/\r\n?/g, "\n");
}

/** `deno test`'s closing counts. */
export interface DenoCounts {
  /** Test files' top-level tests (`describe`/`it` at the top). */
  passed: number;
  failed: number;
  /** Nested steps (`it` inside `describe`), when Deno reports them. */
  steps?: number;
  /** Ignored (skipped) tests and steps, when there are any. */
  ignored?: number;
}

/**
 * Reads `deno test`'s closing line (`ok | 83 passed (482 steps) | 0 failed (45s)`).
 *
 * @param log The step's output.
 * @returns The counts of the last such line, or `undefined`.
 *
 * @example
 * ```ts
 * import { denoCounts } from "./_ci_report.ts";
 *
 * denoCounts("ok | 83 passed (482 steps) | 0 failed (45s)"); // { passed: 83, failed: 0, steps: 482 }
 * ```
 */
export function denoCounts(log: string): DenoCounts | undefined {
  const lines = plain(log).split("\n").filter((line) =>
    /^(?:ok|FAILED) \| \d+ passed/.test(line)
  );
  const line = lines.at(-1);
  if (line === undefined) return undefined;
  const number = (pattern: RegExp) => {
    const match = pattern.exec(line);
    return match ? Number(match[1]) : undefined;
  };
  const counts: DenoCounts = {
    passed: number(/(\d+) passed/)!,
    failed: number(/(\d+) failed/) ?? 0,
  };
  const steps = number(/passed \((\d+) steps?\)/);
  if (steps !== undefined) counts.steps = steps;
  // "0 ignored (1 step)": ignored tests and ignored steps, counted together.
  const ignored = (number(/(\d+) ignored/) ?? 0) +
    (number(/ignored \((\d+) steps?\)/) ?? 0);
  if (ignored) counts.ignored = ignored;
  return counts;
}

/**
 * `node --test`'s closing summary lines (`# tests 485`, `# pass 485`, …),
 * as printed, the last block of them.
 *
 * @param log The step's output.
 * @returns The lines, or `[]` when there are none.
 *
 * @example
 * ```ts
 * import { nodeSummaryLines } from "./_ci_report.ts";
 *
 * nodeSummaryLines("ok 1 - x\n# tests 1\n# pass 1\n# fail 0\n"); // ["# tests 1", "# pass 1", "# fail 0"]
 * ```
 */
export function nodeSummaryLines(log: string): string[] {
  const lines = plain(log).split("\n");
  const start = lines.findLastIndex((line) => /^# tests \d+$/.test(line));
  if (start === -1) return [];
  const block: string[] = [];
  for (const line of lines.slice(start)) {
    if (
      !/^# (?:tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/
        .test(line)
    ) break;
    block.push(line);
  }
  return block;
}

/** `node --test`'s closing counts. */
export interface NodeCounts {
  tests: number;
  pass: number;
  fail: number;
  skipped: number;
  cancelled: number;
}

/**
 * Reads `node --test`'s closing counts.
 *
 * @param log The step's output.
 * @returns The counts, or `undefined` when node printed none.
 *
 * @example
 * ```ts
 * import { nodeCounts } from "./_ci_report.ts";
 *
 * nodeCounts("# tests 2\n# pass 1\n# fail 1\n"); // { tests: 2, pass: 1, fail: 1, skipped: 0, cancelled: 0 }
 * ```
 */
export function nodeCounts(log: string): NodeCounts | undefined {
  const lines = nodeSummaryLines(log);
  if (lines.length === 0) return undefined;
  const value = (name: string) => {
    const line = lines.find((line) => line.startsWith(`# ${name} `));
    return line === undefined ? 0 : Number(line.slice(name.length + 3));
  };
  return {
    tests: value("tests"),
    pass: value("pass"),
    fail: value("fail"),
    skipped: value("skipped"),
    cancelled: value("cancelled"),
  };
}

/**
 * Reads a smoke script's closing line (`smoke-bun: 4 passed, 0 failed`).
 *
 * @param log The step's output.
 * @returns `{ passed, failed }` of the last such line, or `undefined`.
 *
 * @example
 * ```ts
 * import { smokeCounts } from "./_ci_report.ts";
 *
 * smokeCounts("smoke-workerd: 3 passed, 0 failed"); // { passed: 3, failed: 0 }
 * ```
 */
export function smokeCounts(
  log: string,
): { passed: number; failed: number } | undefined {
  const matches = [
    ...plain(log).matchAll(/^[\w -]+: (\d+) passed, (\d+) failed$/gm),
  ];
  const last = matches.at(-1);
  return last === undefined
    ? undefined
    : { passed: Number(last[1]), failed: Number(last[2]) };
}

/**
 * Reads the root entry's bundle size that `tests/bundle_test.ts` prints.
 *
 * @param log The step's output.
 * @returns E.g. `"70.8 KiB minified, 24.2 KiB gzip"`, or `undefined`.
 *
 * @example
 * ```ts
 * import { bundleSize } from "./_ci_report.ts";
 *
 * bundleSize("bundle: root entry main chunk 70.8 KiB minified, 24.2 KiB gzip (72466 / 24758 bytes)");
 * // "70.8 KiB minified, 24.2 KiB gzip"
 * ```
 */
export function bundleSize(log: string): string | undefined {
  const match =
    /bundle: root entry main chunk ([\d.]+ KiB) minified, ([\d.]+ KiB) gzip/
      .exec(plain(log));
  return match ? `${match[1]} minified, ${match[2]} gzip` : undefined;
}

/**
 * Reads the npm tarball's size from `npm pack`'s notices.
 *
 * @param log The step's output.
 * @returns E.g. `"162.2 kB packed, 579.7 kB unpacked, 98 files"`, or `undefined`.
 *
 * @example
 * ```ts
 * import { tarballSize } from "./_ci_report.ts";
 *
 * tarballSize("npm notice package size: 162.2 kB\nnpm notice unpacked size: 579.7 kB\nnpm notice total files: 98");
 * ```
 */
export function tarballSize(log: string): string | undefined {
  const text = plain(log);
  const packed = /package size:\s+([\d.]+ \w+)/.exec(text)?.[1];
  if (packed === undefined) return undefined;
  const unpacked = /unpacked size:\s+([\d.]+ \w+)/.exec(text)?.[1];
  const files = /total files:\s+(\d+)/.exec(text)?.[1];
  return [
    `${packed} packed`,
    ...(unpacked ? [`${unpacked} unpacked`] : []),
    ...(files ? [`${files} files`] : []),
  ].join(", ");
}

/**
 * The score `scripts/conformance.ts` prints, for each client it ran: the
 * 0.1.16 scenarios, then each requirement set, ours and (when it ran) the
 * SDK v2's beside it.
 *
 * @param log The conformance step's output.
 * @returns E.g. `"ours 26/26"` or `"ours 26/26, sdk v2 25/26, ours at
 * 2026-07-28 11/32 (21 expected failures) vs sdk v2 32/32"`, or `undefined`.
 *
 * @example
 * ```ts
 * import { conformanceScore } from "./_ci_report.ts";
 *
 * conformanceScore("ours: 26/26 scenarios pass\ntook 15.3 s"); // "ours 26/26"
 * ```
 */
export function conformanceScore(log: string): string | undefined {
  const text = plain(log);
  const scores = [
    ...text.matchAll(/^(ours|sdk|sdk v2) ?: (\d+\/\d+) scenarios pass$/gm),
  ].map(([, client, score]) => `${client} ${score}`);
  const reference = new Map(
    [
      ...text.matchAll(
        /^sdk v2 at (\S+): (\d+\/\d+) scored scenarios pass/gm,
      ),
    ].map(([, revision, score]) => [revision!, score!]),
  );
  const sets = [
    ...text.matchAll(
      /^ours at (\S+): (\d+\/\d+) scored scenarios pass \((\d+) expected failures\)/gm,
    ),
  ].map(([, revision, score, expected]) =>
    `ours at ${revision} ${score} (${expected} expected failures)${
      reference.has(revision!) ? ` vs sdk v2 ${reference.get(revision!)}` : ""
    }`
  );
  const all = [...scores, ...sets];
  return all.length === 0 ? undefined : all.join(", ");
}

/**
 * The key figures of one step, for its line on the console.
 *
 * @param name The step's name (`test-deno`, `smoke-bun`, …).
 * @param log The step's output.
 * @returns A short text, `""` when the step has none.
 *
 * @example
 * ```ts
 * import { stepFigures } from "./_ci_report.ts";
 *
 * stepFigures("smoke-bun", "smoke-bun: 4 passed, 0 failed"); // "4 passed, 0 failed"
 * ```
 */
export function stepFigures(name: string, log: string): string {
  const parts: string[] = [];
  if (name === "test-deno") {
    const counts = denoCounts(log);
    if (counts) parts.push(describeDeno(counts));
  } else if (isNodeStep(name)) {
    const counts = nodeCounts(log);
    if (counts) parts.push(describeNode(counts));
  } else if (name.startsWith("smoke-")) {
    const counts = smokeCounts(log);
    if (counts) parts.push(`${counts.passed} passed, ${counts.failed} failed`);
  } else if (name === "build-npm") {
    const size = tarballSize(log);
    if (size) parts.push(`tarball ${size}`);
  } else if (name === "conformance") {
    const score = conformanceScore(log);
    if (score) parts.push(`MCP conformance client scenarios: ${score}`);
  }
  if (name.startsWith("test-")) {
    const size = bundleSize(log);
    if (size) parts.push(`bundle ${size}`);
  }
  return parts.join("; ");
}

/**
 * `deno test`'s counts in a few words.
 *
 * @param counts The counts.
 * @returns E.g. `"83 passed (482 steps), 0 failed"`.
 */
export function describeDeno(counts: DenoCounts): string {
  return `${counts.passed} passed${
    counts.steps === undefined ? "" : ` (${counts.steps} steps)`
  }, ${counts.failed} failed${
    counts.ignored ? `, ${counts.ignored} ignored` : ""
  }`;
}

/**
 * `node --test`'s counts in a few words.
 *
 * @param counts The counts.
 * @returns E.g. `"485 tests: 485 pass, 0 fail"`.
 */
export function describeNode(counts: NodeCounts): string {
  return `${counts.tests} tests: ${counts.pass} pass, ${counts.fail} fail${
    counts.skipped ? `, ${counts.skipped} skipped` : ""
  }${counts.cancelled ? `, ${counts.cancelled} cancelled` : ""}`;
}

/** One step as it ran, for the closing summary. */
export interface StepResult {
  name: string;
  /** 0 when it passed. */
  code: number;
  seconds: number;
  log: string;
}

/**
 * Whether a step runs the suite on Node: `test-node`, or `test-node-<line>`
 * for one Node line (`test-node-24`).
 *
 * @param name The step's name.
 * @returns `true` for the Node suite's steps.
 *
 * @example
 * ```ts
 * import { isNodeStep } from "./_ci_report.ts";
 *
 * isNodeStep("test-node-24"); // true
 * ```
 */
export function isNodeStep(name: string): boolean {
  return name === "test-node" || name.startsWith("test-node-");
}

/**
 * The stages of the closing summary, in order, and the steps each is read
 * from; a stage of several steps (one per Node line) gets a row per step,
 * labelled with the step's suffix (`Node 24`).
 */
const STAGES: readonly { stage: string; steps: (name: string) => boolean }[] = [
  { stage: "Deno", steps: (name) => name === "test-deno" },
  { stage: "Node", steps: isNodeStep },
  { stage: "Bun", steps: (name) => name === "smoke-bun" },
  { stage: "workerd", steps: (name) => name === "smoke-workerd" },
  { stage: "browser", steps: (name) => name === "smoke-browser" },
];

/**
 * The closing summary: one line per stage that ran (Deno, each Node line,
 * Bun, workerd, browser, conformance, bundle), then node's own summary
 * lines (of the last Node step), last.
 *
 * @param results The steps that ran, in order.
 * @param logDir Where the logs are.
 * @returns The lines to print.
 *
 * @example
 * ```ts
 * import { closingSummary } from "./_ci_report.ts";
 *
 * const lines = closingSummary([
 *   { name: "smoke-bun", code: 0, seconds: 12.5, log: "smoke-bun: 4 passed, 0 failed" },
 * ], "/tmp/logs");
 * ```
 */
export function closingSummary(
  results: readonly StepResult[],
  logDir: string,
): string[] {
  const lines = ["", "== summary =="];
  const row = (stage: string, text: string) =>
    lines.push(`${stage.padEnd(8)} ${text}`);
  for (const { stage, steps } of STAGES) {
    for (const result of results.filter((result) => steps(result.name))) {
      const step = result.name;
      const figures = step === "test-deno"
        ? describeCounts(denoCounts(result.log), describeDeno)
        : isNodeStep(step)
        ? describeCounts(nodeCounts(result.log), describeNode)
        : describeCounts(
          smokeCounts(result.log),
          (counts) => `${counts.passed} passed, ${counts.failed} failed`,
        );
      const line = /^test-node-(.+)$/.exec(step)?.[1];
      row(
        line === undefined ? stage : `${stage} ${line}`,
        `${result.code === 0 ? "ok" : "FAILED"}  ${figures} in ${
          result.seconds.toFixed(1)
        } s`,
      );
    }
  }
  const bundled = [...results].reverse().map((result) => bundleSize(result.log))
    .find((size) => size !== undefined);
  const tarball = results.map((result) => tarballSize(result.log)).find((
    size,
  ) => size !== undefined);
  if (bundled || tarball) {
    row(
      "bundle",
      [
        ...(bundled ? [`root entry ${bundled}`] : []),
        ...(tarball ? [`npm tarball ${tarball}`] : []),
      ].join("; "),
    );
  }
  const conformance = results.find((result) => result.name === "conformance");
  if (conformance !== undefined) {
    row(
      "conform",
      `${conformance.code === 0 ? "ok" : "FAILED"}  ${
        conformanceScore(conformance.log) ?? "no score printed"
      } client scenarios of the official suite in ${
        conformance.seconds.toFixed(1)
      } s`,
    );
  }
  const total = results.reduce((sum, result) => sum + result.seconds, 0);
  row(
    "total",
    `${results.length} steps in ${total.toFixed(1)} s; logs in ${logDir}`,
  );
  const node = results.findLast((result) => isNodeStep(result.name));
  if (node !== undefined) lines.push(...nodeSummaryLines(node.log));
  return lines;
}

function describeCounts<T>(
  counts: T | undefined,
  describe: (counts: T) => string,
): string {
  return counts === undefined ? "no counts printed" : describe(counts);
}

/**
 * The last `count` lines of a text, without a trailing empty line.
 *
 * @param text The text.
 * @param count How many lines.
 * @returns Those lines.
 *
 * @example
 * ```ts
 * import { lastLines } from "./_ci_report.ts";
 *
 * lastLines("a\nb\nc\n", 2); // ["b", "c"]
 * ```
 */
export function lastLines(text: string, count: number): string[] {
  const lines = plain(text).replace(/\n$/, "").split("\n");
  return lines.slice(-count);
}

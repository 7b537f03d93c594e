/**
 * The CI pipeline: every check, in order, stopping at the first failure.
 *
 * Run it with `deno task ci`, or name steps to run only those:
 * `deno task ci build-npm test-node-24`. Each step's whole output goes to
 * its own log file in a fresh temporary folder (printed first); the console
 * gets one line per step — name, ok or FAILED, seconds, and the step's key
 * figures (test counts, smoke counts, bundle and tarball sizes) — and, when
 * a step fails, its last lines. The run closes with a summary per stage
 * (Deno, each Node line, Bun, workerd, browser, bundle) that ends with the
 * last Node line's `node --test` summary lines (`# tests N`, `# pass N`,
 * `# fail N`, …), so a reader of the last lines of the output sees node's
 * counts.
 *
 * @module
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEMO_ARGS, NODE_LINES, readDenoConfig, ROOT } from "./_deps.ts";
import { log, logError, run, TIMEOUT_EXIT_CODE } from "./_run.ts";
import {
  closingSummary,
  lastLines,
  stepFigures,
  type StepResult,
} from "./_ci_report.ts";

/** One command of the pipeline. */
export interface Step {
  /** Short name, usable on the command line. */
  name: string;
  /** The executable. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Deadline in milliseconds. */
  timeoutMs: number;
}

const MINUTE = 60_000;

/** Paths `deno check` covers, when they exist. */
const CHECKED = [
  "mod.ts",
  "config.ts",
  "cli.ts",
  "models.ts",
  "auth.ts",
  "drift.ts",
  "tasks.ts",
  "search.ts",
  "bin.ts",
  "src",
  "tests",
  "scripts",
  "examples",
  "bench",
];

/**
 * The Markdown files whose `ts` code blocks `deno check --doc` type-checks:
 * the README and every page of `docs/`. A block that is a fragment (it uses
 * an `adapter` or `config` the page set up in words) is marked `ts ignore`;
 * whole programs quoted from `examples/` are kept equal to their files by
 * `tests/readme_test.ts`.
 */
function checkedMarkdown(): string[] {
  const docs = join(ROOT, "docs");
  const pages = existsSync(docs)
    ? [...Deno.readDirSync(docs)]
      .filter((entry) => entry.isFile && entry.name.endsWith(".md"))
      .map((entry) => `docs/${entry.name}`)
      .sort()
    : [];
  return ["README.md", ...pages];
}

/**
 * The pipeline's steps, in order. They all run this Deno's own executable,
 * so nothing goes through `npx` again. There is no separate cache step: the
 * first `deno` command caches every npm package in `deno.json` `imports`
 * (server-everything included), so no test starts a server by downloading it.
 *
 * @param entries The package's entry modules (`deno.json` `exports`), whose
 * public API `deno doc --lint` checks.
 * @returns The steps.
 *
 * @example
 * ```ts
 * import { ciSteps } from "./ci.ts";
 *
 * const names = ciSteps(["./mod.ts"]).map((step) => step.name);
 * ```
 */
export function ciSteps(entries: readonly string[]): Step[] {
  const checked = CHECKED.filter((path) => existsSync(join(ROOT, path)));
  return [
    denoStep("fmt", ["fmt", "--check"], 5),
    denoStep("lint", ["lint"], 5),
    denoStep("check", ["check", "--doc", ...checked, ...checkedMarkdown()], 10),
    denoStep("doc-lint", ["doc", "--lint", ...entries], 5),
    denoStep("test-deno", ["test", "-A", "--parallel", "tests/"], 15),
    // The README's two runnable programs: the demo and its first example.
    denoStep("demo", [...DEMO_ARGS], 3),
    denoStep("quickstart", ["task", "quickstart"], 5),
    denoStep("publish-dry-run", ["publish", "--dry-run", "--allow-dirty"], 5),
    // What a Deno program of the root entry downloads, on a fresh DENO_DIR.
    denoStep("lean-deno", ["run", "-A", "scripts/lean_deno.ts"], 5),
    // The official MCP conformance suite's client scenarios, through the
    // public API; fails only on a scenario not in its EXPECTED_FAILURES.
    denoStep("conformance", ["run", "-A", "scripts/conformance.ts"], 25),
    denoStep("build-npm", ["run", "-A", "scripts/build_npm.ts"], 10),
    // The npm build on Bun and the root entry on workerd (both need the tarball).
    denoStep("smoke-bun", ["run", "-A", "scripts/smoke_bun.ts"], 10),
    denoStep("smoke-workerd", ["run", "-A", "scripts/smoke_workerd.ts"], 10),
    // The root entry bundled for browsers, in headless Chromium, cross-origin.
    denoStep("smoke-browser", ["run", "-A", "scripts/smoke_browser.ts"], 10),
    // The whole suite on each maintained Node line (NODE_LINES), oldest
    // first. test_node bounds its own run at 20 minutes; this is the backstop.
    ...Object.keys(NODE_LINES).map((line) =>
      denoStep(
        `test-node-${line}`,
        ["run", "-A", "scripts/test_node.ts", `--node=${line}`],
        25,
      )
    ),
  ];
}

function denoStep(name: string, args: string[], minutes: number): Step {
  return { name, command: Deno.execPath(), args, timeoutMs: minutes * MINUTE };
}

/** Lines of a failed step's log shown on the console. */
const FAILURE_TAIL_LINES = 80;

/**
 * Runs steps in order from the repository root, each one's output to its
 * log file, and stops at the first failure, naming it and showing the end
 * of its log.
 *
 * @param steps The steps to run.
 * @param logDir An existing folder for the logs.
 * @returns 0, or the failed step's exit code.
 *
 * @example
 * ```ts ignore
 * import { ciSteps, runSteps } from "./ci.ts";
 *
 * Deno.exit(await runSteps(ciSteps(["./mod.ts"]), await Deno.makeTempDir()));
 * ```
 */
export async function runSteps(
  steps: readonly Step[],
  logDir: string,
): Promise<number> {
  log(`ci: ${steps.length} steps; each step's output is in ${logDir}/`);
  const results: StepResult[] = [];
  const width = Math.max(...steps.map((step) => step.name.length));
  for (const [index, step] of steps.entries()) {
    const number = String(index + 1).padStart(String(steps.length).length);
    const logFile = join(
      logDir,
      `${number.trim().padStart(2, "0")}-${step.name}.log`,
    );
    write(`[${number}/${steps.length}] ${step.name.padEnd(width)} `);
    const started = performance.now();
    const file = await Deno.open(logFile, {
      write: true,
      create: true,
      truncate: true,
    });
    let code: number;
    try {
      file.writeSync(new TextEncoder().encode(`$ ${display(step)}\n`));
      code = await run(step.command, step.args, {
        cwd: ROOT,
        timeoutMs: step.timeoutMs,
        onOutput: (chunk) => writeAll(file, chunk),
      });
    } finally {
      file.close();
    }
    const seconds = (performance.now() - started) / 1000;
    const text = await Deno.readTextFile(logFile);
    results.push({ name: step.name, code, seconds, log: text });
    const figures = stepFigures(step.name, text);
    const status = code === 0 ? "ok    " : "FAILED";
    log(
      `${status} ${seconds.toFixed(1).padStart(6)} s${
        figures ? `  ${figures}` : ""
      }`,
    );
    if (code !== 0) {
      const why = code === TIMEOUT_EXIT_CODE
        ? `timed out after ${step.timeoutMs} ms`
        : `exit ${code}`;
      logError(
        `\nci: step "${step.name}" failed (${why}); the last lines of ${logFile}:\n`,
      );
      logError(lastLines(text, FAILURE_TAIL_LINES).join("\n"));
      logError(closingSummary(results, logDir).join("\n"));
      logError(
        `\nci: step "${step.name}" failed (${why}); its log: ${logFile}`,
      );
      return code;
    }
  }
  // node's summary lines come last (closingSummary ends with them).
  log(closingSummary(results, logDir).join("\n"));
  return 0;
}

/** Writes without a newline, so the step's result completes the line. */
function write(text: string): void {
  writeAll(Deno.stdout, new TextEncoder().encode(text));
}

function writeAll(
  target: { writeSync(data: Uint8Array): number },
  data: Uint8Array,
): void {
  let written = 0;
  while (written < data.length) {
    written += target.writeSync(data.subarray(written));
  }
}

/** A step as a shell user would type it. */
function display(step: Step): string {
  const command = step.command === Deno.execPath() ? "deno" : step.command;
  return [command, ...step.args].join(" ");
}

/** The steps named on the command line, or all of them. */
function selectSteps(all: Step[], names: readonly string[]): Step[] {
  const unknown = names.filter((name) =>
    !all.some((step) => step.name === name)
  );
  if (unknown.length > 0) {
    throw new Error(
      `unknown step(s) ${unknown.join(", ")}; steps are ${
        all.map((step) => step.name).join(", ")
      }`,
    );
  }
  return names.length === 0
    ? all
    : all.filter((step) => names.includes(step.name));
}

if (import.meta.main) {
  let code: number;
  try {
    const { exports } = await readDenoConfig();
    const steps = selectSteps(ciSteps(Object.values(exports)), Deno.args);
    const logDir = await Deno.makeTempDir({ prefix: "mcp-adapter-ci-" });
    code = await runSteps(steps, logDir);
  } catch (error) {
    logError(`ci: ${error instanceof Error ? error.message : error}`);
    code = 1;
  }
  Deno.exit(code);
}

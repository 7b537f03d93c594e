/**
 * Runs the official MCP conformance suite's client scenarios
 * (`@modelcontextprotocol/conformance`, pinned below) against this library,
 * through `scripts/conformance_client.ts`, and prints one line per scenario.
 * The same scenarios also run through the official SDK v2's client
 * (`scripts/conformance_sdk_v2_client.ts`, `@modelcontextprotocol/client`),
 * whose result is printed beside ours; with `--sdk`, through the SDK v1's
 * client (`scripts/conformance_sdk_client.ts`) too. The SDKs' scores are
 * informative: they never fail the run. `--ours-only` leaves the SDK v2 out.
 *
 * The suite needs Node ≥ 22 (it imports `fs.globSync`), so the npm package
 * `node` (pinned below) is installed beside it, once, into a cache folder
 * (`$XDG_CACHE_HOME` or `~/.cache`, `mcp-adapter/conformance-…`). Each
 * scenario is one `conformance client --scenario <name>` process, in its own
 * process group with a deadline; the group is killed afterwards, so no test
 * server or driver outlives the run. A scenario passes when the suite says
 * so (its exit code: no failed or warning check, and the client exited 0
 * unless the scenario expects an error).
 *
 * Then, unless scenarios are named, the frozen requirement sets of
 * {@linkcode REQUIREMENTS_VERSION} run, `--requirements 2025-11-25` and
 * `--requirements 2026-07-28`, one suite process each (the suite runs a
 * set's scenarios itself and prints a summary, which is read here), for our
 * client and then for the SDK v2's; and last the extension scenarios of
 * that suite our client implements ({@linkcode EXTENSION_SCENARIOS}: DPoP,
 * enterprise-managed authorization, workload identity), ours only. A named
 * scenario the 0.1.16 suite lacks runs on {@linkcode REQUIREMENTS_VERSION}.
 *
 * Exits non-zero only when a scenario our client is expected to pass fails
 * ({@linkcode EXPECTED_FAILURES} and
 * {@linkcode EXPECTED_REQUIREMENT_FAILURES} list the others, each with its
 * reason; an extension scenario is always expected to pass), or the suite
 * could not be run. Usage:
 * `deno run -A scripts/conformance.ts [--sdk] [--ours-only] [scenario…]`
 * (e.g. `auth/dpop auth/wif-jwt-bearer`), or
 * `deno run -A scripts/conformance.ts --requirements=2026-07-28 [--ours-only]`.
 *
 * @module
 */

import { join } from "node:path";
import { ROOT } from "./_deps.ts";
import { exitWith, log, logError, run, TIMEOUT_EXIT_CODE } from "./_run.ts";
import { type Background, startBackground } from "./_smoke.ts";

/** The suite's version: its scenario names and checks change between releases. */
export const CONFORMANCE_VERSION = "0.1.16";
/**
 * The suite whose frozen requirement sets (`--requirements 2025-11-25`,
 * `--requirements 2026-07-28`) are run beside the 0.1.16 scenarios.
 */
export const REQUIREMENTS_VERSION = "0.2.0-alpha.12";
/** The requirement sets run, one suite process each. */
export const REQUIREMENT_SETS = ["2025-11-25", "2026-07-28"] as const;

/**
 * Scored scenarios of a requirement set our client is known to fail, with
 * the reason; the rule is that of {@linkcode EXPECTED_FAILURES}.
 */
export const EXPECTED_REQUIREMENT_FAILURES: Readonly<
  Record<string, Readonly<Record<string, string>>>
> = {
  "2025-11-25": {},
  "2026-07-28": {},
};
/** The Node the suite runs on (npm package `node`, which ships the binary). */
export const NODE_VERSION = "22.23.3";

/**
 * Extension scenarios of {@linkcode REQUIREMENTS_VERSION} (in no
 * requirement set) our client implements, through `/auth`'s providers.
 * They run after the requirement sets, for our client only (the SDK
 * drivers do not implement them), and fail the run when one fails.
 */
export const EXTENSION_SCENARIOS: readonly string[] = [
  "auth/dpop",
  "auth/dpop-nonce",
  "auth/enterprise-managed-authorization",
  "auth/wif-jwt-bearer",
];

/**
 * Scenarios our client is known to fail today, with the reason. A failure
 * of any other scenario fails the run; an entry that passes is reported as
 * stale, to be removed. Empty: all 26 client scenarios of 0.1.16 pass.
 */
export const EXPECTED_FAILURES: Readonly<Record<string, string>> = {};

const INSTALL_TIMEOUT_MS = 5 * 60_000;
/** One scenario: the suite gives the client 30 s; setup and teardown are quick. */
const SCENARIO_TIMEOUT_MS = 60_000;
/** The whole run after installing; scenarios not started by then are failed. */
const RUN_TIMEOUT_MS = 10 * 60_000;
/** Scenarios at once: each runs a suite process and a Deno driver; CI has 2 cores. */
const CONCURRENCY = 2;

const CLIENTS = {
  adapter: join(ROOT, "scripts", "conformance_client.ts"),
  sdk: join(ROOT, "scripts", "conformance_sdk_client.ts"),
  sdk2: join(ROOT, "scripts", "conformance_sdk_v2_client.ts"),
} as const;
type ClientName = keyof typeof CLIENTS;

/** How the table and the score lines name each client. */
const LABELS: Readonly<Record<ClientName, string>> = {
  adapter: "ours",
  sdk: "sdk",
  sdk2: "sdk v2",
};

/** The suite and its Node, installed. */
interface Suite {
  node: string;
  cli: string;
}

/** How one scenario went for one client. */
export interface ScenarioResult {
  scenario: string;
  client: ClientName;
  passed: boolean;
  /** Failed and warning checks (`id: description`), and how the client ended. */
  problems: string[];
  durationMs: number;
}

function cacheRoot(): string {
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  const home = Deno.env.get("HOME");
  if (xdg) return xdg;
  if (home) return join(home, ".cache");
  return Deno.makeTempDirSync({ prefix: "mcp-adapter-conformance-cache-" });
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Installs the pinned suite and Node into the cache folder, unless they are there. */
async function installSuite(
  version: string = CONFORMANCE_VERSION,
): Promise<Suite> {
  const dir = join(
    cacheRoot(),
    "mcp-adapter",
    `conformance-${version}-node-${NODE_VERSION}`,
  );
  const suite = {
    node: join(dir, "node_modules", "node", "bin", "node"),
    cli: join(
      dir,
      "node_modules",
      "@modelcontextprotocol",
      "conformance",
      "dist",
      "index.js",
    ),
  };
  if (await exists(suite.node) && await exists(suite.cli)) return suite;
  // Installed beside the final folder and renamed into place, so an
  // interrupted install never looks complete.
  await Deno.mkdir(join(dir, ".."), { recursive: true });
  const scratch = await Deno.makeTempDir({
    dir: join(dir, ".."),
    prefix: ".install-",
  });
  try {
    await Deno.writeTextFile(
      join(scratch, "package.json"),
      JSON.stringify({ private: true }) + "\n",
    );
    const specs = [
      `@modelcontextprotocol/conformance@${version}`,
      `node@${NODE_VERSION}`,
    ];
    log(`conformance: npm install ${specs.join(" ")}`);
    const code = await run("npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-package-lock",
      "--loglevel=error",
      ...specs,
    ], { cwd: scratch, timeoutMs: INSTALL_TIMEOUT_MS });
    if (code !== 0) {
      throw new Error(
        code === TIMEOUT_EXIT_CODE
          ? `npm install timed out after ${INSTALL_TIMEOUT_MS} ms`
          : `npm install exited with code ${code}`,
      );
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.rename(scratch, dir);
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
  if (!await exists(suite.node)) {
    throw new Error(`the npm package node@${NODE_VERSION} has no bin/node`);
  }
  return suite;
}

/** The suite's client scenarios, as its `list` command prints them. */
async function listScenarios(suite: Suite): Promise<string[]> {
  const output = await new Deno.Command(suite.node, {
    args: [suite.cli, "list"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(
      `"conformance list" failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  const section = text.split(/^Client scenarios.*$/m)[1] ?? "";
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
}

/** The command the suite runs; it splits it on spaces and appends the server URL. */
function driverCommand(client: ClientName): string {
  const parts = [
    Deno.execPath(),
    "run",
    "-A",
    "--quiet",
    "--config",
    join(ROOT, "deno.json"),
    CLIENTS[client],
  ];
  const spaced = parts.find((part) => /\s/.test(part));
  if (spaced !== undefined) {
    throw new Error(
      `the conformance suite splits its --command on spaces, and ${
        JSON.stringify(spaced)
      } has one; run from a path without spaces`,
    );
  }
  return parts.join(" ");
}

interface Check {
  id: string;
  status: string;
  description?: string;
  errorMessage?: string;
}

/** Every `checks.json` and `stderr.txt` under `dir`. */
async function readResults(
  dir: string,
): Promise<{ checks: Check[]; stderr: string }> {
  const checks: Check[] = [];
  let stderr = "";
  const walk = async (path: string): Promise<void> => {
    for await (const entry of Deno.readDir(path)) {
      const child = join(path, entry.name);
      if (entry.isDirectory) await walk(child);
      else if (entry.name === "checks.json") {
        checks.push(...JSON.parse(await Deno.readTextFile(child)));
      } else if (entry.name === "stderr.txt") {
        stderr = await Deno.readTextFile(child);
      }
    }
  };
  await walk(dir).catch(() => {});
  return { checks, stderr };
}

/** The exit code of `process`, or `"timeout"` when it runs past `timeoutMs`. */
async function exitedWithin(
  process: Background,
  timeoutMs: number,
): Promise<number | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const code = await Promise.race([
    process.exited,
    new Promise<"timeout">((resolve) =>
      timer = setTimeout(() => resolve("timeout"), timeoutMs)
    ),
  ]);
  clearTimeout(timer);
  return code;
}

/** Runs one scenario for one client; never throws. */
async function runScenario(
  suite: Suite,
  client: ClientName,
  scenario: string,
  running: Set<Background>,
): Promise<ScenarioResult> {
  const started = performance.now();
  const outDir = await Deno.makeTempDir({ prefix: "mcp-conformance-out-" });
  const problems: string[] = [];
  let passed = false;
  const process = startBackground(
    `conformance ${scenario} (${client})`,
    suite.node,
    [
      suite.cli,
      "client",
      "--scenario",
      scenario,
      "--command",
      driverCommand(client),
      "--timeout",
      "30000",
      "-o",
      outDir,
    ],
    { cwd: outDir, env: { NO_COLOR: "1" } },
  );
  running.add(process);
  try {
    const code = await exitedWithin(process, SCENARIO_TIMEOUT_MS);
    const { checks, stderr } = await readResults(outDir);
    for (const check of checks) {
      if (check.status === "FAILURE" || check.status === "WARNING") {
        problems.push(
          `${check.status} ${check.id}: ${
            check.errorMessage ?? check.description ?? ""
          }`,
        );
      }
    }
    if (code === "timeout") {
      problems.push(
        `the suite did not finish within ${SCENARIO_TIMEOUT_MS} ms`,
      );
    } else if (code !== 0) {
      const last = stderr.trim().split("\n").at(-1);
      if (last) problems.push(`client: ${last}`);
      if (checks.length === 0) {
        problems.push(
          `suite exit ${code}: ${process.tail().slice(-5).join(" | ")}`,
        );
      }
    }
    passed = code === 0;
  } finally {
    await process.stop();
    running.delete(process);
    await Deno.remove(outDir, { recursive: true }).catch(() => {});
  }
  return {
    scenario,
    client,
    passed,
    problems,
    durationMs: performance.now() - started,
  };
}

/** Runs `jobs` with at most {@linkcode CONCURRENCY} at once, within the run deadline. */
async function runAll(
  jobs: (() => Promise<ScenarioResult>)[],
  timedOut: (index: number) => ScenarioResult,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = new Array(jobs.length);
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = Date.now() < deadline
        ? await jobs[index]!()
        : timedOut(index);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return results;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

/**
 * Runs the scenarios and prints the table.
 *
 * @param options `sdk`: also run the SDK v1's client; `sdk2`: also run the
 * SDK v2's client; `reference`: run the SDK v2's client on the requirement
 * sets too (default true); `only`: scenario names to run (then no
 * requirement set runs).
 * @returns The process exit code: 1 when a scenario expected to pass failed.
 *
 * @example
 * ```ts ignore
 * import { conformance } from "./conformance.ts";
 *
 * Deno.exit(await conformance({ sdk: true, only: [] }));
 * ```
 */
export async function conformance(
  options: {
    sdk: boolean;
    sdk2?: boolean;
    reference?: boolean;
    only: readonly string[];
  },
): Promise<number> {
  const started = performance.now();
  const suite = await installSuite();
  const listed = await listScenarios(suite);
  // Named scenarios the 0.1.16 suite lacks (the extensions) run on the newer one.
  const newer = options.only.some((name) => !listed.includes(name))
    ? await installSuite(REQUIREMENTS_VERSION)
    : undefined;
  const newerListed = newer === undefined ? [] : await listScenarios(newer);
  const unknown = options.only.filter((name) =>
    !listed.includes(name) && !newerListed.includes(name)
  );
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario(s) ${unknown.join(", ")}; the suites have ${
        [...new Set([...listed, ...newerListed])].join(", ")
      }`,
    );
  }
  const scenarios = options.only.length > 0 ? [...options.only] : listed;
  const clients: ClientName[] = [
    "adapter",
    ...(options.sdk ? ["sdk" as const] : []),
    ...(options.sdk2 ? ["sdk2" as const] : []),
  ];
  log(
    `conformance ${
      newer === undefined
        ? CONFORMANCE_VERSION
        : `${CONFORMANCE_VERSION} and ${REQUIREMENTS_VERSION}`
    } on Node ${NODE_VERSION}: ${scenarios.length} client scenarios × ${
      clients.join(", ")
    }`,
  );
  const jobs = clients.flatMap((client) =>
    scenarios.flatMap((scenario) => {
      if (listed.includes(scenario)) return [{ client, scenario, suite }];
      // Only our driver implements the extension scenarios.
      return client === "adapter" ? [{ client, scenario, suite: newer! }] : [];
    })
  );
  const results = await runJobs(jobs);
  const code = report(scenarios, clients, results, performance.now() - started);
  if (options.only.length > 0) return code;
  let failed = code;
  for (const revision of REQUIREMENT_SETS) {
    const reference = options.reference ?? true;
    if (await requirements(revision, { reference }) !== 0) failed = 1;
  }
  if (await extensions() !== 0) failed = 1;
  return failed;
}

/**
 * Runs {@linkcode EXTENSION_SCENARIOS} of {@linkcode REQUIREMENTS_VERSION}
 * for our client and prints their table.
 *
 * @returns 1 when one of them failed.
 *
 * @example
 * ```ts ignore
 * import { extensions } from "./conformance.ts";
 *
 * Deno.exit(await extensions());
 * ```
 */
export async function extensions(): Promise<number> {
  const started = performance.now();
  const suite = await installSuite(REQUIREMENTS_VERSION);
  log(
    `\nconformance ${REQUIREMENTS_VERSION} extension scenarios on Node ${NODE_VERSION}: ${EXTENSION_SCENARIOS.length} × ours`,
  );
  const results = await runJobs(
    EXTENSION_SCENARIOS.map((scenario) => ({
      client: "adapter" as const,
      scenario,
      suite,
    })),
  );
  return report(
    EXTENSION_SCENARIOS,
    ["adapter"],
    results,
    performance.now() - started,
  );
}

/** One scenario for one client on one suite. */
interface Job {
  client: ClientName;
  scenario: string;
  suite: Suite;
}

/**
 * Runs the jobs ({@linkcode CONCURRENCY} at once, within the run deadline),
 * stopping every suite process on Ctrl-C and at the end.
 */
async function runJobs(jobs: readonly Job[]): Promise<ScenarioResult[]> {
  const running = new Set<Background>();
  const stopAll = () => Promise.all([...running].map((p) => p.stop()));
  const onSignal = () => void stopAll().finally(() => Deno.exit(130));
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    return await runAll(
      jobs.map(({ client, scenario, suite }) => () =>
        runScenario(suite, client, scenario, running)
      ),
      (index) => ({
        client: jobs[index]!.client,
        scenario: jobs[index]!.scenario,
        passed: false,
        problems: [`not run: the whole run passed ${RUN_TIMEOUT_MS} ms`],
        durationMs: 0,
      }),
    );
  } finally {
    await stopAll();
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
}

/** The deadline of one requirement-set run (every scenario of the set). */
const REQUIREMENTS_TIMEOUT_MS = 10 * 60_000;
/**
 * The deadline of the SDK v2's run of a set: informative, so it may not
 * stretch the run much; a set takes it about as long as ours.
 */
const REFERENCE_TIMEOUT_MS = 4 * 60_000;

/** How one client did on a requirement set. */
export interface RequirementRun {
  /** Scored scenario → passed; empty when the suite printed no summary. */
  scored: Map<string, boolean>;
  /** Why there is no score, when there is none. */
  problem?: string;
  /** How long the suite ran. */
  seconds: number;
}

/** Runs one requirement set against one client's driver; never throws for the suite's sake. */
async function runRequirementSet(
  revision: string,
  client: ClientName,
  timeoutMs: number,
): Promise<RequirementRun> {
  const started = performance.now();
  const suite = await installSuite(REQUIREMENTS_VERSION);
  const outDir = await Deno.makeTempDir({ prefix: "mcp-conformance-req-" });
  const process = startBackground(
    `conformance --requirements ${revision} (${client})`,
    suite.node,
    [
      suite.cli,
      "client",
      "--requirements",
      revision,
      "--command",
      driverCommand(client),
      "--timeout",
      "30000",
      "-o",
      outDir,
    ],
    // The summary comes last: a line per scenario, and the unscored ones.
    { cwd: outDir, env: { NO_COLOR: "1" }, tailLines: 400 },
  );
  let output: string[];
  let code: number | "timeout";
  try {
    code = await exitedWithin(process, timeoutMs);
    output = process.tail();
  } finally {
    await process.stop();
    await Deno.remove(outDir, { recursive: true }).catch(() => {});
  }
  const seconds = (performance.now() - started) / 1000;
  if (code === "timeout") {
    return {
      scored: new Map(),
      problem: `no result within ${timeoutMs} ms`,
      seconds,
    };
  }
  const scored = scoredScenarios(output);
  return scored.size > 0 ? { scored, seconds } : {
    scored,
    problem: `the suite printed no summary: ${output.slice(-5).join(" | ")}`,
    seconds,
  };
}

/**
 * Runs a frozen requirement set of {@linkcode REQUIREMENTS_VERSION}
 * (`conformance client --requirements <revision>`) against our client and,
 * unless `reference` is false, then against the SDK v2's client
 * (`conformance_sdk_v2_client.ts`), and prints one line per scored scenario
 * with both results, then each client's score. The SDK's score is
 * informative: it never fails the run.
 *
 * @param revision The set, e.g. `2026-07-28`.
 * @param options `reference`: also run the SDK v2's client (default true).
 * @returns 1 when a scored scenario of ours fails that is not in
 * {@linkcode EXPECTED_REQUIREMENT_FAILURES}, or the suite could not run ours.
 *
 * @example
 * ```ts ignore
 * import { requirements } from "./conformance.ts";
 *
 * Deno.exit(await requirements("2026-07-28"));
 * ```
 */
export async function requirements(
  revision: string,
  options: { reference?: boolean } = {},
): Promise<number> {
  const reference = options.reference ?? true;
  log(
    `\nconformance ${REQUIREMENTS_VERSION} --requirements ${revision} on Node ${NODE_VERSION}: ${
      reference ? "ours, then sdk v2" : "ours"
    }`,
  );
  const ours = await runRequirementSet(
    revision,
    "adapter",
    REQUIREMENTS_TIMEOUT_MS,
  );
  // Informative: whatever goes wrong with it is printed, never thrown.
  const sdk = reference
    ? await runRequirementSet(revision, "sdk2", REFERENCE_TIMEOUT_MS).catch(
      (error): RequirementRun => ({
        scored: new Map(),
        problem: error instanceof Error ? error.message : String(error),
        seconds: 0,
      }),
    )
    : undefined;
  const table = requirementTable(revision, ours, sdk);
  for (const line of table.lines) log(line);
  if (ours.problem !== undefined) {
    logError(`conformance --requirements ${revision}: ${ours.problem}`);
    return 1;
  }
  if (table.unexpected.length > 0) {
    logError(
      `conformance --requirements ${revision}: ${table.unexpected.length} scenario(s) expected to pass failed: ${
        table.unexpected.join(", ")
      }`,
    );
    return 1;
  }
  return 0;
}

/**
 * The lines {@linkcode requirements} prints for a set: a row per scored
 * scenario (ours, and the SDK v2's when it ran), then a score line per
 * client: `ours at <revision>: N/M scored scenarios pass (E expected
 * failures); took S s` and `sdk v2 at <revision>: N/M scored scenarios
 * pass; took S s (informative)`.
 *
 * @param revision The set.
 * @param ours Our run.
 * @param sdk The SDK v2's run, when there was one.
 * @returns The lines, and our unexpected failures.
 *
 * @example
 * ```ts
 * import { requirementTable } from "./conformance.ts";
 *
 * const { lines } = requirementTable(
 *   "2025-11-25",
 *   { scored: new Map([["tools_call", true]]), seconds: 9 },
 *   { scored: new Map([["tools_call", true]]), seconds: 8 },
 * );
 * ```
 */
export function requirementTable(
  revision: string,
  ours: RequirementRun,
  sdk?: RequirementRun,
  expected: Readonly<Record<string, string>> =
    EXPECTED_REQUIREMENT_FAILURES[revision] ?? {},
): { lines: string[]; unexpected: string[] } {
  const names = [
    ...new Set([...ours.scored.keys(), ...sdk?.scored.keys() ?? []]),
  ];
  const width = Math.max(8, ...names.map((s) => s.length)) + 2;
  const cell = (run: RequirementRun, name: string) => {
    const passed = run.scored.get(name);
    return pad(passed === undefined ? "-" : passed ? "pass" : "FAIL", 8);
  };
  const lines = [
    pad("scenario", width) + pad("ours", 8) +
    (sdk === undefined ? "" : pad("sdk v2", 8)) + "note",
  ];
  const unexpected: string[] = [];
  const stale: string[] = [];
  for (const name of names) {
    const passed = ours.scored.get(name);
    const reason = expected[name];
    let note = "";
    if (passed === false && reason === undefined) {
      unexpected.push(name);
      note = "UNEXPECTED FAILURE";
    } else if (passed === true && reason !== undefined) {
      stale.push(name);
      note = "passes now: remove it from EXPECTED_REQUIREMENT_FAILURES";
    } else if (reason !== undefined) note = `expected (${reason})`;
    lines.push(
      (pad(name, width) + cell(ours, name) +
        (sdk === undefined ? "" : cell(sdk, name)) + note).trimEnd(),
    );
  }
  const score = (run: RequirementRun) =>
    `${[...run.scored.values()].filter(Boolean).length}/${run.scored.size}`;
  lines.push(
    ours.problem === undefined
      ? `ours at ${revision}: ${score(ours)} scored scenarios pass (${
        Object.keys(expected).length
      } expected failures); took ${ours.seconds.toFixed(1)} s`
      : `ours at ${revision}: no score (${ours.problem})`,
  );
  if (sdk !== undefined) {
    lines.push(
      sdk.problem === undefined
        ? `sdk v2 at ${revision}: ${score(sdk)} scored scenarios pass; took ${
          sdk.seconds.toFixed(1)
        } s (informative)`
        : `sdk v2 at ${revision}: no score (${sdk.problem})`,
    );
  }
  if (stale.length > 0) {
    lines.push(
      `stale EXPECTED_REQUIREMENT_FAILURES entries: ${stale.join(", ")}`,
    );
  }
  return { lines, unexpected };
}

/**
 * The scored scenarios of a requirement-set run and whether each passed,
 * from the suite's summary: the `✓ name: …` / `✗ name: …` lines before
 * "Total:", less those it lists as not scored.
 */
export function scoredScenarios(
  lines: readonly string[],
): Map<string, boolean> {
  const scored = new Map<string, boolean>();
  const start = lines.findIndex((line) => line.includes("SUITE SUMMARY"));
  if (start === -1) return scored;
  let section: "summary" | "unscored" | "done" = "summary";
  const unscored = new Set<string>();
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("Total:")) section = "done";
    else if (line.startsWith("Not scored")) section = "unscored";
    const match = /^\s*([✓✗]) (\S+?):? /.exec(line + " ");
    if (match === null) continue;
    if (section === "summary") scored.set(match[2]!, match[1] === "✓");
    else if (section === "unscored") unscored.add(match[2]!);
  }
  for (const name of unscored) scored.delete(name);
  return scored;
}

function report(
  scenarios: readonly string[],
  clients: readonly ClientName[],
  results: readonly ScenarioResult[],
  elapsedMs: number,
): number {
  const of = (client: ClientName, scenario: string) =>
    results.find((r) => r.client === client && r.scenario === scenario);
  const width = Math.max(...scenarios.map((s) => s.length)) + 2;
  log("");
  log(
    pad("scenario", width) +
      clients.map((c) => pad(LABELS[c], 8)).join("") +
      "note",
  );
  const unexpected: string[] = [];
  const stale: string[] = [];
  for (const scenario of scenarios) {
    const ours = of("adapter", scenario);
    const expected = EXPECTED_FAILURES[scenario];
    let note = "";
    if (ours && !ours.passed && expected === undefined) {
      unexpected.push(scenario);
      note = "UNEXPECTED FAILURE";
    } else if (ours?.passed && expected !== undefined) {
      stale.push(scenario);
      note = "passes now: remove it from EXPECTED_FAILURES";
    } else if (expected !== undefined) note = `expected: ${expected}`;
    log(
      pad(scenario, width) +
        clients.map((c) => {
          const result = of(c, scenario);
          // "-": not run for that client (its driver lacks the scenario).
          return pad(
            result === undefined ? "-" : result.passed ? "pass" : "FAIL",
            8,
          );
        }).join("") +
        note,
    );
  }
  for (const result of results) {
    if (result.passed || result.problems.length === 0) continue;
    if (result.client === "adapter" && EXPECTED_FAILURES[result.scenario]) {
      continue;
    }
    log(`\n${result.scenario} (${result.client}):`);
    for (const problem of result.problems.slice(0, 8)) log(`  ${problem}`);
  }
  log("");
  for (const client of clients) {
    const mine = results.filter((r) => r.client === client);
    log(
      `${client === "sdk" ? "sdk " : LABELS[client]}: ${
        mine.filter((r) => r.passed).length
      }/${mine.length} scenarios pass`,
    );
  }
  log(`took ${(elapsedMs / 1000).toFixed(1)} s`);
  if (stale.length > 0) {
    log(`stale EXPECTED_FAILURES entries: ${stale.join(", ")}`);
  }
  if (unexpected.length > 0) {
    logError(
      `conformance: ${unexpected.length} scenario(s) expected to pass failed: ${
        unexpected.join(", ")
      }`,
    );
    return 1;
  }
  return 0;
}

if (import.meta.main) {
  const sdk = Deno.args.includes("--sdk");
  const oursOnly = Deno.args.includes("--ours-only");
  const revision = Deno.args.find((arg) => arg.startsWith("--requirements="))
    ?.slice("--requirements=".length);
  const only = Deno.args.filter((arg) =>
    arg !== "--sdk" && arg !== "--ours-only" &&
    !arg.startsWith("--requirements=")
  );
  await exitWith(
    "conformance",
    () =>
      revision === undefined
        ? conformance({
          sdk,
          sdk2: !oursOnly,
          reference: !oursOnly,
          only,
        })
        : requirements(revision, { reference: !oursOnly }),
  );
}

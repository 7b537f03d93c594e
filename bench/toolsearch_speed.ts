/**
 * The built-in ranker's speed beside the benchmark's baseline (MiniSearch
 * BM25), measured by the benchmark's own scorer: each run is a fresh Deno
 * process (`score.mjs --json`), so the index build and every search are
 * timed while the code is still being compiled, as a host's first searches
 * are. The rankers alternate run by run, so both see the same machine; the
 * medians, their ratios and the load average are printed.
 *
 * ```sh
 * cp -r /work/shared/toolsearch /tmp/ts && (cd /tmp/ts && npm install)
 * deno run -A bench/toolsearch_speed.ts --toolsearch /tmp/ts [--runs 7]
 * ```
 *
 * The baseline needs the benchmark's packages, hence the copy with
 * `npm install`. On a shared machine read the ratios, not the figures.
 *
 * @module
 */

import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { median } from "./_stats.ts";

/** What one scorer run measured. */
interface Run {
  buildMs: number;
  meanLatencyUs: number;
  p95LatencyUs: number;
}

async function score(toolsearch: string, ranker: string): Promise<Run> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${toolsearch}/score.mjs`,
      "--ranker",
      ranker,
      "--json",
    ],
    cwd: toolsearch,
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`score.mjs failed for ${ranker}`);
  const text = new TextDecoder().decode(output.stdout);
  return JSON.parse(text.slice(0, text.lastIndexOf("}") + 1));
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      toolsearch: { type: "string", default: "/tmp/ts" },
      runs: { type: "string", default: "7" },
    },
  });
  const rankers = {
    "built-in": fileURLToPath(
      new URL("./toolsearch_ranker.ts", import.meta.url),
    ),
    "baseline": `${values.toolsearch}/rankers/bm25.mjs`,
  };
  const runs: Record<string, Run[]> = { "built-in": [], "baseline": [] };
  const load = () => loadavg().map((value) => value.toFixed(1)).join(" / ");
  const before = load();
  for (let i = 0; i < Number(values.runs); i++) {
    for (const [name, ranker] of Object.entries(rankers)) {
      runs[name]!.push(await score(values.toolsearch, ranker));
    }
  }
  const after = load();
  const row = (name: string) => {
    const of = (key: keyof Run) => median(runs[name]!.map((run) => run[key]));
    return [of("buildMs"), of("meanLatencyUs"), of("p95LatencyUs")];
  };
  const ours = row("built-in");
  const theirs = row("baseline");
  // deno-lint-ignore no-console
  console.log(
    [
      `${values.runs} runs each, alternated; load average (1 / 5 / 15 min) ${before} before, ${after} after`,
      `ranker    | build ms | mean µs | p95 µs   (medians)`,
      `built-in  | ${ours.map((v) => v.toFixed(0)).join(" | ")}`,
      `baseline  | ${theirs.map((v) => v.toFixed(0)).join(" | ")}`,
      `ratio     | ${
        ours.map((v, i) => (v / theirs[i]!).toFixed(2)).join(" | ")
      }`,
      `all runs, built-in build/mean/p95: ${
        runs["built-in"]!.map((r) =>
          `${r.buildMs.toFixed(0)}/${r.meanLatencyUs.toFixed(0)}/${
            r.p95LatencyUs.toFixed(0)
          }`
        ).join(" ")
      }`,
      `all runs, baseline build/mean/p95: ${
        runs["baseline"]!.map((r) =>
          `${r.buildMs.toFixed(0)}/${r.meanLatencyUs.toFixed(0)}/${
            r.p95LatencyUs.toFixed(0)
          }`
        ).join(" ")
      }`,
    ].join("\n"),
  );
}

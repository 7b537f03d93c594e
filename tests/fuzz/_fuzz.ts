/**
 * The run of every property test: one seed per process, printed so a
 * failure replays (`FUZZ_SEED=<seed>`), and a time bound per property
 * (`FUZZ_TIME_MS`, default 3 s; `deno task fuzz` runs longer).
 *
 * @module
 */

import process from "node:process";
import fc from "fast-check";

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 3_000);

/**
 * The parameters of property `name`: the seed (printed), at most `numRuns`
 * runs, stopped when the time bound is reached.
 */
export function fuzzParameters(
  name: string,
  numRuns = 100_000,
): fc.Parameters<unknown> {
  // deno-lint-ignore no-console
  console.log(`${name}: seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
  return {
    seed: SEED,
    numRuns,
    plugins: [fc.interruptAfterTimeLimit(TIME_MS)],
  };
}

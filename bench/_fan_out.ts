/**
 * What the benchmarks with many calls in flight share: their numeric
 * options, the callers that keep the calls in flight, and the turns the
 * contenders take. Internal to the benchmarks.
 *
 * @module
 */

import process from "node:process";

/** One call; what it resolves with is checked in the caller's own await. */
export type Call = (i: number) => Promise<unknown>;

/**
 * The value of `--name=N` on the command line, a positive integer, or
 * `fallback`.
 *
 * @throws {Error} Naming `script` and the option, when it is not one.
 */
export function countOption(
  script: string,
  name: string,
  fallback: number,
): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = arg === undefined ? fallback : Number(arg.split("=")[1]);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${script}: --${name} must be a positive integer`);
  }
  return value;
}

/** Throws for an envelope of ours that is a failure. */
function check(outcome: unknown): void {
  const envelope = outcome as { success?: boolean; error?: unknown };
  if (envelope.success === false) {
    throw new Error(`adapter: ${envelope.error}`);
  }
}

/**
 * Makes `calls` calls from `concurrency` callers, each outcome checked in
 * the await that received it (an envelope of ours that failed throws).
 *
 * @returns The client CPU per call, in µs (user + system, all threads).
 */
export async function fanOut(
  call: Call,
  calls: number,
  concurrency = 64,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < calls) check(await call(next++));
  };
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const { user, system } = process.cpuUsage(cpu);
  return (user + system) / calls;
}

/**
 * Warms each contender up with `calls / 2` calls, then runs `rounds`
 * rounds in which each makes `calls` calls in turn, the first one rotating
 * from round to round.
 *
 * @returns Each contender's client CPU per call in µs, round by round.
 */
export async function takeTurns(
  contenders: readonly Call[],
  rounds: number,
  calls: number,
): Promise<number[][]> {
  for (const call of contenders) await fanOut(call, calls / 2);
  const costs = contenders.map((): number[] => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const index = (k + r) % contenders.length;
      costs[index]!.push(await fanOut(contenders[index]!, calls));
    }
  }
  return costs;
}

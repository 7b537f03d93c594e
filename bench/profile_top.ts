/**
 * Summarises a V8 CPU profile (`.cpuprofile`, as `client_bench.ts
 * --cpu-prof=FILE` or `node --cpu-prof` write it): the functions with the
 * most self time, the most inclusive time, and self time per file.
 *
 * Run it with `deno run -R bench/profile_top.ts FILE [--top=N]`.
 *
 * It also sums the self time by stage of a call ({@linkcode STAGES}: the
 * deadline, request bookkeeping, validation, the result envelope, framing,
 * the runtime's I/O, the garbage collector, the benchmark itself), which is
 * how `docs/performance.md` says where a call's CPU goes.
 *
 * Self time is the time of the samples whose top frame is the function;
 * inclusive time counts a sample once for every function on its stack.
 * Functions are keyed by name, file and line, so two closures of the same
 * source are one entry. `(garbage collector)`, `(program)` (native code
 * outside JS: the runtime, syscalls) and `(idle)` are V8's own entries.
 *
 * @module
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

// deno-lint-ignore no-console
const say = (line = "") => console.log(line);

/** A URL short enough to read: package-relative for dependencies, cwd-relative for ours. */
function shortUrl(url: string): string {
  if (url === "") return "";
  const cwd = `file://${Deno.cwd()}/`;
  if (url.startsWith(cwd)) return url.slice(cwd.length);
  const modules = url.lastIndexOf("/node_modules/");
  if (modules !== -1) return url.slice(modules + "/node_modules/".length);
  const registry = url.indexOf("/registry.npmjs.org/");
  if (registry !== -1) {
    return url.slice(registry + "/registry.npmjs.org/".length);
  }
  return url.replace(/^file:\/\//, "");
}

/**
 * The stages of a call, first match wins: a sample's top frame, as
 * `function  file` (see `keyOf`), against each pattern.
 */
export const STAGES: readonly (readonly [string, RegExp])[] = [
  ["benchmark harness", /\bbench\//],
  [
    "deadline and cancellation (timer, clock)",
    /^(#schedule|#release|#expire|#stopTimer|#cancel|now|op_now|op_timer\w*|setTimeout|clearTimeout|Timeout\S*|createTimer|insert|incRefCount|decRefCount|refTimer|unrefTimer|L_remove)\b|02_timers|timers\.(mjs|ts)|15_performance/,
  ],
  [
    "argument validation",
    /protocol\/(_validator|_fast_check|validation|_loosen|_sendable)\.ts/,
  ],
  [
    "request bookkeeping (id, progress token, envelope, pending map)",
    /protocol\/(session|connection)\.ts/,
  ],
  ["invoke() and the result envelope", /src\/adapter\.ts|telemetry\//],
  [
    "framing: JSON text and lines (stringify, parse, split)",
    /transports\/(stdio|_lines|_body|_client|_headers|streamable_http|sse)\.ts|transports\/_streamable\/|eventsource-parser|op_encoding_decode|08_text_encoding/,
  ],
  ["garbage collector", /^\(garbage collector\)/],
  ["runtime: pipes, sockets, fetch, streams, event loop", /./],
];

function stageOf(key: string): string {
  for (const [stage, pattern] of STAGES) {
    if (pattern.test(key)) return stage;
  }
  return "other";
}

function keyOf(frame: CallFrame): string {
  const name = frame.functionName || "(anonymous)";
  const url = shortUrl(frame.url);
  return url === "" ? name : `${name}  ${url}:${frame.lineNumber + 1}`;
}

function summarise(profile: Profile, top: number): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const perFile = new Map<string, number>();
  const { samples, timeDeltas } = profile;
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    // A sample lasts until the next one; the last gets the mean interval.
    const us = timeDeltas[i + 1] ?? (total / Math.max(1, i));
    total += us;
    const leaf = byId.get(samples[i]!)!;
    const key = keyOf(leaf.callFrame);
    self.set(key, (self.get(key) ?? 0) + us);
    const file = shortUrl(leaf.callFrame.url) || leaf.callFrame.functionName;
    perFile.set(file, (perFile.get(file) ?? 0) + us);
    const seen = new Set<string>();
    for (
      let id: number | undefined = leaf.id;
      id !== undefined;
      id = parent.get(id)
    ) {
      const frameKey = keyOf(byId.get(id)!.callFrame);
      if (seen.has(frameKey)) continue;
      seen.add(frameKey);
      inclusive.set(frameKey, (inclusive.get(frameKey) ?? 0) + us);
    }
  }
  const idle = self.get("(idle)") ?? 0;
  const busy = total - idle;
  say(
    `${samples.length} samples, ${(total / 1000).toFixed(0)} ms, of which ${
      (idle / 1000).toFixed(0)
    } ms idle; percentages are of the ${(busy / 1000).toFixed(0)} ms busy`,
  );
  const print = (title: string, entries: Map<string, number>) => {
    say();
    say(title);
    const sorted = [...entries].filter(([key]) => key !== "(idle)")
      .sort((a, b) => b[1] - a[1]).slice(0, top);
    for (const [key, us] of sorted) {
      say(
        `${(100 * us / busy).toFixed(1).padStart(5)}%  ${
          (us / 1000).toFixed(0).padStart(6)
        } ms  ${key}`,
      );
    }
  };
  print("self time, by function", self);
  print("self time, by file", perFile);
  const byStage = new Map<string, number>();
  for (const [key, us] of self) {
    if (key === "(idle)") continue;
    const stage = stageOf(key);
    byStage.set(stage, (byStage.get(stage) ?? 0) + us);
  }
  print("self time, by stage of a call", byStage);
  print(
    "inclusive time, by function",
    new Map([...inclusive].filter(([key]) => key !== "(root)")),
  );
}

if (import.meta.main) {
  const file = Deno.args.find((arg) => !arg.startsWith("--"));
  const topArg = Deno.args.find((arg) => arg.startsWith("--top="));
  if (file === undefined) {
    say("usage: deno run -R bench/profile_top.ts FILE.cpuprofile [--top=N]");
    Deno.exit(2);
  }
  const top = topArg === undefined ? 30 : Number(topArg.slice(6));
  summarise(JSON.parse(await Deno.readTextFile(file)) as Profile, top);
}

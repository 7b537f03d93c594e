/**
 * What the raw stdio client needs from a runtime's process API, implemented
 * by `_raw_stdio_deno.ts` and `_raw_stdio_node.ts`. Internal to the
 * benchmarks.
 *
 * @module
 */

/** What to start. `env` is the child's whole environment. */
export interface RawCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** A started child with piped stdin and stdout; stderr is inherited. */
export interface RawChild {
  readonly pid: number;
  /** Queues `text` for stdin; a failed write shows as the end of stdout. */
  write(text: string): void;
  closeStdin(): void;
  kill(): void;
  /** Resolves when the child has exited. */
  readonly exited: Promise<void>;
}

/** Starts a child; `onText` receives stdout as text, `onEnd` its end. */
export type RawSpawn = (
  command: RawCommand,
  onText: (text: string) => void,
  onEnd: () => void,
) => RawChild;

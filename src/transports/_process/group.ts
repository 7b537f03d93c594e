/**
 * Process-group control shared by both process backends: signalling a
 * child's group and the descendants that left it, and telling whether any
 * of them still runs (on Linux through `/proc`). Loaded only with a
 * backend. Internal: never exported.
 *
 * @module
 */

import type { ChildProcessGroup } from "./backend.ts";

/** Reads `/proc` for {@linkcode ProcessTree}; each method `undefined` when it cannot. */
export interface ProcReader {
  /** The entries of `/proc`. */
  entries(): string[] | undefined;
  /** The text of `/proc/<pid>/stat`. */
  stat(pid: string): string | undefined;
}

/** The fields of `/proc/<pid>/stat` after the command name, which may itself contain ") ". */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

const STATE = 0;
const PPID = 1;
const PGRP = 2;
const START_TIME = 19;

/**
 * Linux process facts read from `/proc`: which processes of a group are
 * alive, and which descend from a process. Used by both process backends.
 */
export class ProcessTree {
  readonly #proc: ProcReader;
  /** Descendants recorded by `record()`: pid → start time, which tells a reused pid apart. */
  readonly #recorded = new Map<number, string>();

  /** @param proc Reads `/proc`. */
  constructor(proc: ProcReader) {
    this.#proc = proc;
  }

  /**
   * Whether group `pgid` has a member that is not a zombie. Orphaned zombies
   * answer `kill(-pgid, 0)` until init reaps them, and the init of some
   * containers never does; without this check close() would wait out every
   * timeout for processes that are already dead. `true` when `/proc` cannot
   * be read.
   */
  groupHasLiveMember(pgid: number): boolean {
    const pids = this.#proc.entries();
    if (pids === undefined) return true;
    for (const pid of pids) {
      const fields = this.#fields(pid);
      if (fields && fields[STATE] !== "Z" && Number(fields[PGRP]) === pgid) {
        return true;
      }
    }
    return false;
  }

  /** Records every process that descends from `root` now. */
  record(root: number): void {
    const pids = this.#proc.entries();
    if (pids === undefined) return;
    const children = new Map<number, number[]>();
    const started = new Map<number, string>();
    for (const pid of pids) {
      const fields = this.#fields(pid);
      if (!fields || fields[STATE] === "Z") continue;
      const id = Number(pid);
      const parent = Number(fields[PPID]);
      started.set(id, fields[START_TIME] ?? "");
      const siblings = children.get(parent);
      if (siblings) siblings.push(id);
      else children.set(parent, [id]);
    }
    const stack = [...children.get(root) ?? []];
    while (stack.length > 0) {
      const pid = stack.pop()!;
      if (this.#recorded.has(pid)) continue;
      this.#recorded.set(pid, started.get(pid)!);
      stack.push(...children.get(pid) ?? []);
    }
  }

  /** The recorded descendants that still run (same pid, same start time, not a zombie). */
  liveRecorded(): number[] {
    const live: number[] = [];
    for (const [pid, startTime] of this.#recorded) {
      const fields = this.#fields(String(pid));
      if (fields && fields[STATE] !== "Z" && fields[START_TIME] === startTime) {
        live.push(pid);
      } else this.#recorded.delete(pid);
    }
    return live;
  }

  #fields(pid: string): string[] | undefined {
    const first = pid.charCodeAt(0);
    if (first < 48 || first > 57) return undefined; // not a pid
    const stat = this.#proc.stat(pid);
    return stat === undefined ? undefined : statFields(stat);
  }
}

/** The runtime's signal primitives, for {@linkcode ProcessGroup}. */
export interface SignalPrimitives {
  /** `kill(pid, signal)`; `0` probes. Throws when the target is gone (ESRCH) or not ours (EPERM). */
  signal(pid: number, signal: "SIGTERM" | "SIGKILL" | 0): void;
  /** Signals the direct child through the runtime's child object; never throws. */
  signalChild(signal: "SIGTERM" | "SIGKILL"): void;
  /** The platform, as `process.platform`/`Deno.build.os` name it. */
  platform: string;
  /** Reads `/proc` (Linux). */
  proc: ProcReader;
  /**
   * Windows: stops `pid` and every descendant (`taskkill /PID pid /T /F`,
   * see `treeKillPlan()` in `windows.ts`), falling back on `signalChild`
   * when that fails. Never throws.
   */
  killTree?: (pid: number) => void;
}

/**
 * The part of a child's control both backends share: signalling its
 * process group and recorded descendants, and telling whether any of them
 * still runs.
 */
export class ProcessGroup implements ChildProcessGroup {
  readonly #pid: number;
  readonly #primitives: SignalPrimitives;
  readonly #tree: ProcessTree | undefined;
  #exited = false;

  /**
   * @param pid The child, leader of its own process group.
   * @param primitives The runtime's signal and `/proc` primitives.
   * @param exited Resolves when the direct child exits.
   */
  constructor(
    pid: number,
    primitives: SignalPrimitives,
    exited: Promise<unknown>,
  ) {
    this.#pid = pid;
    this.#primitives = primitives;
    this.#tree = primitives.platform === "linux"
      ? new ProcessTree(primitives.proc)
      : undefined;
    exited.then(() => this.#exited = true, () => this.#exited = true);
  }

  get #windows(): boolean {
    return this.#primitives.platform === "windows";
  }

  /** See `ChildProcessGroup.recordDescendants()` in `backend.ts`. */
  recordDescendants(): void {
    this.#tree?.record(this.#pid);
  }

  /** See `ChildProcessGroup.kill()` in `backend.ts`. */
  kill(signal: "SIGTERM" | "SIGKILL"): void {
    const { signal: send, signalChild, killTree } = this.#primitives;
    if (this.#windows) {
      // No process groups: the tree is walked by parent id, which works only
      // while the child is alive; once it has exited, taskkill finds nothing.
      if (killTree !== undefined && !this.#exited) killTree(this.#pid);
      else signalChild(signal);
      return;
    }
    let grouped = false;
    try {
      send(-this.#pid, signal);
      grouped = true;
    } catch {
      // ESRCH (group gone) or EPERM: try the direct child below.
    }
    if (!grouped) signalChild(signal);
    for (const pid of this.#tree?.liveRecorded() ?? []) {
      try {
        send(pid, signal);
      } catch {
        // Exited meanwhile.
      }
    }
  }

  /** See `ChildProcessGroup.alive()` in `backend.ts`. */
  alive(): boolean {
    if (this.#windows) return !this.#exited;
    const tree = this.#tree;
    if ((tree?.liveRecorded().length ?? 0) > 0) return true;
    try {
      this.#primitives.signal(-this.#pid, 0);
    } catch {
      return false;
    }
    return tree === undefined || tree.groupHasLiveMember(this.#pid);
  }
}

/**
 * Worker processes for the fleet tests: a fixture script run by this
 * runtime with one JSON job as its argument, read line by line, written to
 * on stdin, and SIGKILLed after each test if still running. Runtime-neutral.
 *
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import { afterEach } from "node:test";
import { fixturePath, runtimeCommand } from "./_helpers.ts";

/** A worker process, read line by line. */
export interface Worker {
  child: ChildProcess;
  /** The first line (from now or before) that starts with `prefix`. */
  line(prefix: string): Promise<string>;
  /** Resolves with the first `count` lines that start with `prefix`, once there are that many. */
  lines(prefix: string, count: number): Promise<string[]>;
  /** Every line it printed so far. */
  printed(): readonly string[];
  /** Writes `text` and a newline to its stdin. */
  send(text: string): void;
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (`null` when a signal ended it). */
  exited: Promise<number | null>;
}

/**
 * Starts workers of the fixture `name` (`tests/fixtures/<name>.ts`, `.js`
 * when transpiled); registers an `afterEach` that kills the ones left.
 *
 * @param name The fixture's name without extension.
 * @returns What starts one worker with a job.
 */
export function workerPool(
  name: string,
): (job: Record<string, unknown>) => Worker {
  const script = runtimeCommand(
    fixturePath(`${name}${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`),
  );
  const running = new Set<ChildProcess>();
  afterEach(async () => {
    await Promise.all([...running].map((child) => {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      return gone;
    }));
  });
  return (job) => {
    const child = spawn(
      script.command,
      [...script.args, JSON.stringify(job)],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    running.add(child);
    const printed: string[] = [];
    const waiting: (() => void)[] = [];
    let stderr = "";
    let partial = "";
    const wake = () => {
      for (const look of waiting.splice(0)) look();
    };
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop()!;
      printed.push(...parts);
      wake();
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk) => stderr += chunk);
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code) => {
        running.delete(child);
        resolve(code);
        wake();
      })
    );
    const lines = (prefix: string, count: number) =>
      new Promise<string[]>((resolve, reject) => {
        const look = () => {
          const found = printed.filter((line) => line.startsWith(prefix));
          if (found.length >= count) return resolve(found.slice(0, count));
          if (child.exitCode !== null || child.signalCode !== null) {
            return reject(
              new Error(
                `worker ${child.pid} exited before ${count} "${prefix}" lines; it printed:\n${
                  printed.join("\n")
                }\nstderr:\n${stderr}`,
              ),
            );
          }
          waiting.push(look);
        };
        look();
      });
    return {
      child,
      exited,
      lines,
      line: async (prefix) => (await lines(prefix, 1))[0]!,
      printed: () => printed,
      send: (text) => void child.stdin!.write(`${text}\n`),
      stderr: () => stderr,
    };
  };
}

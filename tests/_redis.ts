/**
 * A real redis-server for tests: Debian's `redis-server` (installed by
 * `.ci/run`), started on a unix socket in a fresh temporary folder (no TCP
 * port, so nothing to pick or leak), without persistence; ready once it
 * logs that it accepts connections. `stop()` kills it and removes the
 * folder. Runtime-neutral (node: APIs only).
 *
 * @module
 */

import { spawn } from "node:child_process";
import { after, before } from "node:test";
import { createClient } from "redis";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A running redis-server. */
export interface RedisTestServer {
  /** Its unix socket. */
  socket: string;
  /** Kills it and removes its folder. */
  stop(): Promise<void>;
}

const READY = /ready to accept connections/i;

/**
 * Starts a redis-server; fails with what to install when there is none.
 *
 * @param timeoutMs How long it may take to get ready.
 */
export async function startRedisServer(
  timeoutMs = 15_000,
): Promise<RedisTestServer> {
  const dir = await mkdtemp(join(tmpdir(), "mcp-adapter-redis-"));
  const socket = join(dir, "redis.sock");
  const child = spawn("redis-server", [
    "--port",
    "0",
    "--unixsocket",
    socket,
    "--unixsocketperm",
    "700",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
  ], { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null) {
      child.kill("SIGKILL");
    }
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  let log = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `redis-server was not ready within ${timeoutMs} ms:\n${log}`,
            ),
          ),
        timeoutMs,
      );
      const settle = (error?: Error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        log += chunk;
        if (READY.test(log)) settle();
      });
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        log += chunk;
      });
      child.once("error", (error: Error & { code?: string }) =>
        settle(
          error.code === "ENOENT"
            ? new Error(
              "redis-server is not installed; the Redis token store tests need it: apt-get install -y redis-server (.ci/run installs it)",
            )
            : error,
        ));
      child.once(
        "exit",
        (code) =>
          settle(
            new Error(`redis-server exited (${code}) before ready:\n${log}`),
          ),
      );
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { socket, stop };
}

/** A connected node-redis client of a {@linkcode RedisTestServer}. */
export type RedisTestClient = Awaited<ReturnType<typeof connectRedis>>;

/** Connects a node-redis client to the server's unix socket. */
export function connectRedis(socket: string) {
  return createClient({ socket: { path: socket, tls: false } }).connect();
}

/**
 * A redis-server and a client for the tests of one `describe`: started by
 * a `before`, stopped by an `after` that this registers.
 *
 * @returns Getters of the server and the client (valid inside the tests).
 */
export function redisForTests(): {
  server(): RedisTestServer;
  client(): RedisTestClient;
} {
  let server: RedisTestServer | undefined;
  let client: RedisTestClient | undefined;
  before(async () => {
    server = await startRedisServer();
    client = await connectRedis(server.socket);
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });
  return { server: () => server!, client: () => client! };
}

/**
 * The rotation race, with real processes: 8 workers (tests/fixtures/
 * token_worker.ts, `fleet` mode) share one token store (a redis-server of
 * tests/_redis.ts, or a file) and one expired access token, and call a
 * tool of a protected MCP server in rounds; its authorization server
 * rotates refresh tokens and revokes the whole family when one is used
 * twice. Required: every call succeeds, no worker ever needs a login,
 * exactly one refresh grant per generation, and the store ends with the
 * newest generation, also when the refreshing worker's event loop stalls
 * past its lock's lease in the middle of its refresh (a blocking read of a
 * FIFO, released by the test once another worker has found the refresh in
 * flight). And the case that cannot be saved, the refreshing worker killed
 * after the server rotated, ends in one needed login, not a storm.
 *
 * Loopback only; every wait is for an event (a line a worker prints, a
 * request the server sees), never for time.
 */
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { ServerResponse } from "node:http";
import {
  FileTokenStore,
  type OAuthTokenStore,
  RedisTokenStore,
} from "@cleveragents/mcp-adapter/auth";
import { redisForTests } from "../_redis.ts";
import {
  type HostileOAuthServer,
  loginAt,
  startHostileOAuthServer,
} from "../_hostile_oauth.ts";
import { type Worker, workerPool } from "../_worker.ts";

const TEST_TIMEOUT_MS = 240_000;
const WORKERS = 8;
const ROUNDS = 4;
const CALLS_PER_ROUND = 2;
const LEASE_MS = 1_000;

const startWorker = workerPool("token_worker");
const linux = process.platform === "linux";

/** The refresh-token grants the authorization server was asked for, in order. */
function refreshes(server: HostileOAuthServer) {
  return server.events.flatMap((event) =>
    event.kind === "token" && event.params.grant_type === "refresh_token"
      ? [event]
      : []
  );
}

/** Every worker's `call …` lines of the first `rounds` rounds. */
async function callLines(fleet: Worker[], rounds: number): Promise<string[]> {
  const all = await Promise.all(
    fleet.map((worker) => worker.lines("call ", rounds * CALLS_PER_ROUND)),
  );
  return all.flat();
}

/** Sends round `round` (1-based) to every worker and waits until each has done it. */
async function round(fleet: Worker[], round: number): Promise<void> {
  for (const worker of fleet) worker.send(`go ${CALLS_PER_ROUND}`);
  await Promise.all(fleet.map((worker) => worker.lines("round-done", round)));
}

describe("the rotation race: 8 worker processes, one rotating refresh token", {
  skip: !linux && "needs redis-server and a FIFO (Linux)",
}, () => {
  const redis = redisForTests();
  let dir: string;
  let prefix: string;
  let server: HostileOAuthServer | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-adapter-race-"));
    prefix = `race-${crypto.randomUUID()}:`;
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  function storeOf(kind: "file" | "redis"): OAuthTokenStore {
    return kind === "file"
      ? new FileTokenStore(join(dir, "oauth.json"))
      : new RedisTokenStore(redis.client(), { prefix });
  }

  function where(kind: "file" | "redis"): Record<string, unknown> {
    return kind === "file"
      ? { store: "file", path: join(dir, "oauth.json") }
      : { store: "redis", socket: redis.server().socket, prefix };
  }

  /**
   * The protected server, reuse detection on. With `stall`, the answer to
   * the first refresh carries `x-test-stall`, which makes the worker that
   * gets it block its loop; `onRefresh` sees each refresh request.
   */
  async function startServer(
    options: { stall?: boolean; onRefresh?: () => void } = {},
  ): Promise<HostileOAuthServer> {
    let first = true;
    server = await startHostileOAuthServer({
      server: { revokeFamilyOnReuse: true },
      token: (_req, res, body) => {
        const grant = new URLSearchParams(String(body)).get("grant_type");
        if (grant !== "refresh_token") return false;
        options.onRefresh?.();
        if (options.stall && first) {
          first = false;
          markStall(res);
        }
        return false; // the honest server answers (and rotates)
      },
    });
    return server;
  }

  for (
    const [kind, stall] of [
      ["redis", true],
      ["redis", false],
      ["file", false],
    ] as const
  ) {
    it(
      `${kind} store${
        stall
          ? ", the refreshing worker stalled past its lease mid-refresh"
          : ""
      }: every call succeeds, one refresh grant per generation`,
      { timeout: TEST_TIMEOUT_MS },
      async () => {
        let secondRefresh!: () => void;
        const resent = new Promise<void>((resolve) => secondRefresh = resolve);
        let requests = 0;
        const server = await startServer({
          stall,
          onRefresh: () => {
            if (++requests === 2) secondRefresh();
          },
        });
        const store = storeOf(kind);
        await store.set(server.url, await loginAt(server));
        server.expireAccessTokens(); // the one access token has expired
        const fifo = join(dir, "stall.fifo");
        if (stall) execFileSync("mkfifo", [fifo]);
        const fleet = Array.from(
          { length: WORKERS },
          () =>
            startWorker({
              ...where(kind),
              mode: "fleet",
              serverUrl: server.url,
              leaseMs: LEASE_MS,
              ...(stall ? { stallFifo: fifo } : {}),
            }),
        );
        await Promise.all(fleet.map((worker) => worker.line("ready")));

        for (const worker of fleet) worker.send(`go ${CALLS_PER_ROUND}`);
        if (stall) {
          // One worker got the rotated tokens and stalled before writing
          // them. Its lease lapses; another takes the lock over and must
          // find the refresh in flight (or, without the generation check,
          // sends the same refresh token again).
          const stalled = await Promise.race(
            fleet.map((worker) => worker.line("stalled").then(() => worker)),
          );
          await Promise.race([
            resent,
            ...fleet.filter((worker) => worker !== stalled).map((worker) =>
              worker.line("refresh waiting 0")
            ),
          ]);
          await writeFile(fifo, "go\n"); // the stalled loop runs again
          await stalled.line("resumed");
        }
        await Promise.all(fleet.map((worker) => worker.lines("round-done", 1)));
        for (let next = 2; next <= ROUNDS; next++) {
          server.expireAccessTokens();
          await round(fleet, next);
        }
        for (const worker of fleet) worker.send("end");
        assert.deepEqual(
          await Promise.all(fleet.map((worker) => worker.exited)),
          fleet.map(() => 0),
        );

        const calls = await callLines(fleet, ROUNDS);
        assert.deepEqual(
          calls.filter((line) => line !== "call ok"),
          [],
          "every call succeeds; none needs a login",
        );
        assert.equal(calls.length, WORKERS * ROUNDS * CALLS_PER_ROUND);
        const grants = refreshes(server);
        assert.deepEqual(
          grants.map((grant) => grant.error ?? "ok"),
          Array(ROUNDS).fill("ok"),
          "exactly one refresh grant per generation, none refused",
        );
        assert.equal(
          new Set(grants.map((grant) => grant.params.refresh_token)).size,
          ROUNDS,
          "no refresh token sent twice",
        );
        if (stall) {
          assert.ok(
            fleet.some((worker) =>
              worker.printed().includes("refresh waiting 0")
            ),
            "a worker found the stalled one's refresh in flight and waited",
          );
        }
        const stored = await store.get(server.url);
        assert.equal(stored?.generation, ROUNDS);
        assert.equal(stored?.refreshing, undefined);
        assert.equal(stored?.tokens?.access_token, grants.at(-1)!.accessToken);
        assert.ok(
          server.familyOf(stored!.tokens!.refresh_token!),
          "the stored refresh token is the family's live one",
        );
      },
    );
  }

  it(
    "redis store, the refreshing worker killed after the server rotated: one login needed, not a storm",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const server = await startServer({ stall: true });
      const store = storeOf("redis");
      const login = await loginAt(server);
      await store.set(server.url, login);
      server.expireAccessTokens();
      const fifo = join(dir, "stall.fifo");
      execFileSync("mkfifo", [fifo]);
      const fleet = Array.from(
        { length: WORKERS },
        () =>
          startWorker({
            ...where("redis"),
            mode: "fleet",
            serverUrl: server.url,
            leaseMs: LEASE_MS,
            // The bound for a refresh in flight elsewhere, short for the
            // test, yet far longer than the one takeover's refresh takes.
            refreshTimeoutMs: 5_000,
            stallFifo: fifo,
          }),
      );
      await Promise.all(fleet.map((worker) => worker.line("ready")));
      for (const worker of fleet) worker.send(`go ${CALLS_PER_ROUND}`);
      const killed = await Promise.race(
        fleet.map((worker) => worker.line("stalled").then(() => worker)),
      );
      // Its new tokens die with it.
      killed.child.kill("SIGKILL");
      await killed.exited;
      const rest = fleet.filter((worker) => worker !== killed);
      await Promise.all(rest.map((worker) => worker.lines("round-done", 1)));

      const calls = await callLines(rest, 1);
      assert.deepEqual(
        [...new Set(calls)],
        ["call auth-required"],
        "every worker reports a needed login (not a failure)",
      );
      const grants = refreshes(server);
      assert.equal(
        grants.length,
        2,
        "the killed worker's refresh and one takeover; no storm",
      );
      assert.equal(grants[1]!.reused, true);
      for (const worker of rest) worker.send("end");
      await Promise.all(rest.map((worker) => worker.exited));
      const steps = rest.flatMap((worker) =>
        worker.printed().filter((line) => line.startsWith("refresh "))
      );
      assert.deepEqual(
        steps.filter((line) => !line.startsWith("refresh waiting")).sort(),
        ["refresh cleared 1", "refresh refreshing 0", "refresh taking-over 0"],
        "one worker took the refresh over and, refused, cleared the tokens",
      );
      const stored = await store.get(server.url);
      assert.equal(
        stored?.tokens,
        undefined,
        "cleared by the takeover's owner",
      );
      assert.deepEqual(stored?.client, login.client, "the client is kept");

      // One login restores the fleet.
      const again = await loginAt(server);
      await store.set(server.url, {
        ...again,
        generation: (stored?.generation ?? 0) + 1,
      });
      const fresh = Array.from(
        { length: 2 },
        () =>
          startWorker({
            ...where("redis"),
            mode: "fleet",
            serverUrl: server.url,
          }),
      );
      await Promise.all(fresh.map((worker) => worker.line("ready")));
      await round(fresh, 1);
      assert.deepEqual(
        [...new Set(await callLines(fresh, 1))],
        ["call ok"],
      );
      for (const worker of fresh) worker.send("end");
      await Promise.all(fresh.map((worker) => worker.exited));
    },
  );
});

/** Adds `x-test-stall` to the response about to be sent. */
function markStall(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res);
  res.writeHead =
    ((status: number, headers?: Record<string, string>) =>
      writeHead(status, {
        ...headers,
        "x-test-stall": "1",
      })) as typeof res.writeHead;
}

/**
 * The OAuth token stores, file and Redis, against the real thing: the file
 * store in a temporary folder, the Redis store in a redis-server this file
 * starts (tests/_redis.ts). Each store keeps logins per server URL, and its
 * lock excludes other holders (other store instances, other processes),
 * survives its lease while renewed, and is taken over once a killed
 * holder's lease runs out. The provider refreshes under that lock: two
 * worker processes (tests/fixtures/token_worker.ts) refreshing a rotating
 * refresh token at once make one refresh and both end with its token.
 */
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createClient } from "redis";
import { redisKeyName } from "@cleveragents/mcp-adapter/auth";
import { MCPTimeoutError } from "@cleveragents/mcp-adapter";
import {
  FileTokenStore,
  type LockTiming,
  type OAuthTokenStore,
  RedisTokenStore,
  type StoredTokens,
  tokenStoreAuth,
} from "../../cli.ts";
import type { StoredOAuthProvider } from "../../src/auth/token_store.ts";
import { workerPool } from "../_worker.ts";
import { type RedisTestServer, startRedisServer } from "../_redis.ts";
import { loginAt, startHostileOAuthServer } from "../_hostile_oauth.ts";

const TEST_TIMEOUT_MS = 60_000;
const SERVER_URL = "https://mcp.example.com/mcp";

type Kind = "file" | "redis";
function connectRedis(socket: string) {
  return createClient({ socket: { path: socket, tls: false } }).connect();
}
type Redis = Awaited<ReturnType<typeof connectRedis>>;

function providerOver(store: OAuthTokenStore): StoredOAuthProvider {
  return tokenStoreAuth(store)({
    config: { name: "notes", transport: "streamable-http", url: SERVER_URL },
    namespace: "notes",
    enabled: true,
    auth: { type: "oauth" },
  }) as unknown as StoredOAuthProvider;
}

const startWorker = workerPool("token_worker");

/**
 * A token endpoint whose refresh tokens work once (rotation): each use of
 * a valid one issues `access-N`/`refresh-N`, answered once `gate` opens.
 */
async function tokenEndpoint(gate: Promise<void>): Promise<{
  url: string;
  requests: () => number;
  close: () => Promise<void>;
}> {
  const valid = new Set(["refresh-0"]);
  let requests = 0;
  let issued = 0;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk) => body += chunk);
    req.on("end", async () => {
      requests++;
      const token = new URLSearchParams(body).get("refresh_token") ?? "";
      if (!valid.delete(token)) {
        res.writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "invalid_grant" }));
        return;
      }
      const n = ++issued;
      valid.add(`refresh-${n}`);
      await gate;
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          access_token: `access-${n}`,
          refresh_token: `refresh-${n}`,
          token_type: "Bearer",
        }),
      );
    });
  });
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve())
  );
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/token`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe("OAuth token stores", () => {
  let redisServer: RedisTestServer;
  let redis: Redis;

  before(async () => {
    redisServer = await startRedisServer();
    redis = await connectRedis(redisServer.socket);
  });

  after(async () => {
    await redis?.close();
    await redisServer?.stop();
  });

  for (const kind of ["file", "redis"] as const) {
    describe(`${kind} store`, () => {
      let dir: string;
      let prefix: string;

      beforeEach(async () => {
        dir = await mkdtemp(join(tmpdir(), "mcp-adapter-tokens-"));
        prefix = `test-${crypto.randomUUID()}:`;
      });

      afterEach(async () => {
        await rm(dir, { recursive: true, force: true });
      });

      function open(timing: LockTiming = {}): OAuthTokenStore {
        return kind === "file"
          ? new FileTokenStore(join(dir, "oauth.json"), timing)
          : new RedisTokenStore(redis, { ...timing, prefix });
      }

      /** Where a worker process finds the same store. */
      function where(): Record<string, unknown> {
        return kind === "file"
          ? { store: "file", path: join(dir, "oauth.json") }
          : { store: "redis", socket: redisServer.socket, prefix };
      }

      it("keeps, replaces and forgets a login per server URL", async () => {
        const store = open();
        const other = "https://other.example.com/mcp";
        assert.equal(await store.get(SERVER_URL), undefined);
        await store.set(SERVER_URL, { tokens: { access_token: "a" } });
        await store.set(other, { client: { client_id: "c" } });
        await store.set(SERVER_URL, { tokens: { access_token: "b" } });
        assert.deepEqual(await open().get(SERVER_URL), {
          tokens: { access_token: "b" },
        });
        await store.delete(SERVER_URL);
        await store.delete(SERVER_URL);
        assert.equal(await store.get(SERVER_URL), undefined);
        assert.deepEqual(await store.get(other), {
          client: { client_id: "c" },
        });
      });

      it("withLock() lets one holder in at a time, across store instances", async () => {
        const [a, b] = [open(), open()];
        const events: string[] = [];
        let entered!: () => void;
        let leave!: () => void;
        const inside = new Promise<void>((resolve) => entered = resolve);
        const gate = new Promise<void>((resolve) => leave = resolve);
        const first = a.withLock(SERVER_URL, async () => {
          events.push("a in");
          entered();
          await gate;
          events.push("a out");
        });
        await inside;
        const second = b.withLock(SERVER_URL, () => {
          events.push("b in");
          return Promise.resolve("b");
        });
        // Store round trips, so b tries (and fails) to take the lock.
        for (let i = 0; i < 5; i++) await b.get(SERVER_URL);
        leave();
        await first;
        assert.equal(await second, "b");
        assert.deepEqual(events, ["a in", "a out", "b in"]);
      });

      it(
        "a holder keeps the lock past its lease by renewing it; a waiter gives up with MCPTimeoutError",
        {
          timeout: TEST_TIMEOUT_MS,
        },
        async () => {
          const a = open({ leaseMs: 900 });
          const b = open({ leaseMs: 900, waitTimeoutMs: 2_500 });
          await a.withLock(SERVER_URL, async () => {
            await assert.rejects(
              b.withLock(SERVER_URL, () => assert.fail("b got a held lock")),
              (error) => {
                assert.ok(error instanceof MCPTimeoutError);
                assert.match(error.message, /stayed taken for 2500 ms/);
                assert.match(error.message, /mcp\.example\.com/);
                return true;
              },
            );
          });
          assert.equal(
            await b.withLock(SERVER_URL, () => Promise.resolve(1)),
            1,
          );
        },
      );

      it("a killed holder's lock is taken over once its lease runs out", {
        timeout: TEST_TIMEOUT_MS,
      }, async () => {
        const holder = startWorker({
          ...where(),
          mode: "hold",
          serverUrl: SERVER_URL,
          leaseMs: 500,
        });
        await holder.line("locked");
        holder.child.kill("SIGKILL");
        await holder.exited;
        const store = open({ leaseMs: 500, waitTimeoutMs: 20_000 });
        assert.equal(
          await store.withLock(SERVER_URL, () => Promise.resolve("taken")),
          "taken",
        );
        if (kind === "file") {
          assert.deepEqual(await readdir(dir), []); // stale lock cleared, ours deleted
        }
      });

      it("refreshExclusive() uses the tokens another holder saved instead of refreshing", async () => {
        const store = open();
        const provider = providerOver(store);
        const newer = { access_token: "access-1", refresh_token: "refresh-1" };
        await store.set(SERVER_URL, { tokens: newer });
        let refreshes = 0;
        const tokens = await provider.refreshExclusive(() => {
          refreshes++;
          return Promise.resolve({ access_token: "never" });
        }, { stale: { access_token: "access-0", refresh_token: "refresh-0" } });
        assert.deepEqual(tokens, newer);
        assert.equal(refreshes, 0);
      });

      it("refreshExclusive() saves what refresh returns, or what refresh saved through the provider", async () => {
        const store = open();
        const provider = providerOver(store);
        await store.set(SERVER_URL, {
          client: { client_id: "c" },
          tokens: { access_token: "access-0", refresh_token: "refresh-0" },
        });
        const seen: (StoredTokens | undefined)[] = [];
        const first = await provider.refreshExclusive((current) => {
          seen.push(current);
          return Promise.resolve({
            access_token: "access-1",
            refresh_token: "refresh-1",
          });
        });
        assert.deepEqual(first, {
          access_token: "access-1",
          refresh_token: "refresh-1",
        });
        // Like the SDK's auth(): saves through the provider, returns nothing.
        const second = await provider.refreshExclusive(async (current) => {
          seen.push(current);
          await provider.saveTokens({ access_token: "access-2" });
        });
        assert.deepEqual(second, { access_token: "access-2" });
        assert.deepEqual(seen.map((tokens) => tokens?.access_token), [
          "access-0",
          "access-1",
        ]);
        // Each refresh wrote the next generation.
        assert.deepEqual(await store.get(SERVER_URL), {
          client: { client_id: "c" },
          tokens: { access_token: "access-2" },
          generation: 2,
        });
      });

      it("a failed refresh rejects with its error and releases the lock", async () => {
        const store = open();
        const provider = providerOver(store);
        await store.set(SERVER_URL, { tokens: { access_token: "access-0" } });
        const failure = new Error("invalid_grant");
        await assert.rejects(
          provider.refreshExclusive(() => Promise.reject(failure)),
          (error) => error === failure,
        );
        const other = open({ waitTimeoutMs: 2_000 });
        assert.equal(
          await other.withLock(SERVER_URL, () => Promise.resolve(1)),
          1,
        );
        assert.deepEqual(await store.get(SERVER_URL), {
          tokens: { access_token: "access-0" },
        });
      });

      it(
        "two processes refreshing at once: one refresh, both get the new token",
        {
          timeout: TEST_TIMEOUT_MS,
        },
        async () => {
          await open().set(SERVER_URL, {
            client: { client_id: "c" },
            tokens: { access_token: "access-0", refresh_token: "refresh-0" },
          });
          let answer!: () => void;
          const gate = new Promise<void>((resolve) => answer = resolve);
          const endpoint = await tokenEndpoint(gate);
          try {
            const job = {
              ...where(),
              mode: "refresh",
              serverUrl: SERVER_URL,
              tokenUrl: endpoint.url,
            };
            const pair = [startWorker(job), startWorker(job)];
            // Both have read the tokens before either refreshes.
            await Promise.all(pair.map((one) => one.line("ready")));
            for (const one of pair) one.send("go");
            // The first refresh is answered only once both are refreshing.
            await Promise.all(pair.map((one) => one.line("refreshing")));
            answer();
            const done = await Promise.all(
              pair.map((one) => one.line("done ")),
            );
            assert.deepEqual(done, ["done access-1", "done access-1"]);
            assert.deepEqual(await Promise.all(pair.map((one) => one.exited)), [
              0,
              0,
            ]);
            assert.equal(endpoint.requests(), 1);
            assert.deepEqual(await open().get(SERVER_URL), {
              client: { client_id: "c" },
              tokens: {
                access_token: "access-1",
                refresh_token: "refresh-1",
                token_type: "Bearer",
              },
              generation: 1,
            });
          } finally {
            answer();
            await endpoint.close();
          }
        },
      );

      it(
        "two workers whose stored access token is refused: through the OAuth flow, one refresh, both call the tool",
        { timeout: TEST_TIMEOUT_MS },
        async () => {
          // Both workers' requests are refused before the one refresh is answered.
          let refusals = 0;
          let bothRefused!: () => void;
          const refused = new Promise<void>((resolve) => bothRefused = resolve);
          const server = await startHostileOAuthServer({
            refused: () => {
              if (++refusals === 2) bothRefused();
            },
            token: async (_req, _res, body) => {
              const grant = new URLSearchParams(String(body)).get("grant_type");
              if (grant === "refresh_token") await refused;
              return false;
            },
          });
          try {
            // A login, as `mcp-adapter login` leaves it; then the access
            // token stops working (expired, say).
            const { client, tokens } = await loginAt(server);
            await open().set(server.url, {
              client,
              tokens: { ...tokens, access_token: "no-longer-valid" },
            });
            const job = { ...where(), mode: "invoke", serverUrl: server.url };
            const pair = [startWorker(job), startWorker(job)];
            await Promise.all(pair.map((one) => one.line("ready")));
            for (const one of pair) one.send("go");
            const done = await Promise.all(
              pair.map((one) => one.line("done ")),
            );
            const stored = (await open().get(server.url))?.tokens;
            assert.notEqual(stored?.access_token, "no-longer-valid");
            assert.deepEqual(done, [
              `done true ${stored!.access_token}`,
              `done true ${stored!.access_token}`,
            ]);
            const refreshes = server.events.filter((event) =>
              event.kind === "token" &&
              event.params.grant_type === "refresh_token"
            );
            assert.equal(refreshes.length, 1, "one refresh for the fleet");
          } finally {
            bothRefused();
            await server.close();
          }
        },
      );
    });
  }

  it("file store: concurrent writers of different servers keep every entry, in a 0600 file, leaving no lock file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcp-adapter-tokens-"));
    try {
      const path = join(dir, "oauth.json");
      const [a, b] = [new FileTokenStore(path), new FileTokenStore(path)];
      const urls = Array.from(
        { length: 8 },
        (_, i) => `https://s${i}.example.com/mcp`,
      );
      await Promise.all(
        urls.map((url, i) =>
          (i % 2 ? a : b).set(url, { tokens: { access_token: `t${i}` } })
        ),
      );
      const all = await a.read();
      assert.deepEqual(
        urls.map((url) => all[url]?.tokens?.access_token),
        urls.map((_, i) => `t${i}`),
      );
      assert.deepEqual(await readdir(dir), ["oauth.json"]);
      if (process.platform !== "win32") {
        assert.equal((await stat(path)).mode & 0o777, 0o600);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("Redis store: keys are namespaced by the prefix, values are JSON, no lock key is left, and a bad value's error shows no value", async () => {
    const prefix = `test-${crypto.randomUUID()}:`;
    const store = new RedisTokenStore(redis, { prefix });
    const login = { tokens: { access_token: "secret-access" } };
    await store.withLock(SERVER_URL, () => store.set(SERVER_URL, login));
    assert.deepEqual(await redis.keys(`${prefix}*`), [
      `${prefix}login:${SERVER_URL}`,
    ]);
    assert.deepEqual(
      JSON.parse(String(await redis.get(`${prefix}login:${SERVER_URL}`))),
      login,
    );
    const elsewhere = new RedisTokenStore(redis, { prefix: `${prefix}x:` });
    assert.equal(await elsewhere.get(SERVER_URL), undefined);
    await redis.set(`${prefix}login:${SERVER_URL}`, "secret-garbage");
    await assert.rejects(store.get(SERVER_URL), (error: Error) => {
      assert.match(error.message, /not a JSON object/);
      assert.doesNotMatch(error.message, /secret/);
      return true;
    });
    await redis.del(`${prefix}login:${SERVER_URL}`);
  });

  it("Redis store: no key name holds a server URL's credentials, query or key-like path segment, and each such server keeps its own login", async () => {
    const prefix = `test-${crypto.randomUUID()}:`;
    const store = new RedisTokenStore(redis, { prefix });
    const secrets = ["sk-live-123", "pass-word", "9f8e7d6c5b4a39281706"];
    const urls = [
      "https://mcp.example.com/mcp?api_key=sk-live-123",
      "https://mcp.example.com/mcp?api_key=sk-live-456",
      "https://agent:pass-word@mcp.example.com/mcp",
      "https://mcp.example.com/t/9f8e7d6c5b4a39281706/mcp",
      "https://mcp.example.com/mcp#sk-live-123",
    ];
    const seen: string[] = [];
    for (const [i, url] of urls.entries()) {
      await store.withLock(url, async () => {
        await store.set(url, { tokens: { access_token: `t${i}` } });
        // The lock's name, while it is held.
        seen.push(...await redis.keys(`${prefix}lock:*`));
      });
    }
    const names = await redis.keys(`${prefix}*`);
    assert.equal(names.length, urls.length, names.join("\n"));
    for (const name of [...names, ...seen]) {
      for (const secret of secrets) assert.ok(!name.includes(secret), name);
      assert.match(name, /#sha256=[0-9a-f]{64}$/);
    }
    assert.ok(
      names.includes(
        `${prefix}login:${await redisKeyName(urls[0]!)}`,
      ),
    );
    assert.match(
      await redisKeyName(urls[3]!),
      /^https:\/\/mcp\.example\.com\/t\/\[redacted\]\/mcp#sha256=/,
    );
    for (const [i, url] of urls.entries()) {
      assert.equal((await store.get(url))?.tokens?.access_token, `t${i}`);
      await store.delete(url);
    }
    assert.deepEqual(await redis.keys(`${prefix}*`), []);
    // A key without such parts, principal and all, is its own name.
    const plain = `${SERVER_URL} principal=user%2042`;
    assert.equal(await redisKeyName(plain), plain);
  });
});

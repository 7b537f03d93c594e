/**
 * The token store contract and the refresh protocol on it: every store
 * (memory, file, Redis in a real redis-server) writes by compare-and-set on
 * the generation and the refresh in flight; the stored-login provider
 * waits for another holder's refresh instead of sending its refresh token
 * again, takes it over only past its bound, drops an answer a newer
 * generation beat, and clears after a refused grant only as the owner of
 * the current generation's refresh. In-process and event-driven (the
 * provider's `onRefresh` steps); the race across processes is
 * refresh_race_test.ts.
 */
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  FileTokenStore,
  MemoryTokenStore,
  type OAuthTokenStore,
  RedisTokenStore,
  StoredOAuthProvider,
  type StoredOAuthProviderOptions,
  type StoredTokens,
  tokenKey,
  type TokenRefreshEvent,
} from "@cleveragents/mcp-adapter/auth";
import { redisForTests } from "../_redis.ts";

const SERVER_URL = "https://mcp.example.com/mcp";
const gen0 = { access_token: "access-0", refresh_token: "refresh-0" };
const gen1 = { access_token: "access-1", refresh_token: "refresh-1" };

function providerOver(
  store: OAuthTokenStore,
  options: StoredOAuthProviderOptions = {},
): StoredOAuthProvider {
  return new StoredOAuthProvider(store, {
    config: { name: "notes", transport: "streamable-http", url: SERVER_URL },
    namespace: "notes",
    enabled: true,
    auth: { type: "oauth" },
  }, options);
}

describe("token stores: compare-and-set by generation", () => {
  const redis = redisForTests();
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-adapter-cas-"));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const stores: [string, () => OAuthTokenStore][] = [
    ["memory", () => new MemoryTokenStore()],
    ["file", () => new FileTokenStore(join(dir, "oauth.json"))],
    [
      "redis",
      () =>
        new RedisTokenStore(redis.client(), {
          prefix: `cas-${crypto.randomUUID()}:`,
        }),
    ],
  ];

  for (const [kind, open] of stores) {
    it(`${kind}: writes only at the expected generation and refresh in flight`, async () => {
      const store = open();
      const key = tokenKey({ resource: SERVER_URL, principal: "ada" });
      // A missing login is generation 0 with nothing in flight.
      assert.equal(
        await store.compareAndSet(key, { generation: 1 }, { generation: 2 }),
        false,
      );
      assert.equal(
        await store.compareAndSet(key, { generation: 0, refreshing: null }, {
          tokens: gen0,
        }),
        true,
      );
      const flight = { generation: 0, owner: "worker-a", since: 1 };
      assert.equal(
        await store.compareAndSet(key, { generation: 0, refreshing: null }, {
          tokens: gen0,
          refreshing: flight,
        }),
        true,
      );
      // Another owner cannot claim it; nothing in flight is not what is stored.
      for (const refreshing of ["worker-b", null]) {
        assert.equal(
          await store.compareAndSet(key, { generation: 0, refreshing }, {
            tokens: gen0,
          }),
          false,
        );
      }
      // The answer lands by generation, whoever holds the refresh now.
      assert.equal(
        await store.compareAndSet(key, { generation: 0 }, {
          tokens: gen1,
          generation: 1,
        }),
        true,
      );
      // A late answer for the same generation, or an older one, is dropped.
      for (const generation of [0, 0, 2]) {
        assert.equal(
          await store.compareAndSet(key, { generation }, {
            tokens: { access_token: "late" },
            generation: generation + 1,
          }),
          false,
        );
      }
      assert.deepEqual(await store.get(key), { tokens: gen1, generation: 1 });
      assert.equal(
        await store.compareAndSet(key, { generation: 1 }, undefined),
        true,
      );
      assert.equal(await store.get(key), undefined);
    });

    it(`${kind}: each principal's login is a key of its own`, async () => {
      const store = open();
      const ada = tokenKey({ resource: SERVER_URL, principal: "ada" });
      const bob = tokenKey({ resource: SERVER_URL, principal: "bob" });
      await store.set(ada, { tokens: gen0, generation: 3 });
      assert.equal(await store.get(bob), undefined);
      assert.equal(await store.get(SERVER_URL), undefined);
      assert.equal(
        await store.compareAndSet(bob, { generation: 3 }, { tokens: gen1 }),
        false,
      );
    });
  }
});

describe("the refresh protocol of StoredOAuthProvider", () => {
  function recorder() {
    const steps: string[] = [];
    const listeners: ((event: TokenRefreshEvent) => void)[] = [];
    return {
      steps,
      onRefresh: (event: TokenRefreshEvent) => {
        steps.push(`${event.kind} ${event.generation}`);
        for (const listener of listeners.splice(0)) listener(event);
      },
      /** Resolves at the next step of `kind`. */
      next: (kind: string) =>
        new Promise<void>((resolve) => {
          const look = (event: TokenRefreshEvent) =>
            event.kind === kind ? resolve() : listeners.push(look);
          listeners.push(look);
        }),
    };
  }

  it("waits for the next generation while another holder's refresh is in flight, and never sends the same refresh token", async () => {
    const store = new MemoryTokenStore();
    await store.set(SERVER_URL, {
      tokens: gen0,
      refreshing: { generation: 0, owner: "stalled-worker", since: 0 },
    });
    const events = recorder();
    const provider = providerOver(store, { onRefresh: events.onRefresh });
    const sent: (StoredTokens | undefined)[] = [];
    const waiting = events.next("waiting");
    const refreshed = provider.refreshExclusive((current) => {
      sent.push(current);
      return Promise.resolve({ access_token: "never" });
    }, { stale: gen0 });
    await waiting;
    // The stalled worker's late answer lands: nobody has generation 1 yet.
    assert.equal(
      await store.compareAndSet(SERVER_URL, { generation: 0 }, {
        tokens: gen1,
        generation: 1,
      }),
      true,
    );
    assert.deepEqual(await refreshed, gen1);
    assert.deepEqual(sent, []);
    assert.deepEqual(events.steps, ["waiting 0"]);
  });

  it("takes a refresh over once it has been in flight past refreshTimeoutMs", async () => {
    const store = new MemoryTokenStore();
    await store.set(SERVER_URL, {
      tokens: gen0,
      refreshing: { generation: 0, owner: "dead-worker", since: 0 },
    });
    const events = recorder();
    const provider = providerOver(store, {
      onRefresh: events.onRefresh,
      refreshTimeoutMs: 30,
    });
    const sent: (StoredTokens | undefined)[] = [];
    const tokens = await provider.refreshExclusive((current) => {
      sent.push(current);
      return Promise.resolve(gen1);
    }, { stale: gen0 });
    assert.deepEqual(tokens, gen1);
    assert.deepEqual(sent, [gen0]);
    assert.deepEqual(events.steps, [
      "waiting 0",
      "taking-over 0",
      "refreshing 0",
      "refreshed 1",
    ]);
    assert.deepEqual(await store.get(SERVER_URL), {
      tokens: gen1,
      generation: 1,
    });
  });

  it("drops its answer when a newer generation was written first, and uses that one", async () => {
    const store = new MemoryTokenStore();
    await store.set(SERVER_URL, { tokens: gen0 });
    const events = recorder();
    const provider = providerOver(store, { onRefresh: events.onRefresh });
    const tokens = await provider.refreshExclusive(async () => {
      // Somebody else's answer for generation 0 lands first.
      await store.compareAndSet(SERVER_URL, { generation: 0 }, {
        tokens: gen1,
        generation: 1,
      });
      return { access_token: "late", refresh_token: "late" };
    }, { stale: gen0 });
    assert.deepEqual(tokens, gen1);
    assert.deepEqual(events.steps, ["refreshing 0", "superseded 0"]);
    assert.deepEqual(await store.get(SERVER_URL), {
      tokens: gen1,
      generation: 1,
    });
  });

  it("after invalid_grant, clears only as the owner of the current generation's refresh", async () => {
    const store = new MemoryTokenStore();
    const client = { client_id: "c" };
    await store.set(SERVER_URL, { client, tokens: gen0 });
    const events = recorder();
    const provider = providerOver(store, { onRefresh: events.onRefresh });
    // The owner, refused: the tokens go, the client stays, a new generation.
    await assert.rejects(
      provider.refreshExclusive(async () => {
        await provider.invalidateCredentials("tokens");
        assert.equal(await provider.tokens(), undefined);
        throw new Error("needs a login");
      }, { stale: gen0 }),
      /needs a login/,
    );
    assert.deepEqual(await store.get(SERVER_URL), { client, generation: 1 });
    assert.deepEqual(events.steps, ["refreshing 0", "cleared 1"]);

    // Not the owner any more (a newer generation landed): nothing is cleared.
    await store.set(SERVER_URL, { client, tokens: gen0, generation: 1 });
    events.steps.length = 0;
    const tokens = await provider.refreshExclusive(async () => {
      await store.compareAndSet(SERVER_URL, { generation: 1 }, {
        client,
        tokens: gen1,
        generation: 2,
      });
      await provider.invalidateCredentials("tokens");
      assert.fail("the engine's run ends at the refusal");
    }, { stale: gen0 });
    assert.deepEqual(tokens, gen1);
    assert.deepEqual(events.steps, ["refreshing 1", "superseded 1"]);
    assert.deepEqual(await store.get(SERVER_URL), {
      client,
      tokens: gen1,
      generation: 2,
    });
  });

  it("keys each principal's login apart, and a login of one is never read for another", async () => {
    const store = new MemoryTokenStore();
    const ada = providerOver(store, { principal: "ada" });
    const bob = providerOver(store, { principal: "bob" });
    assert.notEqual(ada.storeKey, bob.storeKey);
    assert.equal(ada.storeKey, `${SERVER_URL} principal=ada`);
    await ada.saveTokens(gen0);
    assert.deepEqual(await ada.tokens(), gen0);
    assert.equal(await bob.tokens(), undefined);
    assert.equal(await providerOver(store).tokens(), undefined);
  });

  it("refuses a refreshTimeoutMs that is not a positive number", () => {
    for (const refreshTimeoutMs of [0, -1, NaN, Infinity]) {
      assert.throws(
        () => providerOver(new MemoryTokenStore(), { refreshTimeoutMs }),
        /refreshTimeoutMs must be a positive number/,
      );
    }
  });
});

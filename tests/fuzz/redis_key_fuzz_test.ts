/**
 * Property: for random server URLs that carry a key-like secret (16–40
 * letters and digits) in their query, username, password, fragment or a
 * path segment, with or without a principal, `redisKeyName()` (the name
 * `RedisTokenStore` gives a login in Redis) holds no part of the secret
 * and keeps the URL's origin; two keys that differ only in the secret get
 * two names; and a URL that carries none keeps its key as its name.
 *
 * Bounded in time (`FUZZ_TIME_MS`, default 3 s) and seeded: the seed is
 * printed, and `FUZZ_SEED=<seed>` replays a run.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { redisKeyName } from "@cleveragents/mcp-adapter/auth";
import { fuzzParameters } from "./_fuzz.ts";

const PLACES = ["query", "username", "password", "fragment", "path"] as const;
type Place = typeof PLACES[number];

/** A key-like secret: letters and digits, both. */
const secret = fc.stringMatching(/^[a-z0-9]{16,40}$/).filter((text) =>
  /\d/.test(text) && /[a-z]/.test(text)
);
/** Route names: short, as servers name them. */
const segment = fc.stringMatching(/^[a-z0-9-]{1,8}$/);

function urlWith(
  host: string,
  route: string[],
  place: Place | undefined,
  value: string,
): string {
  const path = `/${route.join("/")}`;
  switch (place) {
    case "query":
      return `https://${host}${path}?api_key=${value}`;
    case "username":
      return `https://${value}@${host}${path}`;
    case "password":
      return `https://agent:${value}@${host}${path}`;
    case "fragment":
      return `https://${host}${path}#${value}`;
    case "path":
      return `https://${host}/t/${value}${path}`;
    default:
      return `https://${host}${path}`;
  }
}

describe("redisKeyName(): no key-like secret of a server URL in a Redis key name", () => {
  it("holds for URLs with a secret anywhere, and leaves other keys as they are", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[a-z]{1,10}\.example$/),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...PLACES, undefined),
        secret,
        secret,
        fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
        async (host, route, place, one, other, principal) => {
          const keyOf = (value: string) => {
            const url = urlWith(host, route, place, value);
            return principal === undefined
              ? url
              : `${url} principal=${encodeURIComponent(principal)}`;
          };
          const key = keyOf(one);
          const name = await redisKeyName(key);
          if (place === undefined) {
            assert.equal(name, key);
            return;
          }
          assert.ok(name.startsWith(`https://${host}/`), name);
          assert.ok(!name.includes(one), `${name} holds ${one}`);
          assert.match(name, /#sha256=[0-9a-f]{64}$/);
          if (one !== other) {
            assert.notEqual(await redisKeyName(keyOf(other)), name);
          }
        },
      ),
      fuzzParameters("redisKeyName"),
    );
  });
});

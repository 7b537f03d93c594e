import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  configSecrets,
  displayUrl,
  redact,
  redactError,
  secretsOf,
} from "../../src/util/redact.ts";
import { redactHead } from "../../src/transports/_lines.ts";
import { describeKey } from "../../src/auth/store.ts";

describe("secretsOf() and redact()", () => {
  it("masks values of 8 characters or more, and leaves short ordinary values alone", () => {
    const secrets = secretsOf([["MODE", "loop"], ["DB_URL", "postgres-db-1"]]);
    assert.equal(
      redact("loop over postgres-db-1", secrets),
      "loop over [redacted]",
    );
  });

  it("masks the value of a secret-looking name whatever its length", () => {
    const secrets = secretsOf([["API_KEY", "k9"], [
      "Authorization",
      "Bearer ab12",
    ]]);
    assert.equal(
      redact("key=k9 token ab12", secrets),
      "key=[redacted] token [redacted]",
    );
  });

  it("ignores case", () => {
    const secrets = secretsOf([["TOKEN", "AbCdEfGhIj"]]);
    assert.equal(
      redact("echo: abcdefghij ABCDEFGHIJ", secrets),
      "echo: [redacted] [redacted]",
    );
  });

  it("masks each part of a value, and its URL-encoded form", () => {
    const secrets = secretsOf([[
      "Cookie",
      "sid=0123456789; theme=darkmode-plus",
    ]]);
    const text = redact("got 0123456789 and darkmode-plus", secrets);
    assert.equal(text, "got [redacted] and [redacted]");
    const encoded = secretsOf([["X_TOKEN", "a b/c+d=e"]]);
    assert.equal(redact("q=a%20b%2Fc%2Bd%3De", encoded), "q=[redacted]");
  });

  it("takes a URL's credentials and query values from a config", () => {
    const secrets = configSecrets({
      url: "https://user:pw@example.com/mcp?api_key=xy&region=eu-west-1a",
    });
    assert.equal(
      redact("pw xy eu-west-1a", secrets),
      "[redacted] [redacted] [redacted]",
    );
  });

  it("takes the path segments of a config's URL that look like keys, not its routes", () => {
    const secrets = configSecrets({
      url:
        "https://actions.example.com/mcp/v1/sk-ak-Ab3dEf6hIjKlMn0p/2025-06-18/messages/550e8400-e29b-41d4-a716-446655440000/sse",
    });
    assert.equal(
      redact(
        "POST /mcp/v1/sk-ak-Ab3dEf6hIjKlMn0p/2025-06-18/messages/550e8400-e29b-41d4-a716-446655440000/sse failed",
        secrets,
      ),
      "POST /mcp/v1/[redacted]/2025-06-18/messages/[redacted]/sse failed",
    );
  });

  it("displayUrl() masks a path segment that looks like a key, so a message no config masks later names no key", () => {
    const url =
      "https://actions.example.com/mcp/v1/sk-ak-Ab3dEf6hIjKlMn0p/sse?api_key=q";
    const shown = '"https://actions.example.com/mcp/v1/[redacted]/sse"';
    assert.equal(displayUrl(new URL(url)), shown);
    // The token stores' and onRefresh's name of a server.
    assert.equal(describeKey(`${url} principal=u1`), shown);
  });

  it("redacts an error's message, stack and causes in place", () => {
    const secrets = secretsOf([["SECRET", "hunter2hunter2"]]);
    const error = new Error("bad hunter2hunter2", {
      cause: new Error("cause HUNTER2HUNTER2"),
    });
    assert.equal(redactError(error, secrets), error);
    assert.equal(error.message, "bad [redacted]");
    assert.doesNotMatch(error.stack!, /hunter2/i);
    assert.equal((error.cause as Error).message, "cause [redacted]");
  });
});

describe("redactHead()", () => {
  const secrets = secretsOf([["TOKEN", "abcdef0123"], ["KEY", "xyz9"]]);

  it("masks a text cut into pieces anywhere as the whole text, and holds back less than the longest secret", () => {
    const text = "pre abcdef0123 mid xyz9 ABCDEF0123 end abcdef0123";
    for (let size = 1; size <= text.length; size++) {
      let out = "";
      let carry = "";
      for (let at = 0; at < text.length; at += size) {
        const [head, rest] = redactHead(
          carry + text.slice(at, at + size),
          secrets,
        );
        assert.ok(rest.length < 10, `held back ${JSON.stringify(rest)}`);
        out += head;
        carry = rest;
      }
      out += redact(carry, secrets);
      assert.equal(out, redact(text, secrets), `pieces of ${size}`);
    }
  });

  it("hands everything on when there is nothing to mask", () => {
    assert.deepEqual(redactHead("plain text", []), ["plain text", ""]);
  });
});

describe("redact() of long secrets", () => {
  it("masks each of six 60,000-character values instead of throwing", () => {
    const secrets = secretsOf(
      Array.from({ length: 6 }, (_, i) => [`BIG_${i}`, `${i}`.repeat(60_000)]),
    );
    assert.equal(
      redact(`a ${"3".repeat(60_000)} b`, secrets),
      "a [redacted] b",
    );
  });
});

/**
 * DPoPSession (RFC 9449 proofs with WebCrypto) and the transports' DPoP
 * `fetch`: what a proof holds and how it is signed, nonces per origin, and
 * the one retry on a nonce challenge, with a recording fetch.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash, createPublicKey, verify } from "node:crypto";
import { DPoPSession, withDPoP } from "@cleveragents/mcp-adapter/auth";
import {
  isNonceChallenge,
  resourceFetch,
  tokenRequestFetch,
} from "../../src/auth/dpop.ts";

/** The header and claims of a proof whose ES256 signature verifies with its own `jwk`. */
function opened(proof: string) {
  const [h, p, s] = proof.split(".");
  const header = JSON.parse(Buffer.from(h!, "base64url").toString());
  const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
  const key = createPublicKey({ key: header.jwk, format: "jwk" });
  assert.ok(
    verify(
      "sha256",
      Buffer.from(`${h}.${p}`),
      { key, dsaEncoding: "ieee-p1363" },
      Buffer.from(s!, "base64url"),
    ),
    "the signature verifies with the proof's jwk",
  );
  return { header, claims };
}

describe("DPoPSession", () => {
  it("signs ES256 proofs: typ dpop+jwt, the public jwk only, htm, htu without query or fragment, iat, a new jti, ath", async () => {
    const session = await DPoPSession.create();
    const url = "https://mcp.example.com/mcp?session=1#top";
    const first = opened(
      await session.buildProof({ htm: "post", htu: url, accessToken: "tok" }),
    );
    assert.deepEqual(Object.keys(first.header.jwk).sort(), [
      "crv",
      "kty",
      "x",
      "y",
    ]);
    assert.equal(first.header.typ, "dpop+jwt");
    assert.equal(first.header.alg, "ES256");
    assert.equal(first.claims.htm, "POST");
    assert.equal(first.claims.htu, "https://mcp.example.com/mcp");
    assert.ok(Math.abs(first.claims.iat - Date.now() / 1000) < 5);
    assert.equal(
      first.claims.ath,
      createHash("sha256").update("tok").digest("base64url"),
    );
    const second = opened(
      await session.buildProof({ htm: "GET", htu: url }),
    );
    assert.notEqual(second.claims.jti, first.claims.jti);
    assert.equal(second.claims.ath, undefined);
    assert.deepEqual(
      second.header.jwk,
      first.header.jwk,
      "one key per session",
    );
  });

  it("keeps the latest nonce of each origin, and puts it in that origin's proofs", async () => {
    const session = await DPoPSession.create();
    const answer = (nonce: string) =>
      new Response(null, { headers: { "dpop-nonce": nonce } });
    session.observeNonce(answer("n1"), "https://as.example.com/token");
    session.observeNonce(answer("n2"), "https://as.example.com/other");
    session.observeNonce(answer("bad nonce\u0001"), "https://as.example.com/x");
    assert.equal(session.nonceFor("https://as.example.com/"), "n2");
    assert.equal(session.nonceFor("https://mcp.example.com/mcp"), undefined);
    const proof = opened(
      await session.buildProof({
        htm: "POST",
        htu: "https://as.example.com/token",
      }),
    );
    assert.equal(proof.claims.nonce, "n2");
    const other = opened(
      await session.buildProof({
        htm: "POST",
        htu: "https://mcp.example.com/mcp",
      }),
    );
    assert.equal(other.claims.nonce, undefined);
  });

  it("uses a key pair handed in, and refuses one that is not ECDSA P-256", async () => {
    const keyPair = await crypto.subtle.generateKey(
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["sign", "verify"],
    );
    const jwk = await crypto.subtle.exportKey("jwk", keyPair.publicKey);
    const session = await DPoPSession.create({ keyPair });
    const { header } = opened(
      await session.buildProof({ htm: "GET", htu: "https://x.example/" }),
    );
    assert.equal(header.jwk.x, jwk.x);
    const p384 = await crypto.subtle.generateKey(
      { name: "ECDSA", namedCurve: "P-384" },
      false,
      ["sign", "verify"],
    );
    await assert.rejects(
      DPoPSession.create({ keyPair: p384 }),
      /DPoP keys must be ECDSA P-256/,
    );
  });
});

describe("the DPoP fetch of the transports and of the OAuth engine", () => {
  const provider = (tokenType: string) =>
    withDPoP({
      tokens: () => ({ access_token: "tok-1", token_type: tokenType }),
    });

  it("sends a DPoP token as Authorization: DPoP with a proof, and retries a nonce challenge once with a new proof", async () => {
    const sent: Headers[] = [];
    let calls = 0;
    const next: typeof fetch = (_input, init) => {
      sent.push(new Headers(init?.headers));
      calls++;
      return Promise.resolve(
        calls === 1
          ? new Response(null, {
            status: 401,
            headers: {
              "www-authenticate": 'DPoP error="use_dpop_nonce"',
              "dpop-nonce": "rs-1",
            },
          })
          : new Response("{}", { status: 200 }),
      );
    };
    const wrapped = resourceFetch(provider("DPoP"), next);
    const response = await wrapped("https://mcp.example.com/mcp", {
      method: "POST",
      headers: { authorization: "Bearer tok-1" },
      body: "{}",
    });
    assert.equal(response.status, 200);
    assert.equal(sent.length, 2);
    for (const headers of sent) {
      assert.equal(headers.get("authorization"), "DPoP tok-1");
    }
    const [a, b] = sent.map((h) => opened(h.get("dpop")!).claims);
    assert.equal(a!.nonce, undefined);
    assert.equal(b!.nonce, "rs-1");
    assert.notEqual(a!.jti, b!.jti);
  });

  it("leaves a Bearer token alone (the server issued Bearer), and requests without a token", async () => {
    const sent: Headers[] = [];
    const next: typeof fetch = (_input, init) => {
      sent.push(new Headers(init?.headers));
      return Promise.resolve(new Response("{}"));
    };
    const wrapped = resourceFetch(provider("Bearer"), next);
    await wrapped("https://mcp.example.com/mcp", {
      headers: { authorization: "Bearer tok-1" },
    });
    await wrapped("https://mcp.example.com/mcp", {});
    assert.equal(sent[0]!.get("authorization"), "Bearer tok-1");
    assert.equal(sent[0]!.has("dpop"), false);
    assert.equal(sent[1]!.has("dpop"), false);
  });

  it("proves token requests only, and retries a 400 use_dpop_nonce once", async () => {
    const session = await DPoPSession.create();
    const sent: { url: string; headers: Headers }[] = [];
    const next: typeof fetch = (input, init) => {
      sent.push({ url: String(input), headers: new Headers(init?.headers) });
      return Promise.resolve(
        sent.length === 2
          ? new Response(JSON.stringify({ error: "use_dpop_nonce" }), {
            status: 400,
            headers: { "dpop-nonce": "as-1" },
          })
          : new Response("{}"),
      );
    };
    const wrapped = tokenRequestFetch(session, next);
    await wrapped(
      "https://as.example.com/.well-known/oauth-authorization-server",
    );
    await wrapped("https://as.example.com/token", {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials" }),
    });
    assert.equal(sent.length, 3);
    assert.equal(sent[0]!.headers.has("dpop"), false, "metadata: no proof");
    const [a, b] = sent.slice(1).map((r) =>
      opened(r.headers.get("dpop")!).claims
    );
    assert.equal(a!.htu, "https://as.example.com/token");
    assert.equal(a!.nonce, undefined);
    assert.equal(b!.nonce, "as-1");
  });

  it("reads at most 64 KiB of a 400 for its error code: an endless body is not a nonce challenge", async () => {
    const session = await DPoPSession.create();
    let sends = 0;
    let pulled = 0;
    const next: typeof fetch = () => {
      sends++;
      // A body that never ends: only a bounded read of it returns.
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled++;
          controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
        },
      });
      return Promise.resolve(
        new Response(body, { status: 400, headers: { "dpop-nonce": "as-1" } }),
      );
    };
    const response = await tokenRequestFetch(session, next)(
      "https://as.example.com/token",
      {
        method: "POST",
        body: new URLSearchParams({ grant_type: "client_credentials" }),
      },
    );
    assert.equal(response.status, 400);
    assert.equal(sends, 1, "not retried: no use_dpop_nonce was read");
    assert.ok(pulled <= 8, `${pulled} chunks of 16 KiB pulled`);
    await response.body?.cancel();
  });

  it("isNonceChallenge() wants a 401 with a DPoP challenge, use_dpop_nonce and a nonce", () => {
    const challenge = (status: number, header: string, nonce?: string) =>
      new Response(null, {
        status,
        headers: {
          "www-authenticate": header,
          ...(nonce ? { "dpop-nonce": nonce } : {}),
        },
      });
    assert.equal(
      isNonceChallenge(challenge(401, 'DPoP error="use_dpop_nonce"', "n")),
      true,
    );
    assert.equal(
      isNonceChallenge(challenge(401, 'DPoP error="use_dpop_nonce"')),
      false,
    );
    assert.equal(
      isNonceChallenge(challenge(401, 'Bearer error="use_dpop_nonce"', "n")),
      false,
    );
    assert.equal(
      isNonceChallenge(challenge(403, 'DPoP error="use_dpop_nonce"', "n")),
      false,
    );
  });
});

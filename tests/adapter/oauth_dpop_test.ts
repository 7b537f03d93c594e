/**
 * DPoP-bound tokens (RFC 9449) through MCPToolAdapter, against local
 * servers that check every proof: a proof on the token request, then
 * `Authorization: DPoP` with a fresh proof (`htm`, `htu`, `ath`, the bound
 * key, a new `jti`) on every MCP request; each side's `use_dpop_nonce`
 * answered with one retry, and the latest nonce of each origin kept.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MCPConnectionError } from "@cleveragents/mcp-adapter";
import {
  DPoPSession,
  withDPoP,
  WorkloadIdentityProvider,
} from "@cleveragents/mcp-adapter/auth";
import { releaseAfterEach, text } from "../_helpers.ts";
import { remoteAdapters } from "./_shared.ts";
import { grantServers } from "./_grant_servers.ts";

const WAIT_MS = 10_000;

const cleanups = releaseAfterEach();
const adapterFor = remoteAdapters(cleanups);
const serve = grantServers(cleanups);

const workload = (dpop: boolean) =>
  new WorkloadIdentityProvider({
    clientId: "my-workload",
    assertion: "eyJ.workload.jwt",
    dpop,
  });

describe("DPoP through MCPToolAdapter", () => {
  it("binds the token with a proof on the token request, then sends Authorization: DPoP with a fresh proof on every request", async () => {
    const servers = await serve({ dpop: true });
    const adapter = adapterFor("streamable-http", servers.url, {
      authProvider: workload(true),
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    for (const message of ["one", "two"]) {
      assert.equal(
        text(await adapter.invoke("echo", { message }, { timeoutMs: WAIT_MS })),
        message,
      );
    }
    assert.deepEqual(servers.proofProblems, []);
    const [request] = servers.tokenRequests;
    assert.equal(request!.proof?.htm, "POST");
    assert.equal(request!.proof?.htu, `${servers.issuer}/token`);
    assert.equal(request!.proof?.ath, undefined);
    const bound = servers.mcpRequests.filter((r) => r.status === "passed");
    assert.ok(bound.length >= 4, "initialize, initialized, list, two calls");
    for (const seen of bound) {
      assert.match(seen.authorization, /^DPoP at-/);
      assert.equal(seen.proof?.htm, seen.method);
      assert.equal(seen.proof?.htu, servers.url);
    }
    assert.equal(
      new Set(bound.map((r) => r.proof?.jti)).size,
      bound.length,
      "a new jti for every request",
    );
  });

  it("retries once with the nonce each side asks for (use_dpop_nonce), keeps it for later requests, and follows a new one", async () => {
    const servers = await serve({ dpop: true, asNonce: true, rsNonce: true });
    const adapter = adapterFor("streamable-http", servers.url, {
      authProvider: workload(true),
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    assert.deepEqual(
      servers.tokenRequests.map((r) => [r.status, r.proof?.nonce]),
      [[400, undefined], [200, "as-nonce-1"]],
    );
    const challenged = () =>
      servers.mcpRequests.filter((r) =>
        r.status === 401 && r.proof !== undefined
      ).length;
    assert.equal(challenged(), 1, "one use_dpop_nonce from the MCP server");
    assert.equal(
      text(
        await adapter.invoke("echo", { message: "kept" }, {
          timeoutMs: WAIT_MS,
        }),
      ),
      "kept",
    );
    assert.equal(challenged(), 1, "the kept nonce is used at once");
    servers.nonces.rs = "rs-nonce-2";
    assert.equal(
      text(
        await adapter.invoke("echo", { message: "new" }, {
          timeoutMs: WAIT_MS,
        }),
      ),
      "new",
    );
    assert.equal(challenged(), 2, "one retry with the new nonce");
    assert.equal(servers.mcpRequests.at(-1)!.proof?.nonce, "rs-nonce-2");
    assert.equal(servers.tokenRequests.length, 2, "no new token for a nonce");
    assert.deepEqual(servers.proofProblems, []);
  });

  it("withDPoP() gives a provider a session; a session made elsewhere can be handed in", async () => {
    const servers = await serve({ dpop: true });
    const session = await DPoPSession.create();
    const provider = withDPoP(workload(false), session);
    assert.equal(await provider.dpop!(), session);
    const adapter = adapterFor("streamable-http", servers.url, {
      authProvider: provider,
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    assert.match(servers.mcpRequests.at(-1)!.authorization, /^DPoP /);
    assert.deepEqual(servers.proofProblems, []);
  });

  it("a provider without DPoP sends no proof; the server's refusal of the token request is reported", async () => {
    const servers = await serve({ dpop: true });
    // The token request carries no proof: the server refuses it.
    const adapter = adapterFor("streamable-http", servers.url, {
      authProvider: workload(false),
    });
    const failure = await adapter.connect({ timeoutMs: WAIT_MS }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(failure instanceof MCPConnectionError, String(failure));
    assert.match(failure.message, /invalid_dpop_proof/);
    assert.deepEqual(servers.proofProblems, ["token request: no DPoP proof"]);
  });
});

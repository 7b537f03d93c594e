/**
 * The machine grants of `@cleveragents/mcp-adapter/auth` through
 * MCPToolAdapter, against local servers: workload identity (RFC 7523
 * JWT-bearer with the workload's JWT) and enterprise-managed authorization
 * (SEP-990: ID token → ID-JAG at the identity provider → access token).
 * A refused grant is reported once and never retried; no secret is in a
 * message.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPConnectionError, MCPToolHub } from "@cleveragents/mcp-adapter";
import { parseConfig } from "@cleveragents/mcp-adapter/config";
import {
  configAuth,
  EnterpriseAuthProvider,
  type EnterpriseAuthProviderOptions,
  WorkloadIdentityProvider,
} from "@cleveragents/mcp-adapter/auth";
import { releaseAfterEach, text } from "../_helpers.ts";
import { remoteAdapters } from "./_shared.ts";
import { grantServers, JWT_BEARER } from "./_grant_servers.ts";

const WAIT_MS = 10_000;
const ASSERTION = "eyJhbGciOiJFUzI1NiJ9.workload-assertion-value.sig";
const ID_TOKEN = "eyJhbGciOiJFUzI1NiJ9.the-users-id-token.sig";

const cleanups = releaseAfterEach();
const adapterFor = remoteAdapters(cleanups);
const serve = grantServers(cleanups);

/**
 * An adapter on `servers` whose EnterpriseAuthProvider is "crm-agent" with
 * client_secret_basic and the user's ID token, and `extra` options.
 */
function enterpriseAdapter(
  servers: Awaited<ReturnType<typeof serve>>,
  extra: Partial<EnterpriseAuthProviderOptions> = {},
) {
  return adapterFor("streamable-http", servers.url, {
    authProvider: new EnterpriseAuthProvider({
      clientId: "crm-agent",
      clientSecret: "crm-secret-value",
      idToken: ID_TOKEN,
      idpTokenEndpoint: servers.idpTokenEndpoint,
      idpClientId: "agent-at-idp",
      ...extra,
    }),
  });
}

describe("WorkloadIdentityProvider through MCPToolAdapter", () => {
  it("presents the workload's JWT with the JWT-bearer grant: client_id in the form, no secret, no registration", async () => {
    const servers = await serve({ scopes: ["tools:read"] });
    const adapter = adapterFor("streamable-http", servers.url, {
      authProvider: new WorkloadIdentityProvider({
        clientId: "my-workload",
        assertion: ASSERTION,
      }),
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    const result = await adapter.invoke("echo", { message: "wif" }, {
      timeoutMs: WAIT_MS,
    });
    assert.equal(text(result), "wif");
    assert.equal(servers.tokenRequests.length, 1);
    const [request] = servers.tokenRequests;
    assert.equal(request!.form.get("grant_type"), JWT_BEARER);
    assert.equal(request!.form.get("assertion"), ASSERTION);
    assert.equal(request!.form.get("client_id"), "my-workload");
    assert.equal(request!.form.get("resource"), servers.resource);
    assert.equal(
      request!.form.get("scope"),
      "tools:read",
      "the metadata's scopes_supported",
    );
    assert.equal(request!.form.has("client_secret"), false);
    assert.equal(request!.authorization, undefined);
    assert.equal(servers.exchanges.length, 0);
  });

  it("reads the assertion again for each new grant (a platform rotates it)", async () => {
    const servers = await serve();
    let issued = 0;
    const adapter = adapterFor("streamable-http", servers.url, {
      authProvider: new WorkloadIdentityProvider({
        clientId: "my-workload",
        assertion: () => `${ASSERTION}-${++issued}`,
      }),
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    servers.expireTokens();
    assert.equal(
      text(
        await adapter.invoke("echo", { message: "again" }, {
          timeoutMs: WAIT_MS,
        }),
      ),
      "again",
    );
    assert.deepEqual(
      servers.tokenRequests.map((r) => r.form.get("assertion")),
      [`${ASSERTION}-1`, `${ASSERTION}-2`],
    );
  });

  for (
    const error of ["invalid_grant", "invalid_scope", "unauthorized_client"]
  ) {
    it(`reports ${error} with what the server said, once: no retry, no other grant, no assertion in the message`, async () => {
      const servers = await serve({ refuse: () => error });
      const adapter = adapterFor("streamable-http", servers.url, {
        authProvider: new WorkloadIdentityProvider({
          clientId: "my-workload",
          assertion: ASSERTION,
        }),
      });
      const failure = await adapter.connect({ timeoutMs: WAIT_MS }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(failure instanceof MCPConnectionError, String(failure));
      assert.match(
        failure.message,
        new RegExp(
          `refused the JWT-bearer grant for MCP server at .*HTTP 400 "${error}" \\("refused: ${error}"\\); not retried`,
        ),
      );
      assert.doesNotMatch(failure.message, /workload-assertion-value/);
      assert.equal(servers.tokenRequests.length, 1, "one token request");
      assert.deepEqual(
        servers.tokenRequests.map((r) => r.form.get("grant_type")),
        [JWT_BEARER],
      );
    });
  }

  it("refuses a missing client ID or assertion when constructed", () => {
    assert.throws(
      () => new WorkloadIdentityProvider({ clientId: "", assertion: "x" }),
      /"clientId" must be a non-empty string/,
    );
    assert.throws(
      () =>
        new WorkloadIdentityProvider({
          clientId: "a",
          assertion: "" as unknown as string,
        }),
      /"assertion" must be the token, or a function that returns it/,
    );
  });
});

describe("EnterpriseAuthProvider through MCPToolAdapter", () => {
  it("exchanges the ID token for an ID-JAG at the IdP (RFC 8693), then presents it with the JWT-bearer grant and client_secret_basic", async () => {
    const servers = await serve({ authMethods: ["client_secret_basic"] });
    const adapter = enterpriseAdapter(servers, {
      idToken: () => ID_TOKEN,
      idpClientSecret: "idp-secret-value",
      scope: "crm.read",
      expectedIssuer: servers.issuer,
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    assert.equal(
      text(
        await adapter.invoke("echo", { message: "sep-990" }, {
          timeoutMs: WAIT_MS,
        }),
      ),
      "sep-990",
    );
    assert.equal(servers.exchanges.length, 1);
    const exchange = Object.fromEntries(servers.exchanges[0]!.form);
    assert.deepEqual(exchange, {
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: servers.issuer,
      resource: servers.resource,
      scope: "crm.read",
      subject_token: ID_TOKEN,
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      client_id: "agent-at-idp",
      client_secret: "idp-secret-value",
    });
    assert.equal(servers.tokenRequests.length, 1);
    const [grant] = servers.tokenRequests;
    assert.equal(grant!.form.get("grant_type"), JWT_BEARER);
    assert.match(grant!.form.get("assertion")!, /^jag-1-/);
    assert.equal(grant!.form.get("resource"), servers.resource);
    assert.equal(
      grant!.authorization,
      `Basic ${btoa("crm-agent:crm-secret-value")}`,
    );
  });

  it("reports the IdP's refusal, naming the IdP, without the ID token or a secret", async () => {
    const servers = await serve({
      authMethods: ["client_secret_basic"],
      refuseExchange: () => "invalid_grant",
    });
    const adapter = enterpriseAdapter(servers);
    const failure = await adapter.connect({ timeoutMs: WAIT_MS }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(failure instanceof MCPConnectionError, String(failure));
    assert.match(
      failure.message,
      /the identity provider at .* refused to exchange the ID token for an ID-JAG: HTTP 400 "invalid_grant"/,
    );
    assert.doesNotMatch(failure.message, /the-users-id-token|crm-secret-value/);
    assert.equal(servers.exchanges.length, 1, "not retried");
    assert.equal(servers.tokenRequests.length, 0);
  });

  it("names an issued_token_type that is not text for what it is", async () => {
    const servers = await serve({
      authMethods: ["client_secret_basic"],
      // String() cannot call this toString.
      exchangeAnswer: (answer) => answer.issued_token_type = { toString: 1 },
    });
    const failure = await enterpriseAdapter(servers).connect({
      timeoutMs: WAIT_MS,
    }).then(() => undefined, (e: unknown) => e);
    assert.ok(failure instanceof MCPConnectionError, String(failure));
    assert.match(
      failure.message,
      /answered the token exchange without an ID-JAG \(issued_token_type "\[an object\]"\)/,
    );
    assert.equal(servers.tokenRequests.length, 0);
  });
});

describe("an authorization server's refusal that echoes a secret across the cut", () => {
  /**
   * `error_description` is cut at 200 characters: `pad` characters, then
   * the secret, so that the cut falls inside it.
   */
  const across = (secret: string | null | undefined, pad: number) =>
    "x".repeat(pad) + String(secret);

  const failureOf = (adapter: ReturnType<typeof adapterFor>) =>
    adapter.connect({ timeoutMs: WAIT_MS }).then(
      () => assert.fail("connected"),
      (e: unknown) => {
        assert.ok(e instanceof MCPConnectionError, String(e));
        return e.message;
      },
    );

  it("masks the JWT-bearer assertion before the cut", async () => {
    const servers = await serve({
      refuse: () => "invalid_grant",
      // The cut at 200 would keep "eyJhbGciOiJFUzI1NiJ9.workload-ass".
      describe: (form) => across(form.get("assertion"), 167),
    });
    const message = await failureOf(
      adapterFor("streamable-http", servers.url, {
        authProvider: new WorkloadIdentityProvider({
          clientId: "my-workload",
          assertion: ASSERTION,
        }),
      }),
    );
    assert.doesNotMatch(message, /workload-ass/);
    assert.ok(message.includes(`${"x".repeat(167)}[redacted]`), message);
  });

  it("masks the client secret of HTTP Basic authentication before the cut", async () => {
    const servers = await serve({
      authMethods: ["client_secret_basic"],
      refuse: () => "invalid_client",
      // The cut would keep "crm-secret", decoded from the Basic credentials.
      describe: (_form, authorization) =>
        across(atob(authorization!.slice(6)).split(":")[1], 190),
    });
    const message = await failureOf(enterpriseAdapter(servers));
    assert.equal(servers.tokenRequests.length, 1, "the grant was refused");
    assert.doesNotMatch(message, /crm-secret/);
  });

  it("masks the ID token at the identity provider before the cut", async () => {
    const servers = await serve({
      authMethods: ["client_secret_basic"],
      refuseExchange: () => "invalid_grant",
      // The cut would keep "eyJhbGciOiJFUzI1NiJ9.the-users-".
      describe: (form) => across(form.get("subject_token"), 169),
    });
    const message = await failureOf(
      enterpriseAdapter(servers, { idpClientSecret: "idp-secret-value" }),
    );
    assert.equal(servers.exchanges.length, 1, "the exchange was refused");
    assert.doesNotMatch(message, /the-users/);
    assert.ok(message.includes(`${"x".repeat(169)}[redacted]`), message);
  });
});

describe("configAuth() with MCPToolHub", () => {
  it("a config file's workload-identity entry reads its assertionFile for every token request", async () => {
    const servers = await serve();
    const dir = await mkdtemp(join(tmpdir(), "mcp-wif-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "token");
    await writeFile(file, `${ASSERTION}-a\n`);
    const { servers: entries } = parseConfig(
      [
        "servers:",
        "  - name: tools",
        "    transport: streamable-http",
        `    url: ${servers.url}`,
        "    auth:",
        "      type: workload-identity",
        "      clientId: my-workload",
        "      assertionFile: ${TOKEN_FILE}",
        "",
      ].join("\n"),
      "yaml",
      { env: { TOKEN_FILE: file } },
    );
    const hub = new MCPToolHub(entries, { authProvider: configAuth });
    cleanups.push(() => hub.close());
    await hub.start();
    assert.deepEqual(hub.status().map((s) => s.state), ["connected"]);
    await writeFile(file, `${ASSERTION}-b\n`);
    servers.expireTokens();
    const result = await hub.registry.get("tools/echo")!.invoke({
      message: "rotated",
    });
    assert.equal(text(result), "rotated");
    assert.deepEqual(
      servers.tokenRequests.map((r) => r.form.get("assertion")),
      [`${ASSERTION}-a`, `${ASSERTION}-b`],
    );
  });
});

describe("expectedIssuer", () => {
  it("sends the client's credentials to no other authorization server", async () => {
    const servers = await serve();
    const adapter = adapterFor("streamable-http", servers.url, {
      authProvider: new WorkloadIdentityProvider({
        clientId: "my-workload",
        assertion: ASSERTION,
        expectedIssuer: "https://auth.example.com",
      }),
    });
    await assert.rejects(
      adapter.connect({ timeoutMs: WAIT_MS }),
      MCPConnectionError,
    );
    assert.equal(
      servers.tokenRequests.length,
      0,
      "nothing sent to the token endpoint",
    );
  });
});

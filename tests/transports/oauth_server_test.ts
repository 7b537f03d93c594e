/**
 * Proves the OAuth test server (`tests/_oauth_server.ts`) right by driving it with
 * the MCP SDK's own client — `StreamableHTTPClientTransport` with an
 * `OAuthClientProvider`, `finishAuth()` — and by asking it wrong things
 * directly. The library's own OAuth tests build on this server.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import {
  assertRegisteredAndAuthorized,
  eventsOf,
  metadataPaths,
  oauthServers,
  type OAuthTestServer,
  TOKEN_AUTH_METHODS,
} from "../_oauth_server.ts";
import {
  approveHeadlessly,
  MemoryOAuthProvider,
  type MemoryOAuthProviderOptions,
  REDIRECT_URL,
} from "../_oauth_client.ts";
import { within } from "../_remote.ts";
import { releaseAfterEach, waitFor } from "../_helpers.ts";

/** Bound on every exchange here; each test ends well within it. */
const WAIT_MS = 10_000;

const cleanups = releaseAfterEach();
const serve = oauthServers(cleanups);

interface Session {
  client: Client;
  transport: StreamableHTTPClientTransport;
  provider: MemoryOAuthProvider;
}

function session(server: OAuthTestServer, provider: MemoryOAuthProvider) {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    authProvider: provider,
  });
  const client = new Client({ name: "sdk-test", version: "1.0.0" });
  cleanups.push(() => client.close());
  return { client, transport, provider };
}

/** Plays the user at the page the provider was last sent to and finishes the login. */
async function finishLogin(s: Session): Promise<void> {
  const url = s.provider.takeAuthorizationUrl();
  assert.ok(url, "the provider was sent to the authorization page");
  const code = await approveHeadlessly(url, s.provider.expectedState);
  await within(s.transport.finishAuth(code), WAIT_MS, "finishAuth()");
}

/**
 * The SDK's documented login: connect fails with UnauthorizedError, the
 * code is exchanged with `finishAuth()`, and a new transport connects.
 */
async function login(
  server: OAuthTestServer,
  options: MemoryOAuthProviderOptions = {},
): Promise<Session> {
  const provider = new MemoryOAuthProvider(options);
  const first = session(server, provider);
  await assert.rejects(
    within(first.client.connect(first.transport), WAIT_MS, "connect()"),
    UnauthorizedError,
  );
  await finishLogin(first);
  const second = session(server, provider);
  await within(second.client.connect(second.transport), WAIT_MS, "connect()");
  return second;
}

/** The part of a tool result these tests read. */
interface CallResult {
  content?: unknown;
  structuredContent?: unknown;
}

function echo(s: Session, message: string): Promise<CallResult> {
  return within<CallResult>(
    s.client.callTool({ name: "echo", arguments: { message } }),
    WAIT_MS,
    "echo",
  );
}

describe("the OAuth test server, driven by the MCP SDK's client", () => {
  it("runs discovery, dynamic registration, PKCE S256 and the resource parameter, then lets the token through", async () => {
    const server = await serve();
    const s = await login(server);
    const result = await echo(s, "hello");
    assert.deepEqual(result.content, [{ type: "text", text: "hello" }]);

    // Fetched again by finishAuth(): the SDK keeps no discovery state of its own.
    assert.deepEqual(metadataPaths(server), [
      "/.well-known/oauth-authorization-server",
    ]);
    assertRegisteredAndAuthorized(server);
    const [exchange] = eventsOf(server, "token");
    assert.equal(exchange?.error, undefined);
    assert.equal(exchange?.params.grant_type, "authorization_code");
    assert.equal(exchange?.params.resource, server.resource);
    assert.ok(exchange?.params.code_verifier, "a PKCE verifier was sent");
    // The registration asked for nothing, so the first supported method was assigned.
    assert.equal(exchange?.authMethod, "client_secret_basic");

    assert.deepEqual(server.exchanges[0], {
      rpcMethod: "initialize",
      tool: undefined,
      token: "",
      status: 401,
    });
    assert.ok(
      server.exchanges.slice(1).every((e) =>
        e.status === "passed" && e.token === exchange?.accessToken
      ),
      "after the login every request carried the token and passed",
    );
  });

  it("answers 401 with resource_metadata and the configured scope, and the SDK asks for that scope", async () => {
    const server = await serve({ challengeScope: "mcp:basic" });
    const response = await fetch(server.url, { method: "POST", body: "{}" });
    await response.body?.cancel();
    assert.equal(response.status, 401);
    assert.equal(
      response.headers.get("www-authenticate"),
      `Bearer realm="mcp", scope="mcp:basic", resource_metadata="${
        server.url.replace(
          "/mcp",
          "/.well-known/oauth-protected-resource/mcp",
        )
      }"`,
    );
    await login(server);
    assert.equal(eventsOf(server, "authorize")[0]?.query.scope, "mcp:basic");
  });

  it("offers scopes_supported in the resource metadata, and omits scope when there is none", async () => {
    const withScopes = await serve({
      resourceScopes: ["mcp:read", "mcp:write"],
    });
    await login(withScopes);
    assert.equal(
      eventsOf(withScopes, "authorize")[0]?.query.scope,
      "mcp:read mcp:write",
    );
    const without = await serve();
    await login(without);
    assert.equal(eventsOf(without, "authorize")[0]?.query.scope, undefined);
  });

  it("serves OpenID metadata for a path-based issuer, with root resource metadata left out of the challenge", async () => {
    const server = await serve({
      metadata: "oidc",
      issuerPath: "/tenant1",
      resourceMetadata: "root",
      resourceMetadataInChallenge: false,
    });
    const s = await login(server);
    await echo(s, "oidc");
    assert.deepEqual(metadataPaths(server), [
      "/.well-known/openid-configuration/tenant1",
    ]);
    assert.ok(
      server.authServer.requests.some((r) =>
        r.path.startsWith("/.well-known/oauth-authorization-server/tenant1")
      ),
      "the SDK tried RFC 8414 first and got a 404",
    );
  });

  for (
    const [name, options] of [
      [
        "metadata at the MCP server's origin",
        { endpointPath: "/oauth", metadata: "oauth" },
      ],
      ["no metadata: the default endpoints", { metadata: "none" }],
    ] as const
  ) {
    it(`supports the 2025-03-26 fallback with ${name}`, async () => {
      const server = await serve({
        resourceMetadata: "none",
        authServerOnMcpOrigin: true,
        ...options,
      });
      const s = await login(server);
      await echo(s, "legacy");
      assert.equal(server.authServer, server.mcp, "one origin");
      assert.equal(eventsOf(server, "register").length, 1);
      assert.equal(eventsOf(server, "token")[0]?.error, undefined);
      assert.equal(
        eventsOf(server, "authorize")[0]?.query.resource,
        undefined,
        "no resource metadata, so no resource parameter",
      );
    });
  }

  for (const method of TOKEN_AUTH_METHODS) {
    it(`authenticates the token request with ${method} when that is the only method`, async () => {
      const server = await serve({ tokenEndpointAuthMethods: [method] });
      await echo(await login(server), method);
      const [exchange] = eventsOf(server, "token");
      assert.equal(exchange?.error, undefined);
      assert.equal(exchange?.authMethod, method);
    });
  }

  it("accepts a pre-registered client when dynamic registration is off", async () => {
    const server = await serve({
      dynamicRegistration: false,
      clients: [{
        client_id: "pre-registered",
        client_secret: "pre-secret",
        redirect_uris: [REDIRECT_URL],
        token_endpoint_auth_method: "client_secret_basic",
      }],
    });
    await echo(
      await login(server, {
        preRegistered: {
          client_id: "pre-registered",
          client_secret: "pre-secret",
        },
      }),
      "pre",
    );
    assert.equal(eventsOf(server, "register").length, 0);
    assert.equal(
      eventsOf(server, "token")[0]?.authMethod,
      "client_secret_basic",
    );
  });

  it("answers 403 insufficient_scope naming only the scope a tool needs; re-authorizing lets the call through", async () => {
    const server = await serve({
      challengeScope: "mcp:read",
      toolScopes: { add: ["mcp:write"] },
      // With a refresh token the SDK refreshes instead of re-authorizing,
      // which cannot widen the scope: it then gives up on the second 403.
      refreshTokens: "never",
    });
    const s = await login(server);
    await echo(s, "read");
    await assert.rejects(
      within(
        s.client.callTool({ name: "add", arguments: { a: 1, b: 2 } }),
        WAIT_MS,
        "add",
      ),
      UnauthorizedError,
      "the step-up needs the user again",
    );
    const refused = server.exchanges.find((e) => e.status === 403);
    assert.equal(refused?.tool, "add");
    await finishLogin(s);
    const result = await within<CallResult>(
      s.client.callTool({ name: "add", arguments: { a: 1, b: 2 } }),
      WAIT_MS,
      "add",
    );
    assert.deepEqual(result.structuredContent, { sum: 3 });
    const scopes = eventsOf(server, "authorize").map((e) => e.query.scope);
    // The SDK (1.32) re-authorizes with the challenge's scope alone, not the union.
    assert.deepEqual(scopes, ["mcp:read", "mcp:write"]);
    const latest = eventsOf(server, "token").at(-1)?.accessToken ?? "";
    assert.deepEqual(server.scopesOf(latest), ["mcp:write"]);
  });

  it("refreshes an expired access token with a rotating refresh token", async () => {
    const server = await serve();
    const s = await login(server);
    const [first] = s.provider.savedTokens;
    assert.ok(first?.refresh_token, "a refresh token was issued");
    // Expire only once the GET stream is open, so one request meets the expiry.
    assert.ok(
      await waitFor(
        () => server.exchanges.some((e) => e.rpcMethod === undefined),
        WAIT_MS,
      ),
      "the GET stream was opened",
    );
    server.expireAccessTokens();
    await echo(s, "after expiry");
    const refreshes = eventsOf(server, "token").filter((e) =>
      e.params.grant_type === "refresh_token"
    );
    assert.equal(refreshes.length, 1);
    const [refresh] = refreshes;
    assert.equal(refresh?.params.grant_type, "refresh_token");
    assert.equal(refresh?.params.refresh_token, first.refresh_token);
    assert.equal(refresh?.params.resource, server.resource);
    assert.equal(refresh?.error, undefined);
    assert.equal(eventsOf(server, "authorize").length, 1, "no new login");
    assert.notEqual(s.provider.tokens()?.refresh_token, first.refresh_token);
    const expired = server.exchanges.find((e) =>
      e.token === first.access_token && e.status === 401
    );
    assert.ok(expired, "the expired token was refused once");
  });

  it("issues refresh tokens only for offline_access when so configured", async () => {
    const offline = await serve({
      refreshTokens: "offline_access",
      scopesSupported: ["mcp:basic", "offline_access"],
      resourceScopes: ["mcp:basic", "offline_access"],
    });
    const withOffline = await login(offline);
    assert.equal(
      eventsOf(offline, "authorize")[0]?.query.scope,
      "mcp:basic offline_access",
    );
    assert.ok(withOffline.provider.tokens()?.refresh_token);
    const online = await serve({
      refreshTokens: "offline_access",
      resourceScopes: ["mcp:basic"],
    });
    assert.equal(
      (await login(online)).provider.tokens()?.refresh_token,
      undefined,
    );
  });
});

describe("the OAuth test server refuses what a strict server refuses", () => {
  /** Registers a public client and gets a code for it; returns what a token request needs. */
  async function codeFor(server: OAuthTestServer, resource = server.resource) {
    const registration = await fetch(`${server.issuer}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        redirect_uris: [REDIRECT_URL],
        token_endpoint_auth_method: "none",
      }),
    });
    const { client_id } = await registration.json();
    const verifier = "v".repeat(50);
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
    );
    const challenge = btoa(String.fromCharCode(...digest)).replace(/\+/g, "-")
      .replace(/\//g, "_").replace(/=+$/, "");
    const url = new URL(`${server.issuer}/authorize`);
    for (
      const [key, value] of Object.entries({
        response_type: "code",
        client_id,
        redirect_uri: REDIRECT_URL,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s1",
        resource,
      })
    ) url.searchParams.set(key, value);
    const code = await approveHeadlessly(url, "s1");
    const tokenRequest = (fields: Record<string, string>) =>
      fetch(`${server.issuer}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "authorization_code",
          client_id,
          code,
          redirect_uri: REDIRECT_URL,
          code_verifier: verifier,
          resource: server.resource,
          ...fields,
        }),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    return { tokenRequest, client_id };
  }

  it("a wrong PKCE verifier, a wrong resource, a reused code, and a client secret from a public client", async () => {
    const server = await serve();
    const { tokenRequest } = await codeFor(server);
    assert.deepEqual(
      (await tokenRequest({ code_verifier: "w".repeat(50) })).body.error,
      "invalid_grant",
    );
    const fresh = await codeFor(server);
    assert.equal(
      (await fresh.tokenRequest({ resource: "http://elsewhere.test/mcp" })).body
        .error,
      "invalid_target",
    );
    const once = await codeFor(server);
    assert.equal((await once.tokenRequest({})).status, 200);
    assert.equal((await once.tokenRequest({})).body.error, "invalid_grant");
    const posted = await codeFor(server);
    const wrongMethod = await posted.tokenRequest({ client_secret: "guess" });
    assert.equal(wrongMethod.status, 401);
    assert.equal(wrongMethod.body.error, "invalid_client");
  });

  it("an authorization request without PKCE or for another resource is redirected back with an error", async () => {
    const server = await serve();
    const url = new URL(`${server.issuer}/authorize`);
    const registration = await fetch(`${server.issuer}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URL] }),
    });
    url.searchParams.set("client_id", (await registration.json()).client_id);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("redirect_uri", REDIRECT_URL);
    url.searchParams.set("resource", server.resource);
    await assert.rejects(approveHeadlessly(url, undefined), /invalid_request/);
    url.searchParams.set("code_challenge", "x".repeat(43));
    url.searchParams.set("code_challenge_method", "S256");
    url.searchParams.set("resource", "http://elsewhere.test/mcp");
    await assert.rejects(approveHeadlessly(url, undefined), /invalid_target/);
    url.searchParams.set("redirect_uri", "http://127.0.0.1:9/elsewhere");
    const unverified = await fetch(url, { redirect: "manual" });
    await unverified.body?.cancel();
    assert.equal(
      unverified.status,
      400,
      "never redirects to an unregistered URI",
    );
  });
});

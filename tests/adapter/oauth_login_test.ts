/**
 * The OAuth authorization-code login through MCPToolAdapter, against the
 * auto-approving test server (`tests/_oauth_server.ts`): `connect()` throws
 * MCPAuthorizationRequiredError with the authorization URL, the "user"
 * approves, `finishAuth(code)` exchanges the code, `connect()` succeeds.
 * Every discovery shape, registration kind, token endpoint auth method and
 * scope source a client meets.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPAuthorizationRequiredError,
  MCPConfigError,
  MCPConnectionError,
  MCPToolAdapter,
  type MCPToolResult,
} from "@cleveragents/mcp-adapter";
import {
  assertRegisteredAndAuthorized,
  eventsOf,
  metadataPaths,
  type OAuthServerOptions,
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
import { releaseAfterEach, text as resultText } from "../_helpers.ts";

/** Bound on every exchange here; each test ends well within it. */
const WAIT_MS = 10_000;

const cleanups = releaseAfterEach();
const serve = oauthServers(cleanups);

interface Login {
  adapter: MCPToolAdapter;
  provider: MemoryOAuthProvider;
  /** What the first connect() threw. */
  required: MCPAuthorizationRequiredError;
}

function adapterFor(
  server: OAuthTestServer,
  provider: MemoryOAuthProvider,
  transport: "streamable-http" | "sse" = "streamable-http",
): MCPToolAdapter {
  const adapter = new MCPToolAdapter(
    { name: "secured", transport, url: server.url },
    {
      authProvider: provider,
      connectTimeoutMs: WAIT_MS,
      requestTimeoutMs: WAIT_MS,
    },
  );
  cleanups.push(() => adapter.disconnect());
  return adapter;
}

/** Whatever `promise` rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await within(promise, WAIT_MS, "the call");
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

/** The documented login: connect, approve at the URL, finishAuth, connect again. */
async function login(
  server: OAuthTestServer,
  options: MemoryOAuthProviderOptions = {},
  transport: "streamable-http" | "sse" = "streamable-http",
): Promise<Login> {
  const provider = new MemoryOAuthProvider(options);
  const adapter = adapterFor(server, provider, transport);
  const required = await rejection(adapter.connect());
  assert.ok(
    required instanceof MCPAuthorizationRequiredError,
    `expected MCPAuthorizationRequiredError, got ${required}`,
  );
  assert.ok(required instanceof MCPConnectionError, "a connection error too");
  assert.equal(required.code, "authorization_required");
  assert.equal(required.name, "MCPAuthorizationRequiredError");
  assert.equal(adapter.connected, false);
  const code = await approveHeadlessly(
    required.authorizationUrl,
    provider.expectedState,
  );
  await within(adapter.finishAuth(code), WAIT_MS, "finishAuth()");
  await within(adapter.connect(), WAIT_MS, "connect()");
  return { adapter, provider, required };
}

/** The result's text, once it is asserted a success. */
function text(result: MCPToolResult): string {
  assert.equal(result.success, true, result.error ?? "");
  return resultText(result);
}

async function echo(adapter: MCPToolAdapter, message: string): Promise<void> {
  assert.equal(text(await adapter.invoke("echo", { message })), message);
}

describe("MCPToolAdapter: OAuth authorization-code login with finishAuth()", () => {
  it("discovers, registers, sends PKCE S256 and the resource, exchanges the code, and every later request carries the token", async () => {
    const server = await serve();
    const { adapter, required } = await login(server);
    await echo(adapter, "hello");

    assert.equal(
      required.authorizationUrl.origin,
      new URL(server.issuer).origin,
    );
    assert.match(required.message, /authorize this client/);
    assert.match(required.message, /finishAuth\(\)/);
    assertRegisteredAndAuthorized(server);
    const tokens = eventsOf(server, "token");
    assert.equal(tokens.length, 1);
    assert.equal(tokens[0]?.error, undefined);
    assert.equal(tokens[0]?.params.grant_type, "authorization_code");
    assert.equal(tokens[0]?.params.resource, server.resource);
    assert.ok(tokens[0]?.params.code_verifier, "a PKCE verifier was sent");
    const token = tokens[0]!.accessToken;
    const after = server.exchanges.slice(
      server.exchanges.findIndex((e) => e.token === token),
    );
    assert.ok(after.length >= 3, "initialize, initialized, tools/list, call");
    assert.ok(
      after.every((e) => e.token === token && e.status === "passed"),
      "after the login every request carried the token and passed",
    );
  });

  it("the same login over legacy SSE, where the GET stream meets the 401", async () => {
    const server = await serve({ transport: "sse" });
    const { adapter } = await login(server, {}, "sse");
    await echo(adapter, "over sse");
    const [authorization] = eventsOf(server, "authorize");
    assert.equal(authorization?.query.resource, server.resource);
    assert.ok(server.resource.endsWith("/sse"));
  });

  for (
    const [name, options, metadataPath] of [
      [
        "path-based resource metadata named in the challenge",
        {},
        "/.well-known/oauth-authorization-server",
      ],
      [
        "root resource metadata not in the challenge, OpenID metadata at a path-based issuer",
        {
          metadata: "oidc",
          issuerPath: "/tenant1",
          resourceMetadata: "root",
          resourceMetadataInChallenge: false,
        },
        "/.well-known/openid-configuration/tenant1",
      ],
      [
        "RFC 8414 metadata at a path-based issuer",
        { issuerPath: "/tenant1" },
        "/.well-known/oauth-authorization-server/tenant1",
      ],
      [
        "the 2025-03-26 fallback: no resource metadata, authorization server metadata on the MCP origin",
        {
          resourceMetadata: "none",
          authServerOnMcpOrigin: true,
          endpointPath: "/oauth",
        },
        "/.well-known/oauth-authorization-server",
      ],
      [
        "the 2025-03-26 fallback: no metadata at all, /authorize, /token and /register on the MCP origin",
        {
          resourceMetadata: "none",
          authServerOnMcpOrigin: true,
          metadata: "none",
        },
        undefined,
      ],
    ] as const
  ) {
    it(`logs in with ${name}`, async () => {
      const server = await serve(options as OAuthServerOptions);
      const { adapter } = await login(server);
      await echo(adapter, "discovered");
      assert.deepEqual(
        metadataPaths(server),
        metadataPath === undefined ? [] : [metadataPath],
      );
      assert.equal(eventsOf(server, "register").length, 1);
      assert.equal(eventsOf(server, "token")[0]?.error, undefined);
      if ((options as OAuthServerOptions).resourceMetadata === "none") {
        assert.equal(
          eventsOf(server, "authorize")[0]?.query.resource,
          undefined,
          "no resource metadata, so no resource parameter",
        );
      }
    });
  }

  for (const method of TOKEN_AUTH_METHODS) {
    it(`authenticates at the token endpoint with ${method} when that is the only method`, async () => {
      const server = await serve({ tokenEndpointAuthMethods: [method] });
      await echo((await login(server)).adapter, method);
      const [exchange] = eventsOf(server, "token");
      assert.equal(exchange?.error, undefined);
      assert.equal(exchange?.authMethod, method);
    });
  }

  it("uses a pre-registered client without dynamic registration", async () => {
    const server = await serve({
      dynamicRegistration: false,
      clients: [{
        client_id: "pre-registered",
        client_secret: "pre-secret-value",
        redirect_uris: [REDIRECT_URL],
        token_endpoint_auth_method: "client_secret_basic",
      }],
    });
    const { adapter, required } = await login(server, {
      preRegistered: {
        client_id: "pre-registered",
        client_secret: "pre-secret-value",
      },
    });
    await echo(adapter, "pre");
    assert.equal(eventsOf(server, "register").length, 0);
    assert.equal(
      required.authorizationUrl.searchParams.get("client_id"),
      "pre-registered",
    );
    assert.equal(
      eventsOf(server, "token")[0]?.authMethod,
      "client_secret_basic",
    );
  });

  for (
    const [name, options, scope] of [
      ["from the challenge (WWW-Authenticate)", {
        challengeScope: "mcp:basic",
        resourceScopes: ["mcp:basic", "mcp:admin"],
      }, "mcp:basic"],
      ["from scopes_supported when the challenge has none", {
        resourceScopes: ["mcp:read", "mcp:write"],
      }, "mcp:read mcp:write"],
      ["omitted when neither names one", {}, undefined],
    ] as const
  ) {
    it(`asks for the scope ${name}`, async () => {
      const server = await serve(options as OAuthServerOptions);
      await login(server);
      assert.equal(eventsOf(server, "authorize")[0]?.query.scope, scope);
      assert.equal(
        eventsOf(server, "register")[0]?.body.scope,
        scope,
        "registration asked for the same scope",
      );
    });
  }

  it("asks for offline_access when it is offered and gets a refresh token; never asks when it is not", async () => {
    const offline = await serve({
      refreshTokens: "offline_access",
      scopesSupported: ["mcp:basic", "offline_access"],
      resourceScopes: ["mcp:basic", "offline_access"],
    });
    const withOffline = await login(offline);
    const asked = eventsOf(offline, "authorize")[0]?.query;
    assert.equal(asked?.scope, "mcp:basic offline_access");
    assert.equal(asked?.prompt, "consent");
    assert.ok(withOffline.provider.tokens()?.refresh_token);
    assert.deepEqual(
      eventsOf(offline, "register")[0]?.body.grant_types,
      ["authorization_code", "refresh_token"],
    );
    const online = await serve({
      refreshTokens: "offline_access",
      scopesSupported: ["mcp:basic"],
      resourceScopes: ["mcp:basic"],
    });
    const withoutOffline = await login(online);
    assert.equal(eventsOf(online, "authorize")[0]?.query.scope, "mcp:basic");
    assert.equal(withoutOffline.provider.tokens()?.refresh_token, undefined);
  });

  it("finishAuth() works before any connect(): a code from an earlier run is exchanged from scratch", async () => {
    const server = await serve();
    const provider = new MemoryOAuthProvider();
    const first = adapterFor(server, provider);
    const required = await rejection(first.connect());
    assert.ok(required instanceof MCPAuthorizationRequiredError);
    const code = await approveHeadlessly(
      required.authorizationUrl,
      provider.expectedState,
    );
    // Another adapter, never connected, on the same provider (the app restarted).
    const second = adapterFor(server, provider);
    await within(second.finishAuth(code), WAIT_MS, "finishAuth()");
    await within(second.connect(), WAIT_MS, "connect()");
    await echo(second, "restarted");
    assert.equal(eventsOf(server, "authorize").length, 1, "one login");
  });

  it("a failed exchange says so without the code, the verifier or the client secret; finishAuth() without OAuth is a config error", async () => {
    const server = await serve();
    const provider = new MemoryOAuthProvider();
    const adapter = adapterFor(server, provider);
    const required = await rejection(adapter.connect());
    assert.ok(required instanceof MCPAuthorizationRequiredError);
    const code = await approveHeadlessly(
      required.authorizationUrl,
      provider.expectedState,
    );
    await adapter.finishAuth(code);
    // The code is single-use: exchanging it again fails at the server.
    const reused = await rejection(adapter.finishAuth(code));
    assert.ok(reused instanceof MCPConnectionError, String(reused));
    const message = String((reused as Error).message);
    assert.match(message, /authorization code exchange .* failed/);
    const secret = eventsOf(server, "register")[0]?.clientId &&
      server.clients.get(eventsOf(server, "register")[0]!.clientId)
        ?.client_secret;
    const verifier = provider.codeVerifier();
    for (const value of [code, verifier, secret]) {
      assert.ok(value && !message.includes(value), "nothing secret quoted");
      assert.ok(!String((reused as Error).stack).includes(value!));
    }

    const plain = new MCPToolAdapter({
      name: "plain",
      transport: "streamable-http",
      url: server.url,
    });
    await assert.rejects(plain.finishAuth("some-code"), MCPConfigError);
  });
});

/**
 * OAuth through MCPToolAdapter, beyond the first 401: step-up (client
 * credentials, and a user's authorization-code grant with a refresh token
 * at hand), refresh, per-request tokens, the bounded retries, and secrets
 * kept out of messages.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import {
  MCPAuthorizationRequiredError,
  type MCPToolAdapter,
} from "@cleveragents/mcp-adapter";
import { sdkSseServer, sdkStreamableServer, within } from "../_remote.ts";
import {
  eventsOf,
  oauthServers,
  type OAuthTestServer,
} from "../_oauth_server.ts";
import { approveHeadlessly, MemoryOAuthProvider } from "../_oauth_client.ts";
import { releaseAfterEach, text } from "../_helpers.ts";
import { remoteAdapters } from "./_shared.ts";

/** Bound on every connect and call here; each test ends well within it. */
const WAIT_MS = 10_000;

/** Everything the current test started; afterEach releases it. */
const cleanups = releaseAfterEach();
const adapterFor = remoteAdapters(cleanups);
const serve = oauthServers(cleanups);

/** One exchange with the protected MCP endpoint: what it carried and how it was answered. */
interface Exchange {
  method: string;
  rpcMethod: string | undefined;
  token: string;
  status: number | "passed";
}

/**
 * An OAuth authorization server and protected-resource metadata for the MCP
 * endpoint at `resourcePath`, served from the same origin as the MCP server.
 * Each token request issues a new token `at-<n>-…`.
 */
function oauthServer(resourcePath: string) {
  const state = {
    origin: "",
    /** Token request bodies, in order. */
    tokenRequests: [] as string[],
    /** Issued tokens, in order. */
    issued: [] as string[],
    /** The MCP endpoint's exchanges, in order. */
    exchanges: [] as Exchange[],
  };
  const json = (res: ServerResponse, status: number, value: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(
      JSON.stringify(value),
    );
  const metadataUrl = () =>
    `${state.origin}/.well-known/oauth-protected-resource${resourcePath}`;
  /** Serves the OAuth documents and the token endpoint; true when it answered. */
  const serveOAuth = (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): boolean => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path.startsWith("/.well-known/oauth-protected-resource")) {
      json(res, 200, {
        resource: `${state.origin}${resourcePath}`,
        authorization_servers: [state.origin],
      });
    } else if (path === "/.well-known/oauth-authorization-server") {
      json(res, 200, {
        issuer: state.origin,
        authorization_endpoint: `${state.origin}/authorize`,
        token_endpoint: `${state.origin}/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["client_credentials"],
        token_endpoint_auth_methods_supported: [
          "client_secret_basic",
          "client_secret_post",
        ],
      });
    } else if (path === "/token") {
      state.tokenRequests.push(String(body));
      const token = `at-${state.issued.length + 1}-${crypto.randomUUID()}`;
      state.issued.push(token);
      json(res, 200, {
        access_token: token,
        token_type: "Bearer",
        expires_in: 3600,
      });
    } else if (path.startsWith("/.well-known/")) {
      res.writeHead(404).end();
    } else return false;
    return true;
  };
  /** Records an exchange with the MCP endpoint and answers `status`, or lets it pass. */
  const answer = (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    status: 401 | 403 | undefined,
  ): boolean => {
    state.exchanges.push({
      method: req.method ?? "",
      rpcMethod: (body as { method?: string } | undefined)?.method,
      token: bearer(req),
      status: status ?? "passed",
    });
    if (status === undefined) return false;
    const challenge = status === 401
      ? `Bearer resource_metadata="${metadataUrl()}"`
      : `Bearer error="insufficient_scope", scope="tools:call", resource_metadata="${metadataUrl()}"`;
    res.writeHead(status, { "www-authenticate": challenge }).end();
    return true;
  };
  const provider = () =>
    new ClientCredentialsProvider({
      clientId: "agent",
      clientSecret: "s3cret-value",
      expectedIssuer: state.origin,
    });
  return { state, serveOAuth, answer, provider };
}

function bearer(req: IncomingMessage): string {
  return (req.headers.authorization ?? "").replace(/^Bearer /, "");
}

describe("OAuth through MCPToolAdapter, beyond the first 401", () => {
  it('on 403 with error="insufficient_scope" runs the SDK auth() flow again and retries the request once with the new token', async () => {
    const oauth = oauthServer("/mcp");
    const { state } = oauth;
    const server = await sdkStreamableServer({
      intercept: (req, res, body) => {
        if (oauth.serveOAuth(req, res, body)) return true;
        const token = bearer(req);
        const rpcMethod = (body as { method?: string } | undefined)?.method;
        // The first token may do everything but call tools.
        const status = !state.issued.includes(token)
          ? 401
          : token === state.issued[0] && rpcMethod === "tools/call"
          ? 403
          : undefined;
        return oauth.answer(req, res, body, status);
      },
    });
    cleanups.push(() => server.close());
    state.origin = server.origin;
    const adapter = adapterFor("streamable-http", server.url, {
      authProvider: oauth.provider(),
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    assert.equal(state.issued.length, 1);
    const result = await adapter.invoke("add", { a: 20, b: 22 }, {
      timeoutMs: WAIT_MS,
    });
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(result.data.structuredContent, { sum: 42 });
    assert.equal(state.tokenRequests.length, 2, "auth() ran once more");
    assert.match(state.tokenRequests[1]!, /grant_type=client_credentials/);
    assert.match(state.tokenRequests[1]!, /resource=/);
    const calls = state.exchanges.filter((e) => e.rpcMethod === "tools/call");
    assert.deepEqual(
      calls.map((e) => [e.token, e.status]),
      [[state.issued[0], 403], [state.issued[1], "passed"]],
      "refused once with the old token, retried once with the new one",
    );
    // Later requests carry the new token.
    assert.equal(
      text(
        await adapter.invoke("echo", { message: "scoped" }, {
          timeoutMs: WAIT_MS,
        }),
      ),
      "scoped",
    );
    assert.equal(state.tokenRequests.length, 2);
    assert.equal(state.exchanges.at(-1)!.token, state.issued[1]);
  });

  it("over legacy SSE: a 401 on the GET and later on a POST each run the SDK auth() flow and retry once with the new token", async () => {
    const oauth = oauthServer("/sse");
    const { state } = oauth;
    const revoked = new Set<string>();
    const server = await sdkSseServer({
      intercept: (req, res, body) => {
        if (oauth.serveOAuth(req, res, body)) return true;
        const token = bearer(req);
        const valid = state.issued.includes(token) && !revoked.has(token);
        return oauth.answer(req, res, body, valid ? undefined : 401);
      },
    });
    cleanups.push(() => server.close());
    state.origin = server.origin;
    const adapter = adapterFor("sse", server.url, {
      authProvider: oauth.provider(),
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    const [first] = state.issued;
    assert.equal(state.tokenRequests.length, 1);
    assert.match(state.tokenRequests[0]!, /resource=/);
    const gets = state.exchanges.filter((e) => e.method === "GET");
    assert.deepEqual(gets.map((e) => [e.token, e.status]), [
      ["", 401],
      [first, "passed"],
    ]);
    assert.ok(
      state.exchanges.filter((e) => e.method === "POST").every((e) =>
        e.token === first && e.status === "passed"
      ),
      "every POST carried the token",
    );
    assert.equal(
      text(
        await adapter.invoke("echo", { message: "one" }, {
          timeoutMs: WAIT_MS,
        }),
      ),
      "one",
    );

    revoked.add(first!); // the server now refuses the first token
    const before = state.exchanges.length;
    const result = await adapter.invoke("echo", { message: "two" }, {
      timeoutMs: WAIT_MS,
    });
    assert.equal(result.success, true, result.error ?? "");
    assert.equal(text(result), "two");
    assert.equal(state.tokenRequests.length, 2, "auth() ran once more");
    assert.deepEqual(
      state.exchanges.slice(before).map((e) => [
        e.method,
        e.rpcMethod,
        e.token,
        e.status,
      ]),
      [
        ["POST", "tools/call", first, 401],
        ["POST", "tools/call", state.issued[1], "passed"],
      ],
      "the POST was refused once and retried once with the new token",
    );
  });
});

/** Runs `step`; on MCPAuthorizationRequiredError plays the user and returns the URL approved. */
async function approveIfAsked(
  adapter: MCPToolAdapter,
  provider: MemoryOAuthProvider,
  step: () => Promise<unknown>,
): Promise<URL | undefined> {
  try {
    await within(step(), WAIT_MS, "step");
    return undefined;
  } catch (error) {
    if (!(error instanceof MCPAuthorizationRequiredError)) throw error;
    const code = await approveHeadlessly(
      error.authorizationUrl,
      provider.expectedState,
    );
    await within(adapter.finishAuth(code), WAIT_MS, "finishAuth()");
    return error.authorizationUrl;
  }
}

/** An adapter logged in through the authorization-code flow. */
async function loggedIn(server: OAuthTestServer) {
  const provider = new MemoryOAuthProvider();
  const adapter = adapterFor("streamable-http", server.url, {
    authProvider: provider,
    connectTimeoutMs: WAIT_MS,
    requestTimeoutMs: WAIT_MS,
  });
  assert.ok(await approveIfAsked(adapter, provider, () => adapter.connect()));
  await within(adapter.connect(), WAIT_MS, "connect()");
  return { adapter, provider };
}

function count(server: OAuthTestServer, rpcMethod: string): number {
  return server.exchanges.filter((e) => e.rpcMethod === rpcMethod).length;
}

describe("OAuth through MCPToolAdapter: a user's grant", () => {
  it("steps up on 403 with the union of the scopes by a new authorization, even with a refresh token, keeping the session and the tool list", async () => {
    const server = await serve({
      challengeScope: "mcp:read",
      toolScopes: { add: ["mcp:write"] },
      refreshTokens: "always",
    });
    const { adapter, provider } = await loggedIn(server);
    assert.ok(provider.tokens()?.refresh_token, "a refresh token is at hand");
    assert.equal((await adapter.discoverTools()).length > 0, true);
    const [initializes, lists] = [
      count(server, "initialize"),
      count(server, "tools/list"),
    ];

    const url = await approveIfAsked(
      adapter,
      provider,
      () => adapter.invoke("add", { a: 1, b: 2 }),
    );
    assert.ok(url, "the step-up needed the user");
    assert.equal(url.searchParams.get("scope"), "mcp:read mcp:write");
    const result = await adapter.invoke("add", { a: 1, b: 2 });
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(result.data.structuredContent, { sum: 3 });

    assert.equal(adapter.connected, true);
    assert.equal(count(server, "initialize"), initializes, "same session");
    assert.equal(count(server, "tools/list"), lists, "tool list kept");
    assert.equal(
      eventsOf(server, "token").filter((e) =>
        e.params.grant_type === "refresh_token"
      ).length,
      0,
      "a refresh cannot widen a grant: none was tried",
    );
    const latest = provider.tokens()!.access_token;
    assert.deepEqual(server.scopesOf(latest), ["mcp:read", "mcp:write"]);
    const calls = server.exchanges.filter((e) => e.tool === "add");
    assert.deepEqual(calls.map((e) => e.status), [403, "passed"]);
    assert.equal(calls[1]!.token, latest, "the retry carried the new token");
    // Reading still works with the wider token.
    assert.equal(text(await adapter.invoke("echo", { message: "r" })), "r");
  });

  it("gives up after 3 authorizations in a row that the server keeps refusing, with a clear error", async () => {
    const server = await serve({
      toolScopes: { add: ["mcp:admin"] },
      withheldScopes: ["mcp:admin"],
      refreshTokens: "never",
    });
    const { adapter, provider } = await loggedIn(server);
    const approved: URL[] = [];
    for (let round = 0; round < 3; round++) {
      const url = await approveIfAsked(
        adapter,
        provider,
        () => adapter.invoke("add", { a: 1, b: 2 }),
      );
      assert.ok(url, `authorization ${round + 1} was asked for`);
      approved.push(url);
    }
    const result = await within(
      adapter.invoke("add", { a: 1, b: 2 }),
      WAIT_MS,
      "add",
    );
    assert.equal(result.success, false);
    assert.equal(result.errorKind, "connection");
    assert.match(
      result.error ?? "",
      /still answers HTTP 403 insufficient_scope \(wants "mcp:admin"\) after 3 authorizations in a row/,
    );
    assert.equal(eventsOf(server, "authorize").length, 1 + 3);
    assert.equal(adapter.connected, true, "the connection stays");
    assert.equal(text(await adapter.invoke("echo", { message: "ok" })), "ok");
  });

  it("refreshes an expired token transparently: concurrent calls share one refresh of the rotating token", async () => {
    const server = await serve();
    const { adapter, provider } = await loggedIn(server);
    await adapter.discoverTools();
    const before = provider.tokens()!;
    server.expireAccessTokens();
    const results = await within(
      Promise.all(
        ["a", "b", "c", "d"].map((message) =>
          adapter.invoke("echo", { message })
        ),
      ),
      WAIT_MS,
      "calls",
    );
    assert.deepEqual(results.map(text), ["a", "b", "c", "d"]);
    const refreshes = eventsOf(server, "token").filter((e) =>
      e.params.grant_type === "refresh_token"
    );
    assert.equal(refreshes.length, 1, "one refresh for all");
    assert.equal(refreshes[0]?.params.refresh_token, before.refresh_token);
    assert.equal(refreshes[0]?.error, undefined);
    assert.equal(eventsOf(server, "authorize").length, 1, "no new login");
    assert.notEqual(provider.tokens()!.access_token, before.access_token);
  });

  it("tokens a provider stored without 'issuer' are refreshed with no console output; onError hears it once", async () => {
    const server = await serve();
    // A provider of an earlier version: it keeps the tokens, not their issuer.
    class Forgetful extends MemoryOAuthProvider {
      override tokens() {
        const tokens = super.tokens();
        return tokens && { ...tokens, issuer: undefined };
      }
    }
    const provider = new Forgetful();
    const notes: Error[] = [];
    const adapter = adapterFor("streamable-http", server.url, {
      authProvider: provider,
      connectTimeoutMs: WAIT_MS,
      requestTimeoutMs: WAIT_MS,
      onError: (error) => notes.push(error),
    });
    assert.ok(await approveIfAsked(adapter, provider, () => adapter.connect()));
    await within(adapter.connect(), WAIT_MS, "connect()");
    const printed: unknown[][] = [];
    const host = console;
    const warn = host.warn;
    host.warn = (...args: unknown[]) => void printed.push(args);
    try {
      for (const message of ["a", "b"]) {
        server.expireAccessTokens();
        const result = await within(
          adapter.invoke("echo", { message }),
          WAIT_MS,
          "call",
        );
        assert.equal(text(result), message);
      }
    } finally {
      host.warn = warn;
    }
    const refreshes = eventsOf(server, "token").filter((e) =>
      e.params.grant_type === "refresh_token"
    );
    assert.equal(refreshes.length, 2, "each expiry refreshed the tokens");
    assert.deepEqual(printed, [], "nothing written to the host's console");
    const said = notes.filter((note) =>
      (note as { code?: string }).code === "oauth_issuer_missing"
    );
    assert.equal(said.length, 1, notes.map((note) => note.message).join("\n"));
    assert.match(
      said[0]!.message,
      /^OAuth: the tokens the authProvider returned have no "issuer".*used with the authorization server "http:\/\/127\.0\.0\.1:\d+\/?".*saveTokens\(\)/,
    );
  });

  it("reads the token from the provider for every request: a token saved elsewhere is used at once", async () => {
    const server = await serve();
    const first = await loggedIn(server);
    const second = await loggedIn(server);
    first.provider.saveTokens(second.provider.tokens()!);
    await first.adapter.invoke("echo", { message: "swapped" });
    assert.equal(
      server.exchanges.at(-1)?.token,
      second.provider.tokens()!.access_token,
    );
  });

  it("keeps tokens out of messages: a server body quoting the access and refresh tokens is redacted", async () => {
    let leak = "";
    const server = await sdkStreamableServer({
      intercept: (req, res, body) => {
        if (
          (body as { method?: string } | undefined)?.method !== "tools/call"
        ) {
          return false;
        }
        res.writeHead(500).end(`rejected ${req.headers.authorization} ${leak}`);
        return true;
      },
    });
    cleanups.push(() => server.close());
    const tokens = {
      access_token: "at-secret-0123456789",
      refresh_token: "rt-secret-9876543210",
      token_type: "Bearer",
    };
    leak = tokens.refresh_token;
    const adapter = adapterFor("streamable-http", server.url, {
      authProvider: { tokens: () => tokens },
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    const result = await adapter.invoke("echo", { message: "x" });
    assert.equal(result.success, false);
    assert.match(result.error ?? "", /HTTP 500/);
    assert.ok(!result.error!.includes(tokens.access_token), result.error!);
    assert.ok(!result.error!.includes(tokens.refresh_token), result.error!);
  });
});

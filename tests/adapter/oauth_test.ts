/** OAuth through MCPToolAdapter, beyond the first 401: step-up, refreshed tokens. */
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import {
  MCPToolAdapter,
  type MCPToolAdapterOptions,
  type MCPToolResult,
} from "@cleveragents/mcp-adapter";
import { sdkSseServer, sdkStreamableServer } from "../_remote.ts";

/** Bound on every connect and call here; each test ends well within it. */
const WAIT_MS = 10_000;

/** Everything the current test started; afterEach releases it. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup().catch(() => {});
  }
});

function adapterFor(
  transport: "streamable-http" | "sse",
  url: string,
  options: MCPToolAdapterOptions = {},
): MCPToolAdapter {
  const adapter = new MCPToolAdapter(
    { name: "remote", transport, url },
    options,
  );
  cleanups.push(() => adapter.disconnect());
  return adapter;
}

function text(result: MCPToolResult): string {
  return (result.data.content as { text?: string }[] | undefined ?? [])
    .map((item) => item.text ?? "").join("");
}

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

import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import {
  MCPConnectionError,
  MCPToolAdapter,
  type MCPToolAdapterOptions,
  type MCPToolResult,
} from "@cleveragents/mcp-adapter";
import type { Extra } from "./_in_memory.ts";
import {
  listen,
  sdkSseServer,
  sdkStreamableServer,
  type TestHttpServer,
  within,
} from "./_remote.ts";
import { waitFor } from "./_helpers.ts";

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

/** Asserts `connect()` fails fast with MCPConnectionError that is not the connect timeout. */
async function assertConnectFails(adapter: MCPToolAdapter): Promise<void> {
  const startedAt = performance.now();
  await assert.rejects(
    within(adapter.connect({ timeoutMs: 5000 }), WAIT_MS, "connect()"),
    (error) => {
      assert.ok(error instanceof MCPConnectionError, `got ${error}`);
      assert.doesNotMatch(error.message, /timed out/);
      assert.match(error.message, /Cannot reach MCP server/);
      return true;
    },
  );
  const tookMs = performance.now() - startedAt;
  assert.ok(tookMs < 4000, `failing took ${Math.round(tookMs)} ms`);
}

describe("remote connection failures through MCPToolAdapter", () => {
  it("TLS to a plain-HTTP port rejects connect() with MCPConnectionError, for both transports", async () => {
    const plain = await listen((_req, res) => void res.end("plain http"));
    cleanups.push(() => plain.close());
    const origin = `https://127.0.0.1:${plain.port}`;
    await assertConnectFails(adapterFor("streamable-http", `${origin}/mcp`));
    await assertConnectFails(adapterFor("sse", `${origin}/sse`));
    // The handshake failed before any HTTP request was made.
    assert.equal(plain.requests.length, 0);
  });

  // `.invalid` never resolves (RFC 6761); without outside network the lookup
  // still fails within milliseconds, so the bound above holds.
  it("a host name that does not resolve rejects connect() with MCPConnectionError, for both transports", async () => {
    const origin = "http://mcp-adapter-test.invalid";
    await assertConnectFails(adapterFor("streamable-http", `${origin}/mcp`));
    await assertConnectFails(adapterFor("sse", `${origin}/sse`));
  });
});

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

describe("server-initiated requests over streamable HTTP", () => {
  /** Adds tools that ask the client back, on the call's own SSE stream or the GET stream. */
  function askingTools(servers: McpServer[]) {
    return (server: McpServer) => {
      servers.push(server);
      server.registerTool(
        "ask",
        { inputSchema: {} },
        async (_args: unknown, extra: Extra) => {
          const answer = await server.server.elicitInput({
            message: "Your name?",
            requestedSchema: {
              type: "object",
              properties: {
                name: { type: "string" },
                color: { type: "string", default: "blue" },
              },
              required: ["name"],
            },
          }, { relatedRequestId: extra.requestId });
          return {
            content: [{ type: "text" as const, text: JSON.stringify(answer) }],
          };
        },
      );
      server.registerTool(
        "roots",
        {
          inputSchema: { stream: z.enum(["request", "standalone"]) },
        },
        async (
          { stream }: { stream: "request" | "standalone" },
          extra: Extra,
        ) => {
          try {
            const answer = await server.server.listRoots(
              undefined,
              stream === "request" ? { relatedRequestId: extra.requestId } : {},
            );
            return {
              content: [{
                type: "text" as const,
                text: JSON.stringify(answer),
              }],
            };
          } catch (error) {
            return {
              isError: true,
              content: [{ type: "text" as const, text: String(error) }],
            };
          }
        },
      );
    };
  }

  async function askingServer(
    servers: McpServer[],
  ): Promise<TestHttpServer & { url: string }> {
    const server = await sdkStreamableServer({ extend: askingTools(servers) });
    cleanups.push(() => server.close());
    return server;
  }

  it("routes elicitation (filling schema defaults) and roots to the handlers, on the call's SSE stream and on the GET stream", async () => {
    const servers: McpServer[] = [];
    const server = await askingServer(servers);
    const asked: string[] = [];
    const adapter = adapterFor("streamable-http", server.url, {
      handlers: {
        elicitation: (request) => {
          asked.push(request.message);
          return { action: "accept", content: { name: "Ada" } };
        },
        roots: () => [{ uri: "file:///work", name: "work" }],
      },
    });
    await adapter.connect({ timeoutMs: WAIT_MS });
    const capabilities = servers[0]!.server.getClientCapabilities();
    assert.ok(capabilities?.elicitation, "elicitation declared");
    assert.ok(capabilities?.roots, "roots declared");
    assert.equal(capabilities?.sampling, undefined, "sampling not declared");

    const elicited = await adapter.invoke("ask", {}, { timeoutMs: WAIT_MS });
    assert.equal(elicited.success, true, elicited.error ?? "");
    assert.deepEqual(JSON.parse(text(elicited)), {
      action: "accept",
      content: { name: "Ada", color: "blue" },
    });
    assert.deepEqual(asked, ["Your name?"]);

    const viaRequest = await adapter.invoke("roots", { stream: "request" }, {
      timeoutMs: WAIT_MS,
    });
    assert.equal(viaRequest.success, true, viaRequest.error ?? "");
    assert.deepEqual(JSON.parse(text(viaRequest)).roots, [
      { uri: "file:///work", name: "work" },
    ]);

    // Without a related request the SDK writes to the GET stream.
    assert.ok(
      await waitFor(
        () => server.requests.some((r) => r.method === "GET"),
        WAIT_MS,
      ),
      "the GET stream was opened",
    );
    const viaGet = await adapter.invoke("roots", { stream: "standalone" }, {
      timeoutMs: WAIT_MS,
    });
    assert.equal(viaGet.success, true, viaGet.error ?? "");
    assert.deepEqual(JSON.parse(text(viaGet)).roots, [
      { uri: "file:///work", name: "work" },
    ]);

    // Each answer went back as a POST within the session.
    const answers = server.requests.filter((r) =>
      r.method === "POST" && r.rpcMethod === undefined
    );
    assert.equal(answers.length, 3);
    for (const post of answers) {
      assert.equal(typeof post.headers["mcp-session-id"], "string");
      assert.equal(post.headers["mcp-protocol-version"], "2025-11-25");
    }
  });

  it("without handlers declares nothing, and the server gets method not found", async () => {
    const servers: McpServer[] = [];
    const server = await askingServer(servers);
    const adapter = adapterFor("streamable-http", server.url);
    await adapter.connect({ timeoutMs: WAIT_MS });
    const capabilities = servers[0]!.server.getClientCapabilities() ?? {};
    assert.equal(capabilities.elicitation, undefined);
    assert.equal(capabilities.roots, undefined);
    const result = await adapter.invoke("roots", { stream: "request" }, {
      timeoutMs: WAIT_MS,
    });
    assert.equal(result.errorKind, "server_error");
    assert.match(result.error!, /Method not found/);
  });
});

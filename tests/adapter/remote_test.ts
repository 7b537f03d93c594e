import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import {
  MCPConnectionError,
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";
import {
  type EverythingServer,
  recordingFetch,
  sdkSseServer,
  sdkStreamableServer,
  startEverything,
} from "../_remote.ts";
import { text } from "../_helpers.ts";
import { ASK_NAME } from "./_shared.ts";
import { connectedAdapter } from "../_in_memory.ts";

/** An adapter configured as a user would: a name, the transport and its URL. */
function remoteAdapter(
  name: string,
  transport: "streamable-http" | "sse",
  url: string,
  options?: MCPToolAdapterOptions,
): MCPToolAdapter {
  return new MCPToolAdapter({ name, transport, url }, options);
}

describe("remote transports through MCPToolAdapter", () => {
  it("streamable-http from config: discovers, invokes, sends headers on every request, never echoes them", async () => {
    const server = await sdkStreamableServer();
    const secret = "Bearer sk-live-do-not-print";
    const adapter = new MCPToolAdapter({
      name: "http",
      transport: "streamable-http",
      url: server.url,
      headers: { Authorization: secret },
    });
    try {
      await adapter.connect();
      assert.equal(adapter.serverInfo?.protocolVersion, "2025-11-25");
      assert.ok(
        (await adapter.discoverTools()).some((tool) => tool.name === "add"),
      );
      const result = await adapter.invoke("add", { a: 1, b: 2 });
      assert.deepEqual(result.data.structuredContent, { sum: 3 });
      assert.ok(server.requests.length >= 4);
      for (const request of server.requests) {
        assert.equal(request.headers.authorization, secret);
      }
      const failed = await adapter.invoke("fail", {});
      assert.doesNotMatch(failed.error!, /sk-live/);
    } finally {
      await adapter.disconnect();
      await server.close();
    }
  });

  it("a 404 for an expired session re-initializes transparently and re-sends the call", async () => {
    const server = await sdkStreamableServer();
    const adapter = remoteAdapter("http", "streamable-http", server.url);
    try {
      await adapter.connect();
      await adapter.discoverTools();
      const lists = () =>
        server.requests.filter((r) => r.rpcMethod === "tools/list").length;
      const initializes = () =>
        server.requests.filter((r) => r.rpcMethod === "initialize").length;
      assert.equal(initializes(), 1);
      await server.dropSessions(); // as a restarted server would
      const result = await adapter.invoke("add", { a: 40, b: 2 });
      assert.equal(result.success, true, result.error ?? "");
      assert.deepEqual(result.data.structuredContent, { sum: 42 });
      assert.equal(initializes(), 2);
      const before = lists();
      await adapter.discoverTools();
      assert.equal(
        lists(),
        before + 1,
        "the tool list was invalidated and fetched again",
      );
      assert.equal(server.sessions.size, 1);
    } finally {
      await adapter.disconnect();
      await server.close();
    }
  });

  it("disconnect() sends DELETE for the session", async () => {
    const server = await sdkStreamableServer();
    const adapter = remoteAdapter("http", "streamable-http", server.url);
    try {
      await adapter.connect();
      await adapter.disconnect();
      assert.ok(
        server.requests.some((r) =>
          r.method === "DELETE" &&
          typeof r.headers["mcp-session-id"] === "string"
        ),
      );
      assert.equal(server.sessions.size, 0);
    } finally {
      await server.close();
    }
  });

  it("options.fetch carries every request", async () => {
    const server = await sdkStreamableServer({ json: true });
    const { fetch, log } = recordingFetch();
    const adapter = remoteAdapter("http", "streamable-http", server.url, {
      fetch,
    });
    try {
      await adapter.connect();
      await adapter.invoke("echo", { message: "hi" });
      assert.ok(log.filter((entry) => entry.method === "POST").length >= 3);
    } finally {
      await adapter.disconnect();
      await server.close();
    }
  });

  it("an unreachable URL is an MCPConnectionError", async () => {
    const server = await sdkStreamableServer();
    const url = server.url;
    await server.close();
    const adapter = remoteAdapter("gone", "streamable-http", url);
    await assert.rejects(
      adapter.connect({ timeoutMs: 5000 }),
      MCPConnectionError,
    );
  });

  it("sse from config: connects and invokes", async () => {
    const server = await sdkSseServer();
    const adapter = remoteAdapter("sse", "sse", server.url);
    try {
      await adapter.connect();
      assert.equal(
        text(await adapter.invoke("echo", { message: "over sse" })),
        "over sse",
      );
    } finally {
      await adapter.disconnect();
      await server.close();
    }
  });
});

describe("server-everything over HTTP", () => {
  let http: EverythingServer;
  let sse: EverythingServer;
  before(async () => {
    [http, sse] = await Promise.all([
      startEverything("streamableHttp"),
      startEverything("sse"),
    ]);
  });
  after(async () => {
    await Promise.all([http?.stop(), sse?.stop()]);
  });

  it("streamableHttp: get-sum, then survives a server restart (its 400 for a stale session)", async () => {
    const adapter = remoteAdapter(
      "everything",
      "streamable-http",
      `${http.origin}/mcp`,
    );
    try {
      await adapter.connect({ timeoutMs: 20_000 });
      assert.match(text(await adapter.invoke("get-sum", { a: 2, b: 3 })), /5/);
      await http.restart();
      const again = await adapter.invoke("get-sum", { a: 4, b: 5 });
      assert.equal(again.success, true, again.error ?? "");
      assert.match(text(again), /9/);
    } finally {
      await adapter.disconnect();
    }
  });

  it("sse mode, given as streamable-http (its URL only), is reached through the SSE fallback", async () => {
    const adapter = remoteAdapter(
      "everything-fallback",
      "streamable-http",
      `${sse.origin}/sse`,
    );
    try {
      await adapter.connect({ timeoutMs: 20_000 });
      assert.equal(adapter.transportKind, "sse");
      assert.match(
        text(await adapter.invoke("echo", { message: "fell back" })),
        /fell back/,
      );
    } finally {
      await adapter.disconnect();
    }
  });

  it("streamableHttp mode, given as sse, fails saying the URL speaks streamable HTTP", async () => {
    const adapter = remoteAdapter(
      "everything-wrong",
      "sse",
      `${http.origin}/mcp`,
    );
    await assert.rejects(
      adapter.connect({ timeoutMs: 20_000 }),
      (error: unknown) => {
        assert.ok(error instanceof MCPConnectionError, String(error));
        assert.match(
          error.message,
          /this URL speaks streamable HTTP; set transport: streamable-http/i,
        );
        return true;
      },
    );
  });

  it("sse: echo", async () => {
    const adapter = remoteAdapter("everything-sse", "sse", `${sse.origin}/sse`);
    try {
      await adapter.connect({ timeoutMs: 20_000 });
      assert.match(
        text(await adapter.invoke("echo", { message: "legacy" })),
        /legacy/,
      );
    } finally {
      await adapter.disconnect();
    }
  });
});

describe("server-initiated requests", () => {
  function askingServer() {
    const server = new McpServer({ name: "asker", version: "1" });
    server.registerTool("ask", { inputSchema: {} }, async () => {
      const answer = await server.server.elicitInput(ASK_NAME);
      return {
        content: [{ type: "text" as const, text: JSON.stringify(answer) }],
      };
    });
    server.registerTool("sample", { inputSchema: {} }, async () => {
      const answer = await server.server.createMessage({
        messages: [{ role: "user", content: { type: "text", text: "2+2?" } }],
        maxTokens: 10,
      });
      return {
        content: [{ type: "text" as const, text: JSON.stringify(answer) }],
      };
    });
    server.registerTool("roots", { inputSchema: {} }, async () => {
      try {
        const answer = await server.server.listRoots();
        return {
          content: [{ type: "text" as const, text: JSON.stringify(answer) }],
        };
      } catch (error) {
        return {
          isError: true,
          content: [{ type: "text" as const, text: String(error) }],
        };
      }
    });
    return server;
  }

  async function connect(
    handlers?: ConstructorParameters<typeof MCPToolAdapter>[1],
  ) {
    const server = askingServer();
    const adapter = await connectedAdapter(server, "asker", handlers);
    return { adapter, server };
  }

  it("routes elicitation, sampling and roots to the handlers and declares them", async () => {
    const { adapter, server } = await connect({
      handlers: {
        elicitation: (request) => {
          assert.equal(request.message, "Your name?");
          return { action: "accept", content: { name: "Ada" } };
        },
        sampling: () => ({
          role: "assistant",
          content: { type: "text", text: "4" },
          model: "test-model",
        }),
        roots: () => [{ uri: "file:///work", name: "work" }],
      },
    });
    try {
      const capabilities = server.server.getClientCapabilities();
      assert.ok(
        capabilities?.elicitation && capabilities.sampling &&
          capabilities.roots,
      );
      const elicited = JSON.parse(text(await adapter.invoke("ask")));
      assert.deepEqual(elicited, {
        action: "accept",
        content: { name: "Ada", color: "blue" },
      });
      const sampled = JSON.parse(text(await adapter.invoke("sample")));
      assert.equal(sampled.model, "test-model");
      assert.equal(sampled.content.text, "4");
      const roots = JSON.parse(text(await adapter.invoke("roots")));
      assert.deepEqual(roots.roots, [{ uri: "file:///work", name: "work" }]);
    } finally {
      await adapter.disconnect();
    }
  });

  it("without handlers, no capability is declared and the server gets method not found", async () => {
    const { adapter, server } = await connect();
    try {
      const capabilities = server.server.getClientCapabilities() ?? {};
      assert.equal(capabilities.elicitation, undefined);
      assert.equal(capabilities.sampling, undefined);
      const result = await adapter.invoke("roots");
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /Method not found/);
    } finally {
      await adapter.disconnect();
    }
  });
});

describe("OAuth", () => {
  it("on 401 runs the SDK auth() flow with the provider and retries with the token", async () => {
    const token = "at-" + crypto.randomUUID();
    const tokenRequests: string[] = [];
    let origin = "";
    const server = await sdkStreamableServer({
      intercept: (req: IncomingMessage, res: ServerResponse, body: unknown) => {
        const path = new URL(req.url ?? "/", "http://x").pathname;
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { "content-type": "application/json" }).end(
            JSON.stringify(value),
          );
        if (path.startsWith("/.well-known/oauth-protected-resource")) {
          json(200, {
            resource: `${origin}/mcp`,
            authorization_servers: [origin],
          });
          return true;
        }
        if (path === "/.well-known/oauth-authorization-server") {
          json(200, {
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            response_types_supported: ["code"],
            grant_types_supported: ["client_credentials"],
            token_endpoint_auth_methods_supported: [
              "client_secret_basic",
              "client_secret_post",
            ],
          });
          return true;
        }
        if (path === "/token") {
          tokenRequests.push(String(body));
          json(200, {
            access_token: token,
            token_type: "Bearer",
            expires_in: 3600,
          });
          return true;
        }
        if (path.startsWith("/.well-known/")) {
          res.writeHead(404).end();
          return true;
        }
        if (req.headers.authorization !== `Bearer ${token}`) {
          res.writeHead(401, {
            "www-authenticate":
              `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
          }).end();
          return true;
        }
        return false;
      },
    });
    origin = server.origin;
    const provider = new ClientCredentialsProvider({
      clientId: "agent",
      clientSecret: "s3cret-value",
      expectedIssuer: origin,
    });
    const adapter = new MCPToolAdapter({
      name: "secured",
      transport: "streamable-http",
      url: server.url,
    }, {
      authProvider: provider,
    });
    try {
      await adapter.connect({ timeoutMs: 10_000 });
      assert.equal(tokenRequests.length, 1);
      assert.match(tokenRequests[0]!, /grant_type=client_credentials/);
      assert.match(
        tokenRequests[0]!,
        /resource=/,
        "the resource parameter is sent",
      );
      const result = await adapter.invoke("add", { a: 1, b: 1 });
      assert.deepEqual(result.data.structuredContent, { sum: 2 });
    } finally {
      await adapter.disconnect();
      await server.close();
    }
  });
});

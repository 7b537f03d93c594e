/** Server-initiated requests (elicitation, sampling, roots) over streamable HTTP. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Extra } from "../_in_memory.ts";
import { sdkStreamableServer, type TestHttpServer } from "../_remote.ts";
import { releaseAfterEach, text, waitFor } from "../_helpers.ts";
import { ASK_NAME, remoteAdapters } from "./_shared.ts";

/** Bound on every connect and call here; each test ends well within it. */
const WAIT_MS = 10_000;

/** Everything the current test started; afterEach releases it. */
const cleanups = releaseAfterEach();
const adapterFor = remoteAdapters(cleanups);

describe("server-initiated requests over streamable HTTP", () => {
  /** Adds tools that ask the client back, on the call's own SSE stream or the GET stream. */
  function askingTools(servers: McpServer[]) {
    return (server: McpServer) => {
      servers.push(server);
      server.registerTool(
        "ask",
        { inputSchema: {} },
        async (_args: unknown, extra: Extra) => {
          const answer = await server.server.elicitInput(ASK_NAME, {
            relatedRequestId: extra.requestId,
          });
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
    // The modern probe met a server of its own, which was never initialized.
    const capabilities = servers.map((s) => s.server.getClientCapabilities())
      .find((c) => c !== undefined);
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

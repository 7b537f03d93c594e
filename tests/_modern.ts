/**
 * Real modern-era peers: servers written with the official SDK v2
 * (`@modelcontextprotocol/server` 2.x), which speak MCP 2026-07-28 and, by
 * default, the 2025 era too. `buildModernServer` is their one tool surface;
 * `startModernHttp` serves it with `createMcpHandler` on 127.0.0.1 (an
 * ephemeral port, in this process) and `modernStdioCommand` starts
 * `fixtures/modern_server` with `serveStdio`. `legacy: "reject"` makes
 * either a modern-only server.
 *
 * @module
 */

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Buffer } from "node:buffer";
import {
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  McpServer,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { fixturePath, runtimeCommand } from "./_helpers.ts";
import { addContent, type ContentNotifier } from "./_modern_content.ts";

/** Whether the server also serves 2025-era clients. */
export type LegacyMode = "serve" | "reject";

/** What the servers of this process saw (HTTP: shared by the per-request servers). */
const counters = { cancelled: 0 };

/** Tools added with `add_tool`, kept across the per-request servers of HTTP. */
const added = new Set<string>();

function registerAdded(server: McpServer, name: string): void {
  server.registerTool(name, { description: `added tool ${name}` }, () => ({
    content: [{ type: "text", text: `hello from ${name}` }],
  }));
}

/** A schema with `x-mcp-header` keys, which the SDK's schema type does not name. */
function annotated(schema: Record<string, unknown>): { type: "object" } {
  return schema as { type: "object" };
}

/**
 * The tools every modern test server offers.
 *
 * @param changed Called after `add_tool` changed the list; over HTTP it
 * tells the listeners (the server instance lives for one request).
 * @param notify How resource changes are announced (`_modern_content.ts`);
 * default: by the server itself (stdio).
 */
export function buildModernServer(
  changed: () => void = () => {},
  notify?: ContentNotifier,
): McpServer {
  const server = new McpServer(
    { name: "modern-fixture", version: "2.0.0" },
    {
      capabilities: { logging: {}, resources: { subscribe: true } },
      instructions: "SDK v2 test fixture",
    },
  );
  addContent(
    server,
    notify ?? {
      resourceUpdated: (uri) => void server.server.sendResourceUpdated({ uri }),
      resourcesChanged: () => server.sendResourceListChanged(),
    },
  );
  server.registerTool("get_sum", {
    description: "Adds two numbers",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
  }, ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
  server.registerTool("echo", {
    description: "Echoes text (a JSON Schema tool)",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    }),
  }, (args) => ({
    content: [{ type: "text", text: (args as { text: string }).text }],
  }));
  server.registerTool("weather", {
    description: "Mirrors region into Mcp-Param-Region (x-mcp-header)",
    inputSchema: fromJsonSchema(annotated({
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        days: { type: "integer", "x-mcp-header": "Days" },
        note: { type: "string" },
      },
      required: ["region"],
    })),
  }, (args) => ({
    content: [{
      type: "text",
      text: `weather for ${(args as { region: string }).region}`,
    }],
  }));
  server.registerTool("bad_header", {
    description: "x-mcp-header on a number: invalid, left out on HTTP",
    inputSchema: fromJsonSchema(annotated({
      type: "object",
      properties: { score: { type: "number", "x-mcp-header": "Score" } },
    })),
  }, () => ({ content: [{ type: "text", text: "called" }] }));
  server.registerTool("log_message", {
    description: "Logs at info and warning, then answers",
    inputSchema: z.object({ message: z.string() }),
  }, async ({ message }, context) => {
    await context.mcpReq.log("info", message, "fixture");
    await context.mcpReq.log("warning", { warned: message }, "fixture");
    return { content: [{ type: "text", text: `logged: ${message}` }] };
  });
  server.registerTool("progress", {
    description: "Reports progress `steps` times",
    inputSchema: z.object({ steps: z.number().int().min(1).max(100) }),
  }, async ({ steps }, context) => {
    const progressToken = context.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (progressToken !== undefined) {
        await context.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken, progress: i, total: steps },
        });
      }
    }
    return { content: [{ type: "text", text: `done ${steps} steps` }] };
  });
  server.registerTool("hang", {
    description:
      "Reports progress once, then never answers; counts the calls the client cancelled",
  }, async (context) => {
    const progressToken = context.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      await context.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken, progress: 1 },
      });
    }
    return await new Promise((resolve) => {
      const signal = context.mcpReq.signal;
      const stop = () => {
        counters.cancelled++;
        resolve({ content: [{ type: "text", text: "cancelled" }] });
      };
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
  });
  server.registerTool("counters", {
    description: "How many hang calls were cancelled",
  }, () => ({
    content: [{ type: "text", text: String(counters.cancelled) }],
  }));
  server.registerTool("structured", {
    description: "Returns structured content that matches its output schema",
    inputSchema: z.object({ n: z.number() }),
    outputSchema: z.object({ doubled: z.number() }),
  }, ({ n }) => ({
    content: [{ type: "text", text: String(n * 2) }],
    structuredContent: { doubled: n * 2 },
  }));
  const nameSchema = z.object({ name: z.string() });
  server.registerTool("ask_name", {
    description: "Asks the user for a name (elicitation)",
  }, (context) => {
    const view = inputResponse(context.mcpReq.inputResponses, "who");
    if (view.kind === "elicit" && view.action !== "accept") {
      return {
        content: [{ type: "text", text: `elicitation ${view.action}` }],
        isError: true,
      };
    }
    const got = acceptedContent(
      context.mcpReq.inputResponses,
      "who",
      nameSchema,
    );
    if (!got) {
      return inputRequired({
        inputRequests: {
          who: inputRequired.elicit({
            message: "What is your name?",
            requestedSchema: {
              type: "object",
              properties: { name: { type: "string" } },
              required: ["name"],
            },
          }),
        },
      });
    }
    return { content: [{ type: "text", text: `hello ${got.name}` }] };
  });
  server.registerTool("open_page", {
    description: "Asks the user to open a page (URL-mode elicitation)",
    // `message` replaces the question's text: a test sends one that is not text.
    inputSchema: z.object({ url: z.string(), message: z.unknown().optional() }),
  }, ({ url, message }, context) => {
    const view = inputResponse(context.mcpReq.inputResponses, "page");
    if (view.kind === "elicit") {
      return { content: [{ type: "text", text: `page ${view.action}` }] };
    }
    return inputRequired({
      inputRequests: {
        page: {
          method: "elicitation/create",
          params: { mode: "url", message: message ?? "Sign in, please", url },
        },
      },
    } as never);
  });
  server.registerTool("add_tool", {
    description: "Adds a tool; the server announces the change",
    inputSchema: z.object({ name: z.string() }),
  }, ({ name }) => {
    if (!added.has(name)) {
      added.add(name);
      registerAdded(server, name);
      changed();
    }
    return { content: [{ type: "text", text: `added ${name}` }] };
  });
  for (const name of added) registerAdded(server, name);
  return server;
}

/** A listening modern HTTP server. */
export interface ModernHttpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The requests it saw: their JSON-RPC method and headers. */
  seen: { method: string | undefined; headers: IncomingMessage["headers"] }[];
  /** Stops listening and drops every open stream. */
  close(): Promise<void>;
}

/**
 * Serves {@linkcode buildModernServer} (or `build`'s servers) with
 * `createMcpHandler` on a `node:http` server: the handler is web-standard,
 * so a small bridge turns each request into a `Request` and streams the
 * `Response` back.
 *
 * @param build Makes the server of one request; told how to announce a
 * tool-list change.
 */
export async function startModernHttp(
  legacy: LegacyMode = "serve",
  build: (changed: () => void, notify: ContentNotifier) => McpServer =
    buildModernServer,
): Promise<ModernHttpServer> {
  const handler = createMcpHandler(
    () => build(() => handler.notify.toolsChanged(), handler.notify),
    legacy === "reject" ? { legacy: "reject" } : {},
  );
  const seen: ModernHttpServer["seen"] = [];
  const open = new Set<AbortController>();
  const server = createServer(async (req, res) => {
    const abort = new AbortController();
    open.add(abort);
    res.on("close", () => {
      open.delete(abort);
      if (!res.writableFinished) abort.abort();
    });
    try {
      const chunks: Uint8Array[] = [];
      for await (const chunk of req) chunks.push(chunk as Uint8Array);
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
      let method: string | undefined;
      try {
        method = body && JSON.parse(body.toString("utf8")).method;
      } catch {
        method = undefined;
      }
      seen.push({ method, headers: req.headers });
      if (!req.url?.startsWith("/mcp")) {
        res.writeHead(404).end();
        return;
      }
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers)) {
        if (Array.isArray(value)) value.forEach((v) => headers.append(key, v));
        else if (value !== undefined) headers.set(key, value);
      }
      const response = await handler.fetch(
        new Request(`http://127.0.0.1${req.url}`, {
          method: req.method,
          headers,
          body: req.method === "POST" ? body : undefined,
          signal: abort.signal,
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        const reader = response.body.getReader();
        abort.signal.addEventListener(
          "abort",
          () => reader.cancel().catch(() => {}),
        );
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
      }
      res.end();
    } catch {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: async () => {
      for (const abort of open) abort.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handler.close();
    },
  };
}

/** `fixtures/modern_server` (`serveStdio`) as a command of this runtime. */
export function modernStdioCommand(
  legacy: LegacyMode = "serve",
): { command: string; args: string[] } {
  const { command, args } = runtimeCommand(
    fixturePath(
      `modern_server${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
    ),
  );
  return { command, args: [...args, legacy] };
}

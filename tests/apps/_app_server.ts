/**
 * An MCP Apps server written with the official SDK v2 (`McpServer` of
 * `@modelcontextprotocol/server`): tools with `_meta.ui` (model and app,
 * app only, a bad resource URI, the deprecated flat key), `ui://`
 * resources (a good one with sandbox metadata, a wrong MIME type, a large
 * one, a blob, a hostile one whose CSP lists 200,000 entries) and
 * instructions. `client_caps` answers with the client
 * capabilities the server saw.
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export const APP_URI = "ui://fixture/app.html";
export const APP_HTML = "<!doctype html><html><body>app</body></html>";
export const INSTRUCTIONS =
  "Call show_chart to draw; refresh_chart is the app's.";

/** The hostile CSP of `ui://fixture/flood.html`: 200,000 entries, about 0.8 MB. */
export const FLOOD_URI = "ui://fixture/flood.html";
let flood: string[] | undefined;

/** What the app tools did, seen from the server. */
export const calls: string[] = [];

/**
 * The server. One instance per HTTP request in the modern era; the client
 * capabilities each request declared are in `seenCapabilities`.
 */
export function buildAppServer(
  seenCapabilities: unknown[] = [],
  instructions: string = INSTRUCTIONS,
): McpServer {
  const server = new McpServer(
    { name: "app-fixture", version: "1.0.0" },
    { capabilities: { resources: {} }, instructions },
  );
  const text = (value: string) => ({
    content: [{ type: "text" as const, text: value }],
  });
  server.registerTool("show_chart", {
    description: "Draws a chart",
    inputSchema: z.object({ title: z.string() }),
    _meta: { ui: { resourceUri: APP_URI, visibility: ["model", "app"] } },
  }, ({ title }) => text(`chart ${title}`));
  server.registerTool("refresh_chart", {
    description: "Refreshes the chart's data (the app calls this)",
    inputSchema: z.object({}),
    _meta: { ui: { resourceUri: APP_URI, visibility: ["app"] } },
  }, () => {
    calls.push("refresh_chart");
    return text("refreshed");
  });
  server.registerTool("bad_uri", {
    description: "Names an https: app",
    _meta: { ui: { resourceUri: "https://evil.example/app.html" } },
  }, () => text("ok"));
  server.registerTool("flat_key", {
    description: "Uses the deprecated flat key",
    _meta: { "ui/resourceUri": APP_URI },
  }, () => text("ok"));
  server.registerTool("odd_visibility", {
    description: "A visibility that is not a list",
    _meta: { ui: { visibility: "app" } },
  }, () => text("ok"));
  server.registerTool("client_caps", {
    description: "The client capabilities this request declared",
  }, (ctx: unknown) => {
    const seen = (ctx as { mcpReq?: { clientCapabilities?: unknown } }).mcpReq
      ?.clientCapabilities ?? server.server.getClientCapabilities();
    seenCapabilities.push(seen);
    return text(JSON.stringify(seen ?? null));
  });
  const resource = (
    name: string,
    uri: string,
    content: Record<string, unknown>,
  ) =>
    server.registerResource(name, uri, { mimeType: "text/html" }, () => ({
      contents: [{ uri, ...content } as { uri: string; text: string }],
    }));
  resource("app", APP_URI, {
    mimeType: "text/html;profile=mcp-app",
    text: APP_HTML,
    _meta: {
      ui: {
        csp: {
          connectDomains: [
            "https://api.example.com",
            "https://a.com; script-src *",
          ],
          resourceDomains: ["https://*.cdn.example.com"],
        },
        permissions: { camera: {}, telepathy: {} },
        domain: "abc.sandbox.example",
        prefersBorder: true,
      },
    },
  });
  resource("plain", "ui://fixture/plain.html", {
    mimeType: "text/html",
    text: APP_HTML,
  });
  resource("large", "ui://fixture/large.html", {
    mimeType: "text/html;profile=mcp-app",
    text: `<!doctype html>${"x".repeat(300_000)}`,
  });
  resource("blob", "ui://fixture/blob.html", {
    mimeType: "text/html; profile=mcp-app",
    blob: btoa(APP_HTML),
  });
  resource("note", "file:///etc/hosts", { mimeType: "text/plain", text: "no" });
  flood ??= Array.from({ length: 200_000 }, (_, i) => `x${i}`);
  resource("flood", FLOOD_URI, {
    mimeType: "text/html;profile=mcp-app",
    text: APP_HTML,
    _meta: {
      ui: {
        csp: {
          connectDomains: ["https://api.example.com", ...flood],
          frameDomains: flood,
        },
        domain: "not a host",
      },
    },
  });
  return server;
}

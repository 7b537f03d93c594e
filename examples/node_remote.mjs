// deno-lint-ignore-file no-console
/**
 * Node: connect to a remote MCP server over streamable HTTP, then list its
 * tools or call one.
 *
 * ```sh
 * npm install @cleveragents/mcp-adapter
 * node node_remote.mjs https://example.com/mcp                        # list tools
 * node node_remote.mjs https://example.com/mcp get-sum '{"a":2,"b":3}' # call one
 * ```
 *
 * Set `MCP_AUTHORIZATION` to send an `Authorization` header (e.g.
 * `Bearer <token>`); header values never appear in errors. Exits 1 when the
 * call fails, 2 on bad usage.
 *
 * @module
 */

import process from "node:process";
import { MCPToolAdapter } from "@cleveragents/mcp-adapter";

const [url, tool, json = "{}"] = process.argv.slice(2);
if (!url) {
  console.error("usage: node node_remote.mjs <url> [tool] [json arguments]");
  process.exit(2);
}
const config = { name: "remote", transport: "streamable-http", url };
if (process.env.MCP_AUTHORIZATION) {
  config.headers = { Authorization: process.env.MCP_AUTHORIZATION };
}

const adapter = new MCPToolAdapter(config);
await adapter.connect();
try {
  if (tool === undefined) {
    for (const { name, description } of await adapter.discoverTools()) {
      console.log(`${name}: ${description}`);
    }
  } else {
    const result = await adapter.invoke(tool, JSON.parse(json));
    console.log(JSON.stringify(result, null, 2));
    if (!result.success) process.exitCode = 1;
  }
} finally {
  await adapter.disconnect();
}

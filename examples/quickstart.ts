// deno-lint-ignore-file no-console
/**
 * The README's first example, kept runnable: CI runs it (`deno task
 * quickstart`). It starts the official filesystem server through npx, so it
 * also shows that disconnect() stops what npx started.
 *
 * @module
 */

import { MCPToolAdapter, ToolRegistry } from "@cleveragents/mcp-adapter";

const adapter = new MCPToolAdapter({
  name: "files",
  transport: "stdio",
  command: "npx",
  args: ["-y", "@modelcontextprotocol/server-filesystem", "."],
});

await adapter.connect({ timeoutMs: 60_000 });
try {
  const tools = await adapter.discoverTools({ exclude: ["write_*", "edit_*"] });
  console.log(tools.map((tool) => tool.name));

  const result = await adapter.invoke("list_directory", { path: "." }, {
    timeoutMs: 10_000,
  });
  if (result.success) console.log(result.data.content);
  else console.error(result.errorKind, result.error);

  const registry = new ToolRegistry();
  await adapter.registerTools(registry); // "files/list_directory", ...
  console.log(registry.get("files/read_file")?.capability); // { readOnly: true, writes: false }
} finally {
  await adapter.disconnect(); // the server process is gone when this resolves
}

/**
 * The demo: start the example notes server over stdio, discover its tools,
 * show inferred capabilities, call tools, show a validation failure caught
 * before the call, and register everything into a ToolRegistry. Then do it
 * the everyday way: load examples/mcp.yaml and let an MCPToolHub connect its
 * servers and register their tools, with aliases for model APIs.
 *
 * Run it: `deno task demo`.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import {
  MCPToolAdapter,
  MCPToolHub,
  type MCPToolResult,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import { loadConfig } from "@cleveragents/mcp-adapter/config";

const root = fileURLToPath(new URL("..", import.meta.url));
const bold = (text: string) => Deno.noColor ? text : `\x1b[1m${text}\x1b[0m`;
const dim = (text: string) => Deno.noColor ? text : `\x1b[2m${text}\x1b[0m`;
// deno-lint-ignore no-console -- a demo prints
const say = (text = "") => console.log(text);
const heading = (text: string) => say(`\n${bold(`▸ ${text}`)}`);
const show = (result: MCPToolResult) => {
  const status = result.success ? "ok" : `failed (${result.errorKind})`;
  say(`  ${status} in ${result.durationMs.toFixed(1)} ms`);
  if (result.error) say(`  error: ${result.error}`);
  for (
    const item of (result.data.content ?? []) as {
      type: string;
      text?: string;
    }[]
  ) {
    if (item.type === "text") say(`  ${dim("text:")} ${item.text}`);
  }
  if (result.data.structuredContent) {
    say(
      `  ${dim("structured:")} ${
        JSON.stringify(result.data.structuredContent)
      }`,
    );
  }
};

const adapter = new MCPToolAdapter({
  name: "notes",
  transport: "stdio",
  command: Deno.execPath(),
  // Fetches only the packages the server imports, not all of deno.json's.
  args: [
    "run",
    "--no-prompt",
    "--unstable-npm-lazy-caching",
    "examples/notes_server.ts",
  ],
  cwd: root,
});

heading("connect()");
const started = performance.now();
await adapter.connect();
const info = adapter.serverInfo!;
say(
  `  ${info.serverInfo.name} ${info.serverInfo.version}, protocol ${info.protocolVersion}, ${
    (performance.now() - started).toFixed(0)
  } ms (spawn + handshake)`,
);

try {
  heading("discoverTools() and inferred capabilities");
  const tools = await adapter.discoverTools();
  const width = Math.max(...tools.map((tool) => tool.name.length));
  for (const tool of tools) {
    const { readOnly, writes } = MCPToolAdapter.inferCapabilities(tool.name);
    const flags = readOnly ? "read-only" : writes ? "writes   " : "—        ";
    say(`  ${tool.name.padEnd(width)}  ${flags}  ${dim(tool.description)}`);
  }

  heading('invoke("search_notes", { query: "milk" })');
  show(await adapter.invoke("search_notes", { query: "milk" }));

  heading(
    'invoke("create_note", { title: "Demo", body: "Written through the adapter" })',
  );
  show(
    await adapter.invoke("create_note", {
      title: "Demo",
      body: "Written through the adapter",
    }),
  );

  heading('invoke("get_note", { id: 3 }) — structured content');
  show(await adapter.invoke("get_note", { id: 3 }));

  heading(
    'invoke("create_note", { title: "", tags: "urgent" }) — caught before the call',
  );
  show(await adapter.invoke("create_note", { title: "", tags: "urgent" }));

  heading('invoke("get_note", { id: 99 }) — the server says no');
  show(await adapter.invoke("get_note", { id: 99 }));

  heading('invoke("word_count", {}, { onProgress }) — progress reports');
  show(
    await adapter.invoke("word_count", {}, {
      onProgress: ({ progress, total, message }) =>
        say(
          `  ${dim(`progress ${progress}/${total ?? "?"}`)} ${message ?? ""}`,
        ),
    }),
  );

  heading("registerTools(registry) — names, server annotations, provenance");
  const registry = new ToolRegistry();
  await adapter.registerTools(registry, "notes", {
    overrides: { word_count: { readOnly: true } },
  });
  for (const tool of registry.list()) {
    const { readOnly, writes } = tool.capability;
    say(
      `  ${
        tool.name.padEnd(width + 6)
      }  readOnly=${readOnly} writes=${writes}  source=${tool.source} server=${tool.sourceMetadata.server} checkpointable=${tool.checkpointable}`,
    );
  }
  heading('registry.get("notes/list_notes").invoke()');
  show(await registry.get("notes/list_notes")!.invoke());
} finally {
  heading("disconnect()");
  await adapter.disconnect();
  say(`  connected: ${adapter.connected}; the server process has exited`);
}

heading("MCPToolHub — the servers of examples/mcp.yaml in one registry");
const { servers } = await loadConfig(
  fileURLToPath(new URL("./mcp.yaml", import.meta.url)),
);
// The example config runs `deno`, which need not be on PATH (npx deno): use
// this Deno, started in the repository wherever the demo is run from.
const hub = new MCPToolHub(servers.map((entry) => {
  const config = entry.config;
  if (config.transport !== "stdio") return entry;
  return {
    ...entry,
    config: {
      ...config,
      command: config.command === "deno" ? Deno.execPath() : config.command,
      cwd: config.cwd ?? root,
    },
  };
}));
try {
  for (const status of await hub.start()) {
    say(
      status.state === "connected"
        ? `  ${status.name}: connected, protocol ${status.protocolVersion}, ${status.toolCount} tools under "${status.namespace}/", ${status.connectMs} ms`
        : `  ${status.name}: ${status.state}${
          status.error ? ` — ${status.error}` : ""
        }`,
    );
  }
  const tools = hub.registry.list();
  const nameWidth = Math.max(...tools.map((tool) => tool.name.length));
  for (const tool of tools) {
    say(
      `  ${tool.name.padEnd(nameWidth)}  ${dim("alias")} ${
        hub.registry.aliasOf(tool.name)
      }`,
    );
  }
  heading(
    'hub.registry.resolve("notes__search_notes").invoke({ query: "oat" })',
  );
  show(
    await hub.registry.resolve("notes__search_notes")!.invoke({ query: "oat" }),
  );
} finally {
  await hub.close();
  say(`  hub closed: ${hub.registry.size} tools registered, servers stopped`);
}

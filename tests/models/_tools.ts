/**
 * Helpers of the models tests: registries built from captured tool lists,
 * fixture and golden files, and a registry of the real server-everything.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import process from "node:process";
import { gunzipSync } from "node:zlib";
import {
  MCPToolAdapter,
  type MCPToolDescriptor,
  type MCPToolResult,
  type RegisteredTool,
  resolveCapability,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import { everythingCommand } from "../_everything.ts";

/** A fixture file of `tests/models/fixtures/`, parsed. */
export function readFixture<T>(name: string): T {
  return JSON.parse(
    readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"),
  ) as T;
}

/** One tool of the toolsearch catalog: its server, and its `tools/list` entry. */
export interface CatalogTool extends MCPToolDescriptor {
  /** The catalog's server id, e.g. `"notion"`. */
  server: string;
}

/**
 * The 1,577 tools of `fixtures/catalog.json.gz` (58 servers' `tools/list`,
 * see `fixtures/README.md`), or one server's.
 */
export function catalogTools(server?: string): CatalogTool[] {
  const gz = readFileSync(
    new URL("./fixtures/catalog.json.gz", import.meta.url),
  );
  const { tools } = JSON.parse(gunzipSync(gz).toString("utf8")) as {
    tools: CatalogTool[];
  };
  return server === undefined
    ? tools
    : tools.filter((tool) => tool.server === server);
}

/** A registry of catalog tools, each under its own server's namespace. */
export function catalogRegistry(tools: readonly CatalogTool[]): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of tools) {
    registry.register(registeredTool(tool.server, tool, ok));
  }
  return registry;
}

/** The tool lists of the fixtures: `{ tools: [...] }`. */
export function fixtureTools(name: string): MCPToolDescriptor[] {
  return readFixture<{ tools: MCPToolDescriptor[] }>(name).tools;
}

/**
 * Compares `value` with `fixtures/golden/<name>.json`, or writes it there
 * when `UPDATE_GOLDEN=1`.
 */
export function assertGolden(name: string, value: unknown): void {
  const url = new URL(`./fixtures/golden/${name}.json`, import.meta.url);
  const text = JSON.stringify(value, null, 2) + "\n";
  if (process.env.UPDATE_GOLDEN === "1") {
    writeFileSync(url, text);
    return;
  }
  let expected: unknown;
  try {
    expected = JSON.parse(readFileSync(url, "utf8"));
  } catch (error) {
    assert.fail(
      `cannot read golden file ${name}.json (${error}); run the test with UPDATE_GOLDEN=1 to write it`,
    );
  }
  assert.deepEqual(
    JSON.parse(text),
    expected,
    `${name}: the definitions differ from the golden file; if the change is intended, rerun with UPDATE_GOLDEN=1 and review the diff`,
  );
}

/** What registered tools answer when called, by default. */
export type FakeInvoke = (
  name: string,
  args: Record<string, unknown>,
) => MCPToolResult | Promise<MCPToolResult>;

const ok: FakeInvoke = (name, args) => ({
  success: true,
  data: {
    content: [{ type: "text", text: `${name} ${JSON.stringify(args)}` }],
  },
  error: null,
  durationMs: 0,
});

/** A registry of `descriptors` under `namespace`, as `registerTools()` would build it. */
export function registryOf(
  namespace: string,
  descriptors: readonly MCPToolDescriptor[],
  invoke: FakeInvoke = ok,
): ToolRegistry {
  const registry = new ToolRegistry();
  for (const descriptor of descriptors) {
    registry.register(registeredTool(namespace, descriptor, invoke));
  }
  return registry;
}

/** A descriptor as `registerTools()` would register it under `namespace`. */
export function registeredTool(
  namespace: string,
  descriptor: MCPToolDescriptor,
  invoke: FakeInvoke = ok,
): RegisteredTool {
  const title = descriptor.title ?? descriptor.annotations?.title;
  return {
    name: `${namespace}/${descriptor.name}`,
    description: descriptor.description ?? "",
    ...(typeof title === "string" ? { title } : {}),
    inputSchema: descriptor.inputSchema,
    capability: resolveCapability(
      descriptor.name,
      descriptor.annotations ? { annotations: descriptor.annotations } : {},
    ),
    checkpointable: false,
    source: "mcp",
    sourceMetadata: { server: namespace },
    invoke: async (args = {}) => await invoke(descriptor.name, args),
  };
}

/** server-everything over stdio, its tools registered under `everything`. */
export async function startEverything(): Promise<
  { adapter: MCPToolAdapter; registry: ToolRegistry }
> {
  const { command, args } = everythingCommand("stdio");
  const adapter = new MCPToolAdapter({
    name: "everything",
    transport: "stdio",
    command,
    args,
  });
  await adapter.connect({ timeoutMs: 60_000 });
  const registry = new ToolRegistry();
  try {
    await adapter.registerTools(registry);
  } catch (error) {
    await adapter.disconnect();
    throw error;
  }
  return { adapter, registry };
}

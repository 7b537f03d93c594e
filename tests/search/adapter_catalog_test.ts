/**
 * The catalog of a lone adapter (no hub): the tools it exposes, its filter
 * applied and held tools left out, listed again before a search once the
 * server announced a change. Real servers: the SDK v1 fixtures over stdio.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
import { toolCatalog } from "@cleveragents/mcp-adapter/search";
import {
  fixturePath,
  runtimeCommand,
  sdkServerCommand,
  waitFor,
} from "../_helpers.ts";

const TIMEOUT_MS = 60_000;

describe("a lone adapter's tool catalog", { timeout: TIMEOUT_MS }, () => {
  it("holds what the adapter exposes, and follows its list_changed", async () => {
    const adapter = new MCPToolAdapter({
      name: "live",
      transport: "stdio",
      ...sdkServerCommand,
    });
    try {
      await adapter.connect();
      await adapter.discoverTools({ exclude: ["picture"] });
      const catalog = toolCatalog(adapter);
      assert.equal(toolCatalog(adapter), catalog);
      const names = async (query: string) =>
        (await catalog.search(query, { k: 10 })).map((hit) => hit.name);
      assert.equal((await names("process facts"))[0], "live/whoami");
      assert.ok(!(await names("a tiny PNG picture")).includes("live/picture"));
      const grown = await adapter.invoke("grow");
      assert.equal(grown.success, true, grown.error ?? "");
      assert.ok(
        await waitFor(
          async () => (await names("grown_1")).includes("live/grown_1"),
          10_000,
        ),
      );
    } finally {
      await adapter.disconnect();
    }
  });

  it("never finds a held tool", async () => {
    const adapter = new MCPToolAdapter({
      name: "notes",
      transport: "stdio",
      ...runtimeCommand(
        fixturePath(
          `drift_server${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
        ),
      ),
    }, { pins: {} });
    try {
      await adapter.connect();
      const catalog = toolCatalog(adapter);
      assert.deepEqual(await catalog.search("read your notes"), []);
      await adapter.acceptToolChanges(["read_notes"]);
      assert.deepEqual(
        (await catalog.search("read your notes")).map((hit) => hit.name),
        ["notes/read_notes"],
      );
    } finally {
      await adapter.disconnect();
    }
  });
});

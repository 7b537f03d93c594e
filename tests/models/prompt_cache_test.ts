/**
 * Prompt-cache safety of `/models` against real servers through a hub (an
 * SDK v1 server over stdio, the 2025 era; an SDK v2 server over streamable
 * HTTP, the 2026 era): the definitions are the same bytes turn to turn and
 * across a reconnect of either server (which moves its tools to the end of
 * the registry); after a `list_changed` that adds a tool, every other
 * definition is the same bytes in the same order, the new one in its
 * place; and the search hand-off's definitions do not change at all when
 * a server's tools do.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MCPToolHub, type ServerEntry } from "@cleveragents/mcp-adapter";
import {
  type ModelProvider,
  modelTools,
  type ToolSearchSettings,
} from "@cleveragents/mcp-adapter/models";
import { sdkServerCommand, waitFor } from "../_helpers.ts";
import { type ModernHttpServer, startModernHttp } from "../_modern.ts";

const TIMEOUT_MS = 60_000;
const PROVIDERS: ModelProvider[] = [
  "openai-chat",
  "openai-responses",
  "anthropic",
  "gemini",
  "gemini-openapi",
  "ai-sdk",
];

/** Each definition's exact bytes, in order (Gemini: each declaration). */
function bytes(
  hub: MCPToolHub,
  provider: ModelProvider,
  toolSearch: ToolSearchSettings["when"] | ToolSearchSettings,
): string[] {
  const { definitions } = modelTools(hub, provider, { toolSearch });
  const list: unknown[] = Array.isArray(definitions)
    ? (definitions as object[]).flatMap((item) =>
      "functionDeclarations" in item
        ? item.functionDeclarations as unknown[]
        : [item]
    )
    : Object.entries(definitions);
  return list.map((item) => JSON.stringify(item));
}

function all(hub: MCPToolHub, toolSearch: ToolSearchSettings["when"]) {
  return Object.fromEntries(
    PROVIDERS.map((provider) => [provider, bytes(hub, provider, toolSearch)]),
  );
}

describe("prompt-cache safety", { timeout: TIMEOUT_MS }, () => {
  let modern: ModernHttpServer;
  let hub: MCPToolHub;

  before(async () => {
    modern = await startModernHttp("serve");
    const entries: ServerEntry[] = [
      {
        config: {
          name: "live",
          transport: "stdio",
          command: sdkServerCommand.command,
          args: sdkServerCommand.args,
        },
        namespace: "live",
        enabled: true,
      },
      {
        config: {
          name: "modern",
          transport: "streamable-http",
          url: modern.url,
        },
        namespace: "modern",
        enabled: true,
      },
    ];
    hub = new MCPToolHub(entries);
    for (const status of await hub.start()) {
      assert.equal(status.state, "connected", status.error);
    }
  });
  after(async () => {
    await hub?.close();
    await modern?.close();
  });

  it("the same bytes turn to turn and across reconnects, in both eras", async () => {
    for (const when of ["never", "always"] as const) {
      const first = all(hub, when);
      assert.deepEqual(all(hub, when), first, "turn to turn");
      for (let round = 0; round < 2; round++) {
        // The server whose tools come first in the registry: its reconnect
        // moves them to the end.
        const order = hub.registry.list().map((tool) => tool.name);
        const server = order[0]!.slice(0, order[0]!.indexOf("/"));
        const [status] = (await hub.retry(server)).filter((s) =>
          s.name === server
        );
        assert.equal(status!.state, "connected", status!.error);
        // The reconnected server's tools moved in the registry...
        assert.notDeepEqual(
          hub.registry.list().map((tool) => tool.name),
          order,
        );
        // ...and not in what the model sees.
        assert.deepEqual(all(hub, when), first, `${when}: reconnect ${server}`);
      }
    }
  });

  it("after a list_changed that adds a tool, the other definitions keep their bytes and order", async () => {
    const flat = all(hub, "never");
    const search = all(hub, "always");
    const grown = await hub.registry.get("live/grow")!.invoke();
    assert.equal(grown.success, true, grown.error ?? "");
    const added = `added_${Date.now()}`;
    const announced = await hub.registry.get("modern/add_tool")!.invoke({
      name: added,
    });
    assert.equal(announced.success, true, announced.error ?? "");
    assert.ok(
      await waitFor(
        () =>
          hub.registry.list().some((tool) =>
            tool.name.startsWith("live/grown_")
          ) && hub.registry.has(`modern/${added}`),
        10_000,
      ),
    );
    const after = all(hub, "never");
    for (const provider of PROVIDERS) {
      const now = after[provider]!;
      assert.equal(now.length, flat[provider]!.length + 2, provider);
      const kept = now.filter((item) =>
        !item.includes("live__grown_") && !item.includes(added)
      );
      assert.deepEqual(kept, flat[provider], provider);
      // The new tools sit where their names put them, not at the end.
      const live = now.findIndex((item) => item.includes("live__grown_"));
      const modernIndex = now.findIndex((item) => item.includes(added));
      assert.ok(live < modernIndex, provider);
    }
    const searchAfter = all(hub, "always");
    for (const provider of PROVIDERS) {
      if (provider === "anthropic") {
        // Anthropic declares every tool (deferred): the new ones join in
        // their places, the rest keep their bytes.
        const kept = searchAfter[provider]!.filter((item) =>
          !item.includes("live__grown_") && !item.includes(added)
        );
        assert.deepEqual(kept, search[provider], provider);
      } else {
        assert.deepEqual(searchAfter[provider], search[provider], provider);
      }
    }
  });
});

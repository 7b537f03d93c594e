/**
 * A server's data nested 100,000 levels deep (`fixtures/hostile.mjs`
 * `deep-result`): JSON.parse builds it without recursion, but
 * JSON.stringify recurses (on Deno for objects with index keys, on Node
 * always). What the model reads of such a result is a clear note, the
 * same on every runtime; the call and the session stay usable. A tool
 * whose UI metadata is that deep (`deep-ui`) is named in a note, and the
 * listing stands.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ToolRegistry } from "@cleveragents/mcp-adapter";
import {
  type ModelProvider,
  modelTools,
} from "@cleveragents/mcp-adapter/models";
import { releaseAfterEach } from "../_helpers.ts";
import { within } from "../_remote.ts";
import { hostileStdio, WAIT_MS } from "./_stdio_peer.ts";

const cleanups = releaseAfterEach();

/** A call of `name` without arguments, in `provider`'s shape. */
const CALLS: Partial<Record<ModelProvider, (name: string) => unknown>> = {
  "openai-chat": (name) => ({
    id: "c1",
    type: "function",
    function: { name, arguments: "{}" },
  }),
  "openai-responses": (name) => ({
    type: "function_call",
    call_id: "c1",
    name,
    arguments: "{}",
  }),
  anthropic: (name) => ({ type: "tool_use", id: "c1", name, input: {} }),
  gemini: (name) => ({ name, args: {} }),
  "gemini-openapi": (name) => ({ name, args: {} }),
};

describe("hostile stdio servers: data nested 100,000 levels deep", () => {
  for (
    const [where, what] of [
      [
        "structured-only",
        /^\[The structured content of this result nests too many levels of objects and lists to be written out\. The host has the result\.\]/,
      ],
      [
        "block",
        /^\[A content block of this result nests too many levels of objects and lists to be written out\. The host has the result\.\]/,
      ],
    ] as const
  ) {
    it(`a result with a ${where} that deep reaches the model as a note, on every provider; the next call works`, async () => {
      const adapter = hostileStdio(cleanups, "deep-result", [where]);
      await adapter.connect();
      const registry = new ToolRegistry();
      await adapter.registerTools(registry);
      for (const [provider, call] of Object.entries(CALLS)) {
        const tools = modelTools(registry, provider as ModelProvider, {
          toolSearch: "never",
        });
        const run = await within(
          tools.run(call("hostile__loose") as never),
          WAIT_MS,
          "run()",
        );
        assert.match(run.text, what, provider);
        assert.doesNotMatch(run.text, /call stack/, provider);
        assert.equal(run.result?.success, true, provider);
        // The message can be sent: it holds the note, not the deep value.
        assert.ok(JSON.stringify(run.message).length < 2_000, provider);
      }
      const echo = await adapter.invoke("echo", { text: "after" });
      assert.equal(echo.success, true, "the next call works");
      assert.ok(adapter.connected);
    });
  }
});

describe("hostile stdio servers: a tool's UI metadata nested 100,000 levels deep", () => {
  it("is named in one note; that tool has no app, and the listing and its other tools stand", async () => {
    const errors: Error[] = [];
    const adapter = hostileStdio(cleanups, "deep-ui", [], {
      onError: (error) => errors.push(error),
    });
    await adapter.connect();
    const tools = await within(adapter.discoverTools(), WAIT_MS, "discover");
    assert.deepEqual(tools.map((tool) => tool.name), ["echo", "app"]);
    assert.equal(tools[1]!.ui?.resourceUri, undefined);
    assert.deepEqual(errors.map((error) => error.message), [
      'MCP server "hostile": tool "app" names "an object": not a ui:// URI of at most 2048 characters, so that tool is treated as tools without an app',
    ]);
    const echo = await adapter.invoke("echo", { text: "after" });
    assert.equal(echo.success, true, echo.error ?? "");
  });
});

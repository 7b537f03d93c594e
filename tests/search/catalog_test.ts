/**
 * The tool catalog over a registry: what it indexes (never an app-only
 * tool), how it follows the registry change by change (the ranker is told
 * only what changed), its order (config order, then name, whatever order
 * tools were registered in), its filters and its errors. The built-in
 * ranker is loaded by the first search; the stand-in ranker of
 * `_ranker.ts` records what it was told.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  MCPAdapterError,
  type RegisteredTool,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import {
  ToolCatalog,
  toolCatalog,
  type ToolRanker,
} from "@cleveragents/mcp-adapter/search";
import { wordRanker } from "./_ranker.ts";

function tool(
  name: string,
  description: string,
  extra: Partial<RegisteredTool> = {},
): RegisteredTool {
  return {
    name,
    description,
    inputSchema: { type: "object", properties: {} },
    capability: { readOnly: false, writes: false },
    checkpointable: false,
    source: "mcp",
    sourceMetadata: { server: name.slice(0, name.indexOf("/")) },
    invoke: () =>
      Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
    ...extra,
  };
}

function notes(): RegisteredTool[] {
  return [
    tool("notes/list_notes", "List every note", {
      capability: { readOnly: true, writes: false },
    }),
    tool("notes/delete_note", "Delete a note by its id", {
      capability: { readOnly: false, writes: true },
    }),
    tool("notes/refresh_view", "Redraw the notes app", {
      ui: { visibility: ["app"] },
    }),
  ];
}

describe("the tool catalog", () => {
  it("finds tools with the built-in ranker, loaded by the first search", async () => {
    const registry = new ToolRegistry();
    registry.replaceNamespace("notes", notes());
    const [hit] = await toolCatalog(registry).search("remove a note");
    assert.equal(hit?.name, "notes/delete_note");
    assert.equal(hit?.alias, "notes__delete_note");
    assert.equal(hit?.namespace, "notes");
    assert.equal(hit?.tool, registry.get("notes/delete_note"));
    assert.ok(hit!.score > 0);
  });

  it("is one per registry, and never holds an app-only tool", async () => {
    const registry = new ToolRegistry();
    registry.replaceNamespace("notes", notes());
    const ranker = wordRanker();
    const catalog = toolCatalog(registry, { ranker });
    assert.equal(toolCatalog(registry), catalog);
    assert.deepEqual(
      catalog.list().map((entry) => entry.name),
      ["notes/delete_note", "notes/list_notes"],
    );
    assert.equal(catalog.get("notes__refresh_view"), undefined);
    const hits = await catalog.search("redraw the notes app", { k: 10 });
    assert.ok(hits.every((hit) => hit.name !== "notes/refresh_view"));
    assert.ok(!ranker.added.includes("notes/refresh_view"));
  });

  it("tells the ranker only what changed: a relisting of the same tools is no change", async () => {
    const registry = new ToolRegistry();
    registry.replaceNamespace("notes", notes());
    const ranker = wordRanker();
    const catalog = toolCatalog(registry, { ranker });
    await catalog.search("note");
    assert.deepEqual(ranker.added.sort(), [
      "notes/delete_note",
      "notes/list_notes",
    ]);
    ranker.added.length = 0;
    // A reconnect or list_changed registers new objects for the same tools.
    registry.replaceNamespace(
      "notes",
      notes().map((entry) => ({ ...entry, fingerprint: `fp-${entry.name}` })),
    );
    await catalog.search("note");
    const first = [...ranker.added].sort();
    ranker.added.length = 0;
    registry.replaceNamespace(
      "notes",
      [
        ...notes().map((entry) => ({
          ...entry,
          fingerprint: `fp-${entry.name}`,
        })),
        tool("notes/archive_note", "Archive a note", {
          fingerprint: "fp-archive",
        }),
      ].filter((entry) => entry.name !== "notes/list_notes"),
    );
    const hits = await catalog.search("archive");
    assert.deepEqual(hits.map((hit) => hit.name), ["notes/archive_note"]);
    // The fingerprinted relisting replaced the entries once; after that,
    // only the added tool went in and only the removed one came out.
    assert.deepEqual(first, ["notes/delete_note", "notes/list_notes"]);
    assert.deepEqual(ranker.added, ["notes/archive_note"]);
    assert.deepEqual(ranker.removed, ["notes/list_notes"]);
    const after = await catalog.search("list every note", { k: 10 });
    assert.ok(after.every((hit) => hit.name !== "notes/list_notes"));
  });

  it("orders tools by namespace then name, however they were registered", () => {
    const a = new ToolRegistry();
    a.replaceNamespace("zeta", [tool("zeta/b", ""), tool("zeta/a", "")]);
    a.replaceNamespace("alpha", [tool("alpha/y", ""), tool("alpha/x", "")]);
    const b = new ToolRegistry();
    b.replaceNamespace("alpha", [tool("alpha/x", ""), tool("alpha/y", "")]);
    b.replaceNamespace("zeta", [tool("zeta/a", ""), tool("zeta/b", "")]);
    const names = (registry: ToolRegistry) =>
      toolCatalog(registry).list().map((entry) => entry.name);
    assert.deepEqual(names(a), ["alpha/x", "alpha/y", "zeta/a", "zeta/b"]);
    assert.deepEqual(names(a), names(b));
    // A namespace registered again (a reconnect) keeps its place.
    a.replaceNamespace("alpha", [tool("alpha/x", ""), tool("alpha/y", "")]);
    assert.deepEqual(names(a), names(b));
  });

  it("keeps a hub's config order, and a server that is down keeps its place", () => {
    const registry = new ToolRegistry();
    const hub = {
      registry,
      status: () => [{ namespace: "zeta" }, { namespace: "alpha" }],
    };
    registry.replaceNamespace("alpha", [tool("alpha/x", "")]);
    registry.replaceNamespace("zeta", [tool("zeta/a", "")]);
    const catalog = toolCatalog(hub);
    assert.deepEqual(catalog.servers(), ["zeta", "alpha"]);
    assert.deepEqual(catalog.list().map((entry) => entry.name), [
      "zeta/a",
      "alpha/x",
    ]);
    registry.replaceNamespace("zeta", []);
    assert.deepEqual(catalog.servers(), ["zeta", "alpha"]);
  });

  it("keeps a list's own order", () => {
    const catalog = toolCatalog([tool("b/z", ""), tool("a/y", "")]);
    assert.ok(catalog instanceof ToolCatalog);
    assert.equal(catalog.registry, undefined);
    assert.deepEqual(catalog.list().map((entry) => entry.name), [
      "b/z",
      "a/y",
    ]);
  });

  it("narrows a search to servers, read-only tools and the host's own rule", async () => {
    const registry = new ToolRegistry();
    registry.replaceNamespace("notes", notes());
    registry.replaceNamespace("docs", [
      tool("docs/list_docs", "List every document", {
        capability: { readOnly: true, writes: false },
        sourceMetadata: { server: "documents" },
      }),
    ]);
    const catalog = toolCatalog(registry, { ranker: wordRanker() });
    const names = async (options: Parameters<ToolCatalog["search"]>[1]) =>
      (await catalog.search("list every note document", options)).map((
        hit,
      ) => hit.name).sort();
    assert.deepEqual(await names({ k: 10, servers: ["notes"] }), [
      "notes/delete_note",
      "notes/list_notes",
    ]);
    // By server name as well as namespace.
    assert.deepEqual(await names({ k: 10, servers: ["documents"] }), [
      "docs/list_docs",
    ]);
    assert.deepEqual(await names({ k: 10, readOnly: true }), [
      "docs/list_docs",
      "notes/list_notes",
    ]);
    assert.deepEqual(
      await names({ k: 10, only: (entry) => entry.name.endsWith("_docs") }),
      ["docs/list_docs"],
    );
    assert.equal((await catalog.search("list note", { k: 1 })).length, 1);
  });

  it("refuses a bad query or option with a message naming it", async () => {
    const catalog = toolCatalog(new ToolRegistry(), { ranker: wordRanker() });
    for (
      const [query, options, pattern] of [
        ["  ", {}, /needs a query/],
        ["x", { k: 0 }, /k must be an integer from 1 to 100, got 0/],
        ["x", { k: 2.5 }, /got 2\.5/],
        ["x", { servers: "notes" }, /servers must be a list/],
      ] as const
    ) {
      await assert.rejects(
        catalog.search(query, options as never),
        (error: unknown) =>
          error instanceof MCPAdapterError &&
          error.code === "invalid_argument" && pattern.test(error.message),
      );
    }
  });

  it("reports a ranker that fails, and drops what it answers wrongly", async () => {
    const registry = new ToolRegistry();
    registry.replaceNamespace("notes", notes());
    const failing: ToolRanker = {
      add() {},
      remove() {},
      search: () => Promise.reject(new Error("embedding service down")),
    };
    await assert.rejects(
      new ToolCatalog(registry, { ranker: failing }).search("note"),
      (error: unknown) =>
        error instanceof MCPAdapterError && error.code === "search_failed" &&
        /embedding service down/.test(error.message),
    );
    const sloppy: ToolRanker = {
      add() {},
      remove() {},
      // Unknown, app-only, repeated, non-finite: none of them is returned.
      search: () => [
        { id: "notes/gone", score: 9 },
        { id: "notes/refresh_view", score: 8 },
        { id: "notes/list_notes", score: Number.NaN },
        { id: "notes/delete_note", score: 3 },
        { id: "notes/delete_note", score: 2 },
      ],
    };
    const hits = await new ToolCatalog(registry, { ranker: sloppy }).search(
      "note",
      { k: 5 },
    );
    assert.deepEqual(hits.map((hit) => [hit.name, hit.score]), [[
      "notes/delete_note",
      3,
    ]]);
  });

  it("a host's ranker replaces the current one, which then gets every tool", async () => {
    const registry = new ToolRegistry();
    registry.replaceNamespace("notes", notes());
    const first = wordRanker();
    const catalog = toolCatalog(registry, { ranker: first });
    await catalog.search("note");
    const second = wordRanker();
    assert.equal(toolCatalog(registry, { ranker: second }), catalog);
    await catalog.search("note");
    assert.deepEqual(second.added.sort(), [
      "notes/delete_note",
      "notes/list_notes",
    ]);
  });

  it("estimates the tokens of the flat definitions", () => {
    const registry = new ToolRegistry();
    registry.replaceNamespace("notes", notes());
    const catalog = toolCatalog(registry);
    const tokens = catalog.definitionTokens();
    assert.ok(tokens > 10 && tokens < 200, String(tokens));
    registry.replaceNamespace("notes", [
      ...notes(),
      tool("notes/big", "x".repeat(4000)),
    ]);
    assert.ok(catalog.definitionTokens() >= tokens + 1000);
  });
});

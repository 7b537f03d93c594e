/**
 * A hub's resources and prompts: every connected server's, namespaced like
 * its tools and marked with where they came from; a server that cannot be
 * listed is reported and the others listed; reads and gets go by
 * namespaced id to the one server named.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { MCPToolAdapter, MCPToolHub } from "@cleveragents/mcp-adapter";
import { everythingCommand } from "./_everything.ts";
import { modernStdioCommand } from "./_modern.ts";
import { linkServer } from "./_in_memory.ts";

const TEST_MS = 60_000;

/** A 2025-era server whose lists fail with a server error. */
function brokenServer(): Server {
  const server = new Server({ name: "broken", version: "1.0.0" }, {
    capabilities: { tools: {}, resources: {}, prompts: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  const fail = () => {
    throw new Error("the index is on fire");
  };
  server.setRequestHandler(ListResourcesRequestSchema, fail);
  server.setRequestHandler(ListResourceTemplatesRequestSchema, fail);
  server.setRequestHandler(ListPromptsRequestSchema, fail);
  return server;
}

describe("MCPToolHub: resources and prompts across servers", () => {
  let hub: MCPToolHub;
  before(async () => {
    hub = new MCPToolHub([
      {
        config: {
          name: "everything",
          transport: "stdio",
          ...everythingCommand("stdio"),
        },
        namespace: "ev",
        enabled: true,
      },
      {
        config: {
          name: "modern",
          transport: "stdio",
          ...modernStdioCommand("reject"),
        },
        namespace: "mo",
        enabled: true,
      },
      {
        config: { name: "broken", transport: "stdio", command: "in-memory" },
        namespace: "br",
        enabled: true,
      },
      {
        config: {
          name: "absent",
          transport: "stdio",
          command: "/nonexistent/mcp-server",
        },
        namespace: "ab",
        enabled: true,
      },
    ], {
      createAdapter: (entry) =>
        entry.config.name === "broken"
          ? new MCPToolAdapter(entry.config, {
            transport: () => linkServer(brokenServer()),
          })
          : new MCPToolAdapter(entry.config),
    });
    const statuses = await hub.start();
    assert.deepEqual(statuses.map((s) => s.state), [
      "connected",
      "connected",
      "connected",
      "failed",
    ]);
  });
  after(() => hub.close());

  it("lists every connected server's resources, namespaced, with provenance", {
    timeout: TEST_MS,
  }, async () => {
    const { items, failed } = await hub.listResources();
    const servers = [...new Set(items.map((item) => item.server))];
    assert.deepEqual(servers, ["everything", "modern"], "config order");
    for (const item of items) {
      assert.equal(item.id, `${item.namespace}/${item.uri}`);
      assert.equal(item.namespace, item.server === "modern" ? "mo" : "ev");
    }
    assert.ok(items.some((item) => item.id === "mo/fixture://doc/7"));
    assert.deepEqual(failed.map((f) => f.server), ["broken"]);
    assert.match(failed[0]!.error, /the index is on fire/);
  });

  it(
    "lists templates and prompts the same way",
    { timeout: TEST_MS },
    async () => {
      const templates = await hub.listResourceTemplates();
      assert.ok(
        templates.items.some((t) => t.id === "mo/fixture://items/{id}"),
        JSON.stringify(templates.items.map((t) => t.id)),
      );
      const prompts = await hub.listPrompts();
      assert.deepEqual(
        prompts.items.filter((p) => p.server === "everything").map((p) => p.id),
        [
          "ev/simple-prompt",
          "ev/args-prompt",
          "ev/completable-prompt",
          "ev/resource-prompt",
        ],
      );
      assert.ok(prompts.items.some((p) => p.id === "mo/greet"));
      assert.deepEqual(prompts.failed.map((f) => f.server), ["broken"]);
    },
  );

  it("reads and gets by namespaced id from the one server named", {
    timeout: TEST_MS,
  }, async () => {
    const read = await hub.readResource("mo/fixture://doc/4");
    assert.ok(read.success, read.error ?? "");
    assert.equal(read.data.contents[0]?.text, "document 4");
    const expanded = await hub.readResource(
      "ev/demo://resource/dynamic/text/{resourceId}",
      {
        variables: { resourceId: "2" },
      },
    );
    assert.ok(expanded.success, expanded.error ?? "");
    assert.match(expanded.data.contents[0]?.text ?? "", /^Resource 2:/);
    const got = await hub.getPrompt("mo/greet", { name: "Grace" });
    assert.ok(got.success, got.error ?? "");
    const [message] = got.data.messages;
    assert.equal(
      message?.content.type === "text" && message.content.text,
      "Hello, Grace!",
    );
    const nowhere = await hub.readResource("zz/fixture://doc/4");
    assert.equal(nowhere.errorKind, "not_found");
    assert.match(
      nowhere.error ?? "",
      /No connected server has the namespace "zz"/,
    );
    const bare = await hub.getPrompt("greet");
    assert.equal(bare.errorKind, "not_found");
    assert.match(bare.error ?? "", /names no server/);
    const down = await hub.readResource("ab/file:///x");
    assert.equal(down.errorKind, "not_found", "a server that is not connected");
  });
});

/**
 * Which calls the approval hook is asked about: by default every tool not
 * known to be read-only (an SDK server's unannotated `save_pdf` included),
 * and what `approvalPolicy` chooses instead.
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import {
  type MCPToolAdapter,
  type RegisteredTool,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import {
  type ApprovalPolicy,
  modelTools,
} from "@cleveragents/mcp-adapter/models";
import { linkedAdapter } from "../_in_memory.ts";

/** Tools a server could offer: unannotated verbs, hints, and plain reads. */
function buildServer(): McpServer {
  const server = new McpServer({ name: "docs", version: "1.0.0" });
  const ok = () => ({ content: [{ type: "text" as const, text: "done" }] });
  server.registerTool("save_pdf", {
    description: "Saves the PDF over its file",
    inputSchema: { path: z.string() },
  }, ok);
  server.registerTool("submit_form", { description: "Submits" }, ok);
  server.registerTool("get_page", { description: "Reads a page" }, ok);
  server.registerTool("render", {
    description: "Renders, says it is read-only",
    annotations: { readOnlyHint: true },
  }, ok);
  server.registerTool("delete_page", { description: "Deletes" }, ok);
  server.registerTool("get_and_delete", { description: "Both" }, ok);
  return server;
}

describe("approval policies against an SDK server's tools", () => {
  let adapter: MCPToolAdapter;
  const registry = new ToolRegistry();
  before(async () => {
    ({ adapter } = linkedAdapter(buildServer));
    await adapter.connect();
    await adapter.registerTools(registry, "docs", {
      overrides: { submit_form: { readOnly: true } },
    });
  });
  after(() => adapter.disconnect());

  /** The tools `approve` was asked about under `policy`, each called once. */
  async function askedUnder(
    policy: ApprovalPolicy | undefined,
    extra: { approveAll?: boolean } = {},
  ): Promise<string[]> {
    const asked: string[] = [];
    const tools = modelTools(registry, "anthropic", {
      approve: ({ tool }) => {
        asked.push(tool.name.slice("docs/".length));
        return false;
      },
      ...(policy === undefined ? {} : { approvalPolicy: policy }),
      ...extra,
    });
    for (const definition of tools.definitions) {
      await tools.dispatch({
        type: "tool_use",
        id: definition.name,
        name: definition.name,
        input: { path: "/tmp/x.pdf" },
      });
    }
    return asked.sort();
  }

  it("asks by default about every tool not known to be read-only", async () => {
    // Known read-only: a read verb (get_page), readOnlyHint (render), an
    // override (submit_form). get_and_delete also writes.
    assert.deepEqual(await askedUnder(undefined), [
      "delete_page",
      "get_and_delete",
      "save_pdf",
    ]);
    assert.deepEqual(
      await askedUnder("not-read-only"),
      await askedUnder(undefined),
    );
  });

  it("tells the model why an unannotated save_pdf was refused", async () => {
    const tools = modelTools(registry, "anthropic", { approve: () => false });
    const reply = await tools.dispatch({
      type: "tool_use",
      id: "t",
      name: "docs__save_pdf",
      input: { path: "/tmp/x.pdf" },
    });
    assert.equal(reply.is_error, true);
    assert.match(
      JSON.stringify(reply.content),
      /declined to run tool \\"docs__save_pdf\\", which is not known to be read-only/,
    );
  });

  it('"writes" asks only about tools that say they write: the old default', async () => {
    assert.deepEqual(await askedUnder("writes"), [
      "delete_page",
      "get_and_delete",
    ]);
  });

  it('"all" and approveAll ask about every call', async () => {
    const every = [
      "delete_page",
      "get_and_delete",
      "get_page",
      "render",
      "save_pdf",
      "submit_form",
    ];
    assert.deepEqual(await askedUnder("all"), every);
    assert.deepEqual(await askedUnder("writes", { approveAll: true }), every);
  });

  it("a policy function decides from the tool, capability and annotations; one that throws asks", async () => {
    const seen: [string, boolean, unknown][] = [];
    const trustNoHint: ApprovalPolicy = (tool, capability, annotations) => {
      seen.push([tool.name, capability.readOnly, annotations?.readOnlyHint]);
      // Trust the name and overrides, not the server's hint.
      return annotations?.readOnlyHint === true || !capability.readOnly;
    };
    assert.deepEqual(await askedUnder(trustNoHint), [
      "delete_page",
      "get_and_delete",
      "render",
      "save_pdf",
    ]);
    assert.deepEqual(
      seen.find(([name]) => name === "docs/render"),
      ["docs/render", true, true],
    );
    const broken: ApprovalPolicy = () => {
      throw new Error("policy bug");
    };
    assert.equal((await askedUnder(broken)).length, 6);
  });

  it("keeps the server's annotations on registry entries", () => {
    const render = registry.get("docs/render") as RegisteredTool;
    assert.equal(render.annotations?.readOnlyHint, true);
    assert.equal(registry.get("docs/save_pdf")?.annotations, undefined);
  });
});

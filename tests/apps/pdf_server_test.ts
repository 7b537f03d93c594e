/**
 * A real MCP Apps server from npm, `@modelcontextprotocol/server-pdf`
 * (offline: it serves the PDFs of a local folder over stdio): its app-only
 * tools (`save_pdf`, `read_pdf_bytes`, …) never reach the model, its app's
 * HTML (4.2 MiB) is read within the default cap and refused past a smaller
 * one, and the default approval policy asks about its unannotated tools
 * (`interact`, `display_pdf`) that the old "writes" policy let run unasked.
 *
 * @module
 */

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type MCPAdapterError,
  MCPToolAdapter,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { npmServerCommand } from "../_everything.ts";

const VIEWER = "ui://pdf-viewer/mcp-app.html";

describe("@modelcontextprotocol/server-pdf over stdio", () => {
  let folder: string;
  let adapter: MCPToolAdapter;
  const registry = new ToolRegistry();

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), "pdf-app-"));
    const { command, args } = npmServerCommand(
      "@modelcontextprotocol/server-pdf",
      ["--stdio", folder],
    );
    adapter = new MCPToolAdapter(
      { name: "pdf", transport: "stdio", command, args },
      { apps: true, connectTimeoutMs: 120_000 },
    );
    await adapter.connect();
    await adapter.registerTools(registry);
  });
  after(async () => {
    await adapter.disconnect();
    rmSync(folder, { recursive: true, force: true });
  });

  it("marks its app-only tools and links display_pdf to its viewer", async () => {
    const tools = new Map(
      (await adapter.discoverTools()).map((tool) => [tool.name, tool]),
    );
    assert.deepEqual(tools.get("save_pdf")?.ui?.visibility, ["app"]);
    assert.deepEqual(tools.get("read_pdf_bytes")?.ui?.visibility, ["app"]);
    assert.equal(tools.get("display_pdf")?.ui?.resourceUri, VIEWER);
    assert.equal(tools.get("list_pdfs")?.ui, undefined);
  });

  it("hands the model none of the app-only tools", () => {
    const names = modelTools(registry, "openai-chat").definitions.map((tool) =>
      tool.function.name
    );
    assert.ok(names.includes("pdf__display_pdf"), names.join(", "));
    assert.ok(names.includes("pdf__list_pdfs"));
    for (const hidden of ["pdf__save_pdf", "pdf__read_pdf_bytes"]) {
      assert.equal(names.includes(hidden), false, `${hidden} in ${names}`);
    }
  });

  it("refuses the model's save_pdf without asking or calling the server", async () => {
    let asked = 0;
    const tools = modelTools(registry, "anthropic", {
      approve: () => {
        asked++;
        return true;
      },
    });
    const reply = await tools.dispatch({
      type: "tool_use",
      id: "t1",
      name: "pdf__save_pdf",
      input: { url: join(folder, "x.pdf"), data: "" },
    });
    assert.equal(reply.is_error, true);
    assert.match(JSON.stringify(reply.content), /only to its own app UI/);
    assert.equal(asked, 0);
  });

  it("asks about its unannotated tools by default, as the old policy did not", async () => {
    const asked: string[] = [];
    const refuse = ({ name }: { name: string }) => {
      asked.push(name);
      return false;
    };
    const call = (name: string) => ({
      type: "tool_use" as const,
      id: name,
      name,
      input: {},
    });
    const safe = modelTools(registry, "anthropic", { approve: refuse });
    const refused = await safe.dispatch(call("pdf__interact"));
    assert.equal(refused.is_error, true);
    assert.match(
      JSON.stringify(refused.content),
      /declined to run tool \\"pdf__interact\\", which is not known to be read-only/,
    );
    const listed = await safe.dispatch(call("pdf__list_pdfs"));
    assert.notEqual(listed.is_error, true, JSON.stringify(listed.content));
    assert.deepEqual(asked, ["pdf__interact"], "list_pdfs reads: not asked");
    asked.length = 0;
    const old = modelTools(registry, "anthropic", {
      approve: refuse,
      approvalPolicy: "writes",
    });
    await old.dispatch(call("pdf__interact"));
    assert.deepEqual(asked, [], "the writes-only policy never asks");
  });

  it("reads its 4 MiB viewer within the default cap, and refuses it past a smaller one", async () => {
    const app = await adapter.readUiResource(VIEWER);
    assert.equal(app.mimeType, "text/html;profile=mcp-app");
    assert.ok(app.html.length > 2 * 1024 * 1024, `${app.html.length} chars`);
    assert.match(app.html.slice(0, 200), /<!doctype html>/i);
    await assert.rejects(
      adapter.readUiResource(VIEWER, { maxBytes: 1024 * 1024 }),
      (error: MCPAdapterError) =>
        error.code === "invalid_response" &&
        /larger than 1048576 bytes/.test(error.message),
    );
  });
});

/**
 * `invoke()` checks a tool's `structuredContent` against its `outputSchema`:
 * against the SDK fixture whose tools send valid, violating and missing
 * structured content (its server-side check is switched off for them).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { releaseAfterEach } from "../_helpers.ts";
import type { MCPToolAdapter } from "@cleveragents/mcp-adapter";
import { linkedAdapter } from "../_in_memory.ts";
import { createTaskServer } from "../_task_server.ts";

const TEST_MS = 15_000;
const open = releaseAfterEach("together");

async function connected(
  options: { validateOutput?: boolean } = {},
): Promise<MCPToolAdapter> {
  const { adapter } = linkedAdapter(() => createTaskServer(), options);
  open.push(() => adapter.disconnect());
  await adapter.connect();
  return adapter;
}

describe("output schema checks", () => {
  it("passes structuredContent that matches the output schema", {
    timeout: TEST_MS,
  }, async () => {
    const adapter = await connected();
    const result = await adapter.invoke("structured_ok", { a: 1, b: 2 });
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(result.data.structuredContent, { sum: 3, label: "sum" });
  });

  it(
    "fails a mismatch as a server error naming each problem by JSON pointer, keeping the payload",
    {
      timeout: TEST_MS,
    },
    async () => {
      const adapter = await connected();
      const result = await adapter.invoke("structured_bad", { a: 1, b: 2 });
      assert.equal(result.success, false);
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /^Tool "structured_bad" .*output schema/);
      assert.match(result.error!, /\/sum: /);
      assert.match(result.error!, /\/: .*"label"/);
      assert.deepEqual(result.data.structuredContent, { sum: "3" });
      assert.deepEqual(result.data.content, [{ type: "text", text: "3" }]);
    },
  );

  it(
    "fails a result without structuredContent when the tool declares an output schema",
    {
      timeout: TEST_MS,
    },
    async () => {
      const adapter = await connected();
      const result = await adapter.invoke("structured_missing", { a: 1, b: 2 });
      assert.equal(result.success, false);
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /output schema.*no structuredContent/);
      assert.deepEqual(result.data.content, [{ type: "text", text: "3" }]);
    },
  );

  it(
    "checks every call, not only the first",
    { timeout: TEST_MS },
    async () => {
      const adapter = await connected();
      for (let i = 0; i < 3; i++) {
        assert.equal(
          (await adapter.invoke("structured_bad", { a: i, b: 1 })).success,
          false,
        );
        assert.equal(
          (await adapter.invoke("structured_ok", { a: i, b: 1 })).success,
          true,
        );
      }
    },
  );

  it("leaves results alone with validateOutput: false", {
    timeout: TEST_MS,
  }, async () => {
    const adapter = await connected({ validateOutput: false });
    const bad = await adapter.invoke("structured_bad", { a: 1, b: 2 });
    assert.equal(bad.success, true);
    assert.deepEqual(bad.data.structuredContent, { sum: "3" });
    const missing = await adapter.invoke("structured_missing", { a: 1, b: 2 });
    assert.equal(missing.success, true);
  });
});

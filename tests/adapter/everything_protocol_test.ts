/**
 * Tasks, log messages and output schema checks against
 * `@modelcontextprotocol/server-everything` over stdio: a server nobody
 * here wrote.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type {
  ElicitationRequest,
  MCPLogLevel,
  MCPTaskStatus,
  MCPToolAdapter,
} from "@cleveragents/mcp-adapter";
import { everythingStdioAdapter } from "../_everything.ts";
import { text, waitFor } from "../_helpers.ts";

const TEST_MS = 40_000;

describe("server-everything: tasks, log messages, output schemas", () => {
  let adapter: MCPToolAdapter;
  const logs: { level: MCPLogLevel; logger?: string; data: unknown }[] = [];
  const asked: ElicitationRequest[] = [];
  before(async () => {
    adapter = everythingStdioAdapter({
      onLog: (level, logger, data) =>
        void logs.push({ level, ...(logger ? { logger } : {}), data }),
      handlers: {
        roots: () => [{ uri: "file:///tmp", name: "tmp" }],
        elicitation: (request) => {
          asked.push(request);
          return { action: "accept", content: { interpretation: "snake" } };
        },
      },
    });
    await adapter.connect({ timeoutMs: 30_000 });
  });
  after(async () => {
    await adapter.disconnect();
  });

  it("passes its info log about the roots it received to onLog", {
    timeout: TEST_MS,
  }, async () => {
    assert.ok(
      await waitFor(
        () => logs.some((log) => /Roots updated/.test(String(log.data))),
        10_000,
      ),
      JSON.stringify(logs),
    );
    const roots = logs.find((log) => /Roots updated/.test(String(log.data)));
    assert.equal(roots?.level, "info");
    assert.equal(roots?.logger, "everything-server");
  });

  it("setLogLevel() is accepted, and its simulated logging reaches onLog", {
    timeout: TEST_MS,
  }, async () => {
    assert.equal(await adapter.setLogLevel("debug"), true);
    const before = logs.length;
    const started = await adapter.invoke("toggle-simulated-logging", {});
    assert.equal(started.success, true, started.error ?? "");
    try {
      assert.ok(await waitFor(() => logs.length > before, 10_000));
      assert.match(String(logs.at(-1)!.data), /level.message/i);
    } finally {
      await adapter.invoke("toggle-simulated-logging", {});
    }
  });

  it("lists simulate-research-query as a required task", {
    timeout: TEST_MS,
  }, async () => {
    const tool = (await adapter.discoverTools()).find((tool) =>
      tool.name === "simulate-research-query"
    );
    assert.equal(tool?.execution?.taskSupport, "required");
  });

  it(
    "runs simulate-research-query as a task, kept alive by its status changes, and through its elicitation",
    {
      timeout: TEST_MS,
    },
    async () => {
      const statuses: MCPTaskStatus[] = [];
      // It reports no progress, only a new status message every second: a
      // 1.5 s idle deadline holds only because those changes push it back.
      const plain = adapter.invoke("simulate-research-query", {
        topic: "tasks",
      }, {
        timeoutMs: 1_500,
        onTaskStatus: (status) => void statuses.push(status),
      });
      const ambiguous = adapter.invoke("simulate-research-query", {
        topic: "python",
        ambiguous: true,
      }, { timeoutMs: 10_000 });
      const result = await plain;
      assert.equal(result.success, true, result.error ?? "");
      assert.match(text(result), /Research Report: tasks/);
      assert.ok(statuses.length >= 3, JSON.stringify(statuses));
      assert.equal(statuses[0]!.status, "working");
      assert.ok(
        statuses.some((s) => s.statusMessage === "Analyzing content..."),
      );

      const clarified = await ambiguous;
      assert.equal(clarified.success, true, clarified.error ?? "");
      assert.equal(asked.length, 1);
      assert.match(asked[0]!.message, /multiple interpretations/);
      assert.match(text(clarified), /snake/);
    },
  );

  it("get-structured-content passes its output schema check", {
    timeout: TEST_MS,
  }, async () => {
    const result = await adapter.invoke("get-structured-content", {
      location: "Chicago",
    });
    assert.equal(result.success, true, result.error ?? "");
    assert.equal(
      typeof (result.data.structuredContent as { temperature: unknown })
        .temperature,
      "number",
    );
  });
});

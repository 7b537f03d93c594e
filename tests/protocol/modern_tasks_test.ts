/**
 * Tool calls a modern server runs as tasks (the `io.modelcontextprotocol/tasks`
 * extension), over streamable HTTP and stdio, against SDK v2 servers: the
 * same `invoke()` options as 2025-era tasks, the same result.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type MCPServerConfig,
  type MCPTaskStatus,
  MCPToolAdapter,
} from "@cleveragents/mcp-adapter";
import { fixturePath, runtimeCommand, text, waitFor } from "../_helpers.ts";
import { type ModernHttpServer, startModernHttp } from "../_modern.ts";
import { buildTaskServer, taskLog } from "../_modern_tasks.ts";

const handlers = {
  elicitation: () => ({ action: "accept" as const, content: { name: "Ada" } }),
};

/** The behaviour both transports share. */
function sharedCases(config: () => MCPServerConfig): void {
  it("follows a task to its result, reporting each status", async () => {
    const adapter = new MCPToolAdapter(config());
    try {
      await adapter.connect();
      const statuses: MCPTaskStatus[] = [];
      const done = await adapter.invoke("slow", { polls: 3 }, {
        onTaskStatus: (status) => statuses.push(status),
      });
      assert.equal(done.success, true, done.error ?? "");
      assert.equal(text(done), "slow done after 3 polls");
      assert.deepEqual(
        [...new Set(statuses.map((status) => status.status))],
        ["working", "completed"],
      );
      assert.match(statuses[0]!.taskId, /^task-\d+$/);
      // A tool the server answers at once needs nothing else.
      assert.equal(text(await adapter.invoke("inline", {})), "inline result");
    } finally {
      await adapter.disconnect();
    }
  });

  it("answers a task's input requests with the handlers (tasks/update)", async () => {
    const adapter = new MCPToolAdapter(config(), { handlers });
    try {
      await adapter.connect();
      const hello = await adapter.invoke("ask", {});
      assert.equal(hello.success, true, hello.error ?? "");
      assert.equal(text(hello), 'hello "Ada"');
    } finally {
      await adapter.disconnect();
    }
  });

  it("a failed task is a failed call with the server's error; a deadline cancels the task", async () => {
    const adapter = new MCPToolAdapter(config());
    try {
      await adapter.connect();
      const failed = await adapter.invoke("fail", {});
      assert.equal(failed.success, false);
      assert.equal(failed.errorKind, "server_error");
      assert.match(failed.error ?? "", /Disk full \(code -32603\)/);
      const late = await adapter.invoke("forever", {}, { totalTimeoutMs: 300 });
      assert.equal(late.success, false);
      assert.equal(late.errorKind, "timeout");
      assert.match(late.error ?? "", /tasks\/cancel/);
      const aborted = new AbortController();
      const cancelled = adapter.invoke("forever", {}, {
        signal: aborted.signal,
        onTaskStatus: () => aborted.abort(new Error("user stopped it")),
      });
      const result = await cancelled;
      assert.equal(result.errorKind, "cancelled");
      assert.match(result.error ?? "", /user stopped it/);
    } finally {
      await adapter.disconnect();
    }
  });
}

describe("the tasks extension over streamable HTTP", () => {
  let server: ModernHttpServer;
  before(async () => {
    server = await startModernHttp("reject", buildTaskServer);
  });
  after(() => server.close());
  const config = (): MCPServerConfig => ({
    name: "tasks",
    transport: "streamable-http",
    url: server.url,
  });
  sharedCases(config);

  it("declares the extension, names the task in Mcp-Name, and sends tasks/cancel on a deadline", async () => {
    const adapter = new MCPToolAdapter(config());
    try {
      await adapter.connect();
      server.seen.length = 0;
      taskLog.calls.length = 0;
      const before = taskLog.undeclared;
      await adapter.invoke("slow", { polls: 1 });
      assert.equal(taskLog.undeclared, before);
      const polls = server.seen.filter((request) =>
        request.method === "tasks/get"
      );
      assert.ok(polls.length >= 1);
      for (const poll of polls) {
        assert.match(String(poll.headers["mcp-name"]), /^task-\d+$/);
      }
      taskLog.calls.length = 0;
      await adapter.invoke("forever", {}, { totalTimeoutMs: 200 });
      const created = taskLog.tasks.size;
      // tasks/cancel is sent, not awaited: the call's failure comes first.
      assert.ok(
        await waitFor(
          () => taskLog.calls.includes(`tasks/cancel task-${created}`),
          10_000,
        ),
        taskLog.calls.join(", "),
      );
      assert.equal(taskLog.tasks.get(`task-${created}`)?.status, "cancelled");
    } finally {
      await adapter.disconnect();
    }
  });
});

describe("the tasks extension over stdio", () => {
  sharedCases(() => ({
    name: "tasks",
    transport: "stdio",
    ...runtimeCommand(
      fixturePath(
        `modern_task_server${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
      ),
    ),
  }));
});

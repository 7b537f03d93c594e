/**
 * Proves the task fixture (`_task_server.ts`, `_task_http.ts`) behaves as
 * the 2025-11-25 specification says, by driving it with the SDK's own
 * `Client` and its experimental task API — so the adapter's tests can trust
 * it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { receivedMethods } from "../_task_server.ts";
import { waitFor } from "../_helpers.ts";

import {
  last,
  RELATED_TASK,
  statusesOf,
  stream,
  taskClients,
  taskIdOf,
  TEST_MS,
} from "./_task_client.ts";

const { link } = taskClients();

describe("task fixture server, driven by the SDK Client", () => {
  it(
    "lists each tool's execution.taskSupport and outputSchema, and declares tasks and logging",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      const capabilities = client.getServerCapabilities();
      assert.deepEqual(capabilities?.tasks, {
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      assert.deepEqual(capabilities?.logging, {});
      const { tools } = await client.listTools();
      const support = Object.fromEntries(
        tools.map((tool: Tool) => [tool.name, tool.execution?.taskSupport]),
      );
      assert.deepEqual(support, {
        slow_task: "required",
        poll_task: "required",
        failing_task: "required",
        server_cancelled_task: "required",
        input_task: "required",
        optional_task: "optional",
        // McpServer always sends "forbidden" for a plain tool: never absent.
        plain_tool: "forbidden",
        structured_ok: "forbidden",
        structured_bad: "forbidden",
        structured_missing: "forbidden",
        log: "forbidden",
        log_later: "forbidden",
      });
      const output = tools.find((tool: Tool) => tool.name === "structured_bad")
        ?.outputSchema;
      assert.deepEqual(output?.required, ["sum", "label"]);
    },
  );

  it(
    "slow_task: created working, polled at its pollInterval, progress on the call's token, then the result",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, log, statuses } = await link();
      const progress: number[] = [];
      const messages = await stream(
        client,
        "slow_task",
        { steps: 3, gapMs: 40 },
        (p) => void progress.push(p.progress),
      );
      const taskId = taskIdOf(messages);
      const created = messages[0] as { task: Record<string, unknown> };
      assert.equal(created.task.status, "working");
      assert.equal(created.task.pollInterval, 20);
      assert.equal(created.task.ttl, 60_000);
      assert.equal(typeof created.task.createdAt, "string");
      assert.equal(typeof created.task.lastUpdatedAt, "string");
      assert.equal(last(statusesOf(messages)), "completed");
      const result = last(messages) as {
        type: string;
        result: Record<string, unknown>;
      };
      assert.equal(result.type, "result");
      assert.deepEqual(result.result.structuredContent, { steps: 3 });
      // tasks/result carries the related-task _meta (spec: MUST).
      assert.deepEqual(
        (result.result._meta as Record<string, unknown>)[RELATED_TASK],
        { taskId },
      );
      assert.deepEqual(progress, [1, 2, 3]);
      assert.ok(
        statuses.some((s) =>
          s.taskId === taskId && s.statusMessage === "step 2/3"
        ),
      );
      const methods = receivedMethods(log, taskId);
      assert.ok(
        methods.filter((m) => m === "tasks/get").length >= 3,
        methods.join(),
      );
      assert.equal(last(methods), "tasks/result");
      assert.deepEqual(log.created, [{
        tool: "slow_task",
        taskId,
        augmented: true,
      }]);
    },
  );

  it(
    "poll_task completes on exactly its n-th tasks/get, with progress on each poll",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, log } = await link();
      const progress: number[] = [];
      const messages = await stream(
        client,
        "poll_task",
        { polls: 3 },
        (p) => void progress.push(p.progress),
      );
      assert.deepEqual(statusesOf(messages), [
        "working",
        "working",
        "completed",
      ]);
      const taskId = taskIdOf(messages);
      assert.equal(
        receivedMethods(log, taskId).filter((m) => m === "tasks/get").length,
        3,
      );
      assert.deepEqual(progress, [1, 2, 3]);
      const result = last(messages) as { result: { content: unknown } };
      assert.deepEqual(result.result.content, [{
        type: "text",
        text: "done after 3 polls",
      }]);
    },
  );

  it(
    "failing_task ends failed with a statusMessage; tasks/result gives the isError result or the JSON-RPC error",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, statuses } = await link();
      for (const mode of ["isError", "rpcError"] as const) {
        const messages = await stream(client, "failing_task", { mode });
        const taskId = taskIdOf(messages);
        assert.equal(last(statusesOf(messages)), "failed");
        // The SDK's stream reports only "Task … failed"; the outcome needs tasks/result.
        assert.equal(last(messages).type, "error");
        const task = await client.experimental.tasks.getTask(taskId);
        assert.equal(task.statusMessage, "Tool execution failed: disk on fire");
        assert.ok(
          statuses.some((s) => s.taskId === taskId && s.status === "failed"),
        );
        const outcome = client.experimental.tasks.getTaskResult(
          taskId,
          CallToolResultSchema,
        );
        if (mode === "isError") {
          const result = await outcome;
          assert.equal(result.isError, true);
          assert.deepEqual(result.content, [{
            type: "text",
            text: "disk on fire",
          }]);
        } else {
          await assert.rejects(
            outcome,
            (error: { code?: number; message: string }) => {
              assert.equal(error.code, -32050);
              assert.match(error.message, /disk on fire/);
              assert.doesNotMatch(error.message, /MCP error -32050: MCP error/);
              return true;
            },
          );
        }
      }
    },
  );

  it(
    "server_cancelled_task ends cancelled with the server's reason; tasks/result has no result",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      const messages = await stream(client, "server_cancelled_task", {});
      const taskId = taskIdOf(messages);
      assert.equal(last(statusesOf(messages)), "cancelled");
      const task = await client.experimental.tasks.getTask(taskId);
      assert.equal(
        task.statusMessage,
        "Cancelled by the server: quota exhausted",
      );
      await assert.rejects(
        client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
        /cancelled and has no result/,
      );
    },
  );

  for (const kind of ["elicitation", "sampling"] as const) {
    it(
      `input_task (${kind}): input_required, the request arrives inside tasks/result with related-task _meta, the answer completes it`,
      {
        timeout: TEST_MS,
      },
      async () => {
        const { client, log, serverRequests, statuses } = await link();
        const messages = await stream(client, "input_task", { kind });
        const taskId = taskIdOf(messages);
        assert.ok(statusesOf(messages).includes("input_required"));
        assert.ok(
          statuses.some((s) =>
            s.taskId === taskId && s.status === "input_required" &&
            s.statusMessage === `Waiting for ${kind}`
          ),
        );
        assert.equal(serverRequests.length, 1);
        const request = serverRequests[0]!;
        assert.equal(
          request.method,
          kind === "elicitation"
            ? "elicitation/create"
            : "sampling/createMessage",
        );
        assert.deepEqual(
          (request.params._meta as Record<string, unknown>)[RELATED_TASK],
          { taskId },
        );
        const result = last(messages) as {
          type: string;
          result: { content: unknown };
        };
        assert.equal(result.type, "result");
        assert.deepEqual(result.result.content, [{
          type: "text",
          text: kind === "elicitation" ? "colour teal" : "model said teal",
        }]);
        // The client's answer went back as a plain response, during tasks/result.
        const methods = receivedMethods(log);
        const resultAt = methods.lastIndexOf("tasks/result");
        assert.ok(
          methods.indexOf("response", resultAt) > resultAt,
          methods.join(),
        );
      },
    );
  }

  it(
    "tasks/cancel cancels a running task, its work stops, and a second cancel is -32602",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client, log } = await link();
      const created = await client.request({
        method: "tools/call",
        params: {
          name: "slow_task",
          arguments: { steps: 50, gapMs: 20 },
          task: {},
        },
      }, CreateTaskResultSchema);
      const taskId = created.task.taskId;
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      assert.equal(cancelled.status, "cancelled");
      assert.equal(cancelled.taskId, taskId);
      assert.ok(await waitFor(() => log.stopped.includes(taskId), 2_000));
      await assert.rejects(
        client.experimental.tasks.cancelTask(taskId),
        (error: { code?: number }) => error.code === -32602,
      );
      assert.equal(
        (await client.experimental.tasks.getTask(taskId)).status,
        "cancelled",
      );
    },
  );

  it(
    "an unknown task id is -32602 for tasks/get, tasks/result and tasks/cancel",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      for (
        const call of [
          () => client.experimental.tasks.getTask("no-such-task"),
          () =>
            client.experimental.tasks.getTaskResult(
              "no-such-task",
              CallToolResultSchema,
            ),
          () => client.experimental.tasks.cancelTask("no-such-task"),
        ]
      ) {
        await assert.rejects(call(), (error: { code?: number }) => {
          assert.ok(
            error.code === -32602 || error.code === -32603,
            String(error.code),
          );
          return true;
        });
      }
    },
  );

  it("optional_task runs inline without params.task and as a task with it", {
    timeout: TEST_MS,
  }, async () => {
    const { client, log } = await link();
    const inline = await client.callTool({
      name: "optional_task",
      arguments: {},
    });
    assert.deepEqual(inline.content, [{ type: "text", text: "ran inline" }]);
    const messages = await stream(client, "optional_task", {});
    assert.ok(messages.some((m) => m.type === "taskCreated"));
    assert.deepEqual(
      (last(messages) as { result: { content: unknown } }).result.content,
      [{
        type: "text",
        text: "ran as a task",
      }],
    );
    assert.deepEqual(log.created.map((c) => c.augmented), [false, true]);
  });

  it(
    "a required-task tool called plainly, and a forbidden one called as a task, are refused (McpServer's quirks)",
    {
      timeout: TEST_MS,
    },
    async () => {
      const { client } = await link();
      // McpServer answers with an isError result quoting -32601, not a JSON-RPC error.
      const plain = await client.request({
        method: "tools/call",
        params: { name: "slow_task", arguments: { steps: 1, gapMs: 0 } },
      }, CallToolResultSchema);
      assert.equal(plain.isError, true);
      assert.match(
        JSON.stringify(plain.content),
        /-32601.*requires task augmentation/,
      );
      // A forbidden tool run as a task: -32602 "Invalid task creation result" (spec: SHOULD be -32601).
      await assert.rejects(
        client.request({
          method: "tools/call",
          params: {
            name: "plain_tool",
            arguments: { message: "hi" },
            task: {},
          },
        }, CreateTaskResultSchema),
        (error: { code?: number; message: string }) => {
          assert.equal(error.code, -32602);
          assert.match(error.message, /Invalid task creation result/);
          return true;
        },
      );
    },
  );
});

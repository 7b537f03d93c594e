/**
 * Task calls against a scripted, misbehaving peer: malformed task answers,
 * notifications about other tasks, a zero poll interval, a server that runs
 * the call inline, and one that does not take task calls at all.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  MCPToolAdapter,
  type MCPTransport,
} from "@cleveragents/mcp-adapter";

type Answer = Record<string, unknown> | {
  error: { code: number; message: string };
};

interface Script {
  /** The server's `tasks` capability. Default: takes task tool calls and cancels. */
  tasks?: Record<string, unknown>;
  /** The answer to `tools/call`. */
  call: (request: JSONRPCRequest) => Answer;
  /** The answer to the n-th `tasks/get` (1-based). */
  get?: (n: number) => Answer;
  /** The answer to `tasks/result`. */
  result?: () => Answer;
}

/** A peer that answers from a script and records what the client sends. */
class TaskPeer implements MCPTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  readonly sent: JSONRPCMessage[] = [];
  #gets = 0;
  constructor(readonly script: Script) {}
  start(): Promise<void> {
    return Promise.resolve();
  }
  send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
    if (!("method" in message) || !("id" in message)) return Promise.resolve();
    const answer = this.#answer(message as JSONRPCRequest);
    if (answer !== undefined) {
      setTimeout(() =>
        this.onmessage?.(
          "error" in answer
            ? { jsonrpc: "2.0", id: message.id, error: answer.error as never }
            : { jsonrpc: "2.0", id: message.id, result: answer },
        )
      );
    }
    return Promise.resolve();
  }
  #answer(request: JSONRPCRequest): Answer | undefined {
    switch (request.method) {
      case "initialize":
        return {
          protocolVersion: "2025-11-25",
          capabilities: {
            tools: {},
            tasks: this.script.tasks ??
              { cancel: {}, requests: { tools: { call: {} } } },
          },
          serverInfo: { name: "scripted-tasks", version: "1" },
        };
      case "tools/list":
        return {
          tools: [{
            name: "job",
            inputSchema: { type: "object" },
            execution: { taskSupport: "required" },
          }],
        };
      case "tools/call":
        return this.script.call(request);
      case "tasks/get":
        return this.script.get?.(++this.#gets) ??
          { error: { code: -32602, message: "no such task" } };
      case "tasks/result":
        return this.script.result?.() ??
          { error: { code: -32602, message: "no such task" } };
      case "tasks/cancel":
        return {};
      default:
        return { error: { code: -32601, message: "Method not found" } };
    }
  }
  /** The requests the client sent, by method. */
  requests(method: string): JSONRPCRequest[] {
    return this.sent.filter((m): m is JSONRPCRequest =>
      "method" in m && m.method === method && "id" in m
    );
  }
  notify(method: string, params: Record<string, unknown>): void {
    this.onmessage?.({ jsonrpc: "2.0", method, params });
  }
  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

const task = (taskId: unknown, status: unknown, extra = {}) => ({
  taskId,
  status,
  ttl: null,
  createdAt: "2026-01-01T00:00:00Z",
  lastUpdatedAt: "2026-01-01T00:00:00Z",
  pollInterval: 10,
  ...extra,
});
const done = { content: [{ type: "text", text: "done" }] };

async function run(script: Script | TaskPeer, options = {}) {
  const peer = script instanceof TaskPeer ? script : new TaskPeer(script);
  const adapter = new MCPToolAdapter(
    { name: "scripted", transport: "stdio", command: "unused" },
    { transport: peer },
  );
  await adapter.connect();
  try {
    const result = await adapter.invoke("job", {}, options);
    return { peer, result };
  } finally {
    await adapter.disconnect();
  }
}

describe("tasks with a misbehaving server", () => {
  for (
    const [what, taskId] of [
      ["a number", 7],
      ["an empty string", ""],
      ["300 characters", "x".repeat(300)],
    ] as const
  ) {
    it(`a task id that is ${what} is a server error, and nothing is polled`, async () => {
      const { peer, result } = await run({
        call: () => ({ task: task(taskId, "working") }),
      });
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, /task id .* bug in the server/);
      assert.equal(peer.requests("tasks/get").length, 0);
    });
  }

  it("an unknown task status is a server error", async () => {
    const { result } = await run({
      call: () => ({ task: task("t1", "working") }),
      get: () => task("t1", "sleeping"),
    });
    assert.equal(result.errorKind, "server_error");
    assert.match(result.error!, /task status "sleeping"/);
  });

  it("a task status of 3 MB, or a list nested 100,000 deep, is quoted cut or named by its kind", async () => {
    let deep: unknown[] = [];
    for (let level = 1; level < 100_000; level++) deep = [deep];
    for (
      const [status, said] of [
        ["s".repeat(3_000_000), /task status "s{200}…"\. This is a bug/],
        [deep, /task status a list\. This is a bug/],
      ] as const
    ) {
      const { result } = await run({
        call: () => ({ task: task("t1", "working") }),
        get: () => task("t1", status),
      });
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, said);
      assert.ok(result.error!.length < 1_000, `${result.error!.length}`);
    }
  });

  it("a lastUpdatedAt that is not text (an object String() cannot call, a list 100,000 deep) changes nothing", async () => {
    let deep: unknown[] = [];
    for (let level = 1; level < 100_000; level++) deep = [deep];
    for (const lastUpdatedAt of [{ toString: 1 }, deep]) {
      const { result } = await run({
        call: () => ({ task: task("t1", "working", { lastUpdatedAt }) }),
        get: (n) =>
          task("t1", n < 2 ? "working" : "completed", { lastUpdatedAt }),
        result: () => done,
      });
      assert.equal(result.success, true, result.error ?? "");
      assert.deepEqual(result.data.content, done.content);
    }
  });

  it("a plain result to a task call is taken as the result (the server ran it inline)", async () => {
    const { peer, result } = await run({ call: () => done });
    assert.equal(result.success, true, result.error ?? "");
    assert.deepEqual(result.data.content, done.content);
    assert.equal(peer.requests("tasks/get").length, 0);
  });

  it("an answer to a task call that is neither a task nor a result is not a success", async () => {
    for (const resultType of ["task", "input_required"]) {
      const { result } = await run({
        call: () => ({ resultType, taskId: "t1", status: "working" }),
      });
      assert.equal(result.success, false, resultType);
      assert.equal(result.errorKind, "server_error");
      assert.match(
        result.error!,
        /neither a 2025-11-25 task nor a tool result/,
      );
    }
  });

  it("a resultType of 3 MB, an object or a list is quoted cut or named by its kind", async () => {
    for (
      const [resultType, said] of [
        // String() cannot call this toString.
        [{ toString: 1 }, /resultType an object, which is neither/],
        ["r".repeat(3_000_000), /resultType "r{200}…", which is neither/],
        [["complete"], /resultType a list, which is neither/],
      ] as const
    ) {
      const { result } = await run({ call: () => ({ resultType }) });
      assert.equal(result.errorKind, "server_error");
      assert.match(result.error!, said);
      assert.ok(result.error!.length < 1_000, `${result.error!.length}`);
    }
  });

  it("a server without tasks.requests.tools.call gets a plain tools/call, whatever the tool says", async () => {
    const { peer, result } = await run({ tasks: {}, call: () => done });
    assert.equal(result.success, true);
    assert.equal(peer.requests("tools/call")[0]!.params!.task, undefined);
  });

  it("status notifications about other tasks change nothing; the task id goes only into params.taskId", async () => {
    const url = "https://evil.example/steal";
    const peer: TaskPeer = new TaskPeer({
      call: () => {
        // Before and after the answer: both name a task that is not ours.
        peer.notify("notifications/tasks/status", task("other", "cancelled"));
        setTimeout(() =>
          peer.notify("notifications/tasks/status", task("other", "cancelled"))
        );
        return { task: task(url, "working") };
      },
      get: (n) => {
        peer.notify("notifications/tasks/status", task("other", "failed"));
        return task(url, n < 3 ? "working" : "completed");
      },
      result: () => done,
    });
    const { result, peer: used } = await run(peer);
    assert.equal(result.success, true, result.error ?? "");
    // Polled until the third get says completed, then one result.
    assert.equal(used.requests("tasks/get").length, 3);
    assert.equal(used.requests("tasks/result").length, 1);
    for (const method of ["tasks/get", "tasks/result"]) {
      for (const request of used.requests(method)) {
        assert.deepEqual(request.params, { taskId: url });
      }
    }
  });

  it("status notifications that each say something new wake the poll, but never make the client spin", async () => {
    const started = performance.now();
    const peer: TaskPeer = new TaskPeer({
      call: () => {
        setTimeout(() =>
          peer.notify(
            "notifications/tasks/status",
            task("t1", "working", { statusMessage: "started" }),
          ), 5);
        return { task: task("t1", "working", { pollInterval: 1000 }) };
      },
      get: (n) => {
        // Something new every time: each wakes the poll at once.
        peer.notify(
          "notifications/tasks/status",
          task("t1", "working", { statusMessage: `step ${n}` }),
        );
        return task(
          "t1",
          performance.now() - started > 300 ? "completed" : "working",
          { pollInterval: 1000, statusMessage: `step ${n}` },
        );
      },
      result: () => done,
    });
    const { result } = await run(peer);
    assert.equal(result.success, true, result.error ?? "");
    // At most one poll per 10 ms (the floor of a poll interval).
    const polls = peer.requests("tasks/get").length;
    const elapsed = performance.now() - started;
    assert.ok(polls <= elapsed / 10 + 2, `${polls} polls in ${elapsed} ms`);
  });

  it("a status or progress message echoing a secret reaches onTaskStatus and onProgress masked", async () => {
    const secret = "s3cr3t-STATUS-0123456789";
    const said = `still at it with ${secret}`;
    const peer: TaskPeer = new TaskPeer({
      call: (request) => {
        const meta = request.params?._meta as Record<string, unknown>;
        setTimeout(() =>
          peer.notify("notifications/progress", {
            progressToken: meta.progressToken,
            progress: 1,
            message: said,
          })
        );
        return { task: task("t1", "working", { statusMessage: said }) };
      },
      get: (n) =>
        task("t1", n < 3 ? "working" : "failed", {
          statusMessage: `${n} ${said}`,
        }),
    });
    const adapter = new MCPToolAdapter(
      {
        name: "scripted",
        transport: "stdio",
        command: "unused",
        env: { API_KEY: secret },
      },
      { transport: peer },
    );
    const heard: string[] = [];
    await adapter.connect();
    try {
      const result = await adapter.invoke("job", {}, {
        onTaskStatus: (status) => heard.push(status.statusMessage ?? ""),
        onProgress: (progress) => heard.push(progress.message ?? ""),
      });
      assert.equal(result.success, false);
      heard.push(result.error!);
    } finally {
      await adapter.disconnect();
    }
    assert.ok(heard.includes("still at it with [redacted]"), heard.join("\n"));
    assert.ok(
      heard.includes("3 still at it with [redacted]"),
      heard.join("\n"),
    );
    assert.ok(
      heard.every((text) => !text.includes("s3cr3t")),
      heard.join("\n"),
    );
  });

  it("a zero pollInterval is clamped: the client does not spin", async () => {
    const started = performance.now();
    const { peer, result } = await run({
      call: () => ({ task: task("t1", "working", { pollInterval: 0 }) }),
      get: () =>
        task(
          "t1",
          performance.now() - started > 200 ? "completed" : "working",
          {
            pollInterval: 0,
          },
        ),
      result: () => done,
    });
    assert.equal(result.success, true, result.error ?? "");
    assert.ok(
      peer.requests("tasks/get").length <= 30,
      `${peer.requests("tasks/get").length} polls in 200 ms`,
    );
  });
});

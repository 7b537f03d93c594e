/**
 * `mcp-adapter tasks` and `tasks resume <id>`, through `main()`: a `call`
 * whose task server drops its session while the task runs fails, but
 * leaves the task's handle in the command line's task store (beside the
 * token store, in a temporary XDG_CONFIG_HOME); `tasks` lists it, `tasks
 * resume` waits for it on a new session and prints its result as `call`
 * would, and the handle is gone after. Against the 2025-11-25 task fixture
 * over streamable HTTP, whose tasks outlive their session.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../cli.ts";
import { type TaskHttpServer, taskHttpServer } from "../_task_http.ts";

const TEST_TIMEOUT_MS = 60_000;

describe("mcp-adapter tasks (cli)", () => {
  let dir: string;
  let server: TaskHttpServer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-cli-tasks-"));
    server = await taskHttpServer({ sessionBound: false });
    await writeFile(
      join(dir, "mcp.yaml"),
      [
        "servers:",
        "  - name: tasks",
        "    transport: streamable-http",
        `    url: ${server.url}`,
        "",
      ].join("\n"),
    );
  });

  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function run(args: string[]) {
    let stdout = "";
    let stderr = "";
    const code = await main(args, {
      cwd: dir,
      env: { XDG_CONFIG_HOME: join(dir, "config") },
      stdout: { write: (text: string) => void (stdout += text) },
      stderr: { write: (text: string) => void (stderr += text) },
    });
    return { code, stdout, stderr };
  }

  it(
    "a call cut off from its server leaves its task; tasks lists it, tasks resume prints its result",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      // The server drops the call's session at the task's first poll.
      const received = server.log.received;
      const push = received.push.bind(received);
      received.push = (...entries) => {
        const length = push(...entries);
        if (entries.some((entry) => entry.method === "tasks/get")) {
          received.push = push;
          for (const [id, transport] of server.sessions) {
            server.sessions.delete(id);
            void transport.close();
          }
        }
        return length;
      };
      const call = await run(["call", "tasks/poll_task", "polls=1000000"]);
      received.push = push;
      assert.equal(call.code, 3, call.stderr);
      assert.match(call.stderr, /the call failed \(connection\)/);
      const created = server.log.created;

      const listed = await run(["tasks", "--json"]);
      assert.equal(listed.code, 0, listed.stderr);
      const [task, ...others] = JSON.parse(listed.stdout);
      assert.deepEqual(others, []);
      assert.equal(task.server, "tasks");
      assert.equal(task.tool, "poll_task");
      assert.equal(task.taskId, created[0]!.taskId);
      const table = await run(["tasks"]);
      assert.match(table.stdout, /^ID +SERVER +TOOL +STARTED +ENDS\n/);
      assert.match(
        table.stdout,
        new RegExp(`^${task.id} +tasks +poll_task `, "m"),
      );

      await server.store.storeTaskResult(task.taskId, "completed", {
        content: [{ type: "text", text: "finished while away" }],
      });
      const resumed = await run(["tasks", "resume", task.id]);
      assert.deepEqual(resumed, {
        code: 0,
        stdout: "finished while away\n",
        stderr: "",
      });
      assert.equal((await run(["tasks"])).stdout, "No open tasks.\n");
      const again = await run(["tasks", "resume", task.id]);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /no open task "[0-9a-f]{16}": it ended/);
    },
  );
});

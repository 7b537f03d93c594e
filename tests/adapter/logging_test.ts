/**
 * Server log messages: `notifications/message` reaches `onLog`, and
 * `setLogLevel()` sends `logging/setLevel` when the server declares logging
 * — against the SDK task fixture in-process and over streamable HTTP.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  MCPConfigError,
  type MCPLogLevel,
  type MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";
import { linkedAdapter } from "../_in_memory.ts";
import {
  createTaskServer,
  LOG_LEVELS,
  newTaskServerLog,
  receivedMethods,
  type TaskServerLog,
} from "../_task_server.ts";
import { connectedOverHttp } from "../_task_http.ts";
import { releaseAfterEach, waitFor } from "../_helpers.ts";

const TEST_MS = 15_000;
const cleanups = releaseAfterEach("together");

interface Logged {
  level: MCPLogLevel;
  logger: string | undefined;
  data: unknown;
}

async function connected(
  log: TaskServerLog = newTaskServerLog(),
  options: Omit<MCPToolAdapterOptions, "transport"> = {},
): Promise<{ adapter: MCPToolAdapter; logs: Logged[] }> {
  const logs: Logged[] = [];
  const { adapter } = linkedAdapter(() => createTaskServer(log), {
    onLog: (level, logger, data) => void logs.push({ level, logger, data }),
    ...options,
  });
  cleanups.push(() => adapter.disconnect());
  await adapter.connect();
  return { adapter, logs };
}

describe("server log messages", () => {
  it("reach onLog with level, logger and data, before the call's result", {
    timeout: TEST_MS,
  }, async () => {
    const { adapter, logs } = await connected();
    const result = await adapter.invoke("log", { message: "hello" });
    assert.equal(result.success, true);
    assert.deepEqual(logs.map((entry) => entry.level), LOG_LEVELS);
    assert.deepEqual(logs[0], {
      level: "debug",
      logger: "task-fixture",
      data: { message: "hello", level: "debug" },
    });
  });

  it("setLogLevel() sends logging/setLevel; the server then filters", {
    timeout: TEST_MS,
  }, async () => {
    const log = newTaskServerLog();
    const { adapter, logs } = await connected(log);
    assert.equal(await adapter.setLogLevel("error"), true);
    assert.deepEqual(log.levels, ["error"]);
    await adapter.invoke("log", {});
    assert.deepEqual(
      logs.map((entry) => entry.level),
      ["error", "critical", "alert", "emergency"],
    );
  });

  it("setLogLevel() refuses an unknown level without asking the server", {
    timeout: TEST_MS,
  }, async () => {
    const log = newTaskServerLog();
    const { adapter } = await connected(log);
    await assert.rejects(
      adapter.setLogLevel("loud" as MCPLogLevel),
      (error: unknown) => {
        assert.ok(error instanceof MCPConfigError);
        assert.match(error.message, /"loud"/);
        assert.match(error.message, /debug, info/);
        return true;
      },
    );
    assert.ok(!receivedMethods(log).includes("logging/setLevel"));
  });

  it("setLogLevel() sends nothing to a server that does not declare logging", {
    timeout: TEST_MS,
  }, async () => {
    const { adapter } = linkedAdapter();
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    assert.equal(adapter.serverInfo?.capabilities.logging, undefined);
    assert.equal(await adapter.setLogLevel("debug"), false);
  });

  it("the level is sent again to the next session after reconnect()", {
    timeout: TEST_MS,
  }, async () => {
    const log = newTaskServerLog();
    const { adapter } = await connected(log);
    await adapter.setLogLevel("warning");
    await adapter.reconnect();
    assert.ok(await waitFor(() => log.levels.length === 2, 5_000));
    assert.deepEqual(log.levels, ["warning", "warning"]);
  });

  it("are dropped without onLog, and a throwing onLog goes to onError", {
    timeout: TEST_MS,
  }, async () => {
    const quiet = linkedAdapter(() => createTaskServer()).adapter;
    cleanups.push(() => quiet.disconnect());
    await quiet.connect();
    assert.equal((await quiet.invoke("log", {})).success, true);

    const errors: Error[] = [];
    const { adapter } = linkedAdapter(() => createTaskServer(), {
      onLog: () => {
        throw new Error("listener broke");
      },
      onError: (error) => void errors.push(error),
    });
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    const result = await adapter.invoke("log", { levels: ["info"] });
    assert.equal(result.success, true);
    assert.deepEqual(errors.map((error) => error.message), ["listener broke"]);
  });

  it(
    "arrive over streamable HTTP, also on the GET stream when tied to no request",
    {
      timeout: TEST_MS,
    },
    async () => {
      const logs: Logged[] = [];
      const { adapter } = await connectedOverHttp(cleanups, {
        onLog: (level, logger, data) => void logs.push({ level, logger, data }),
      });
      await adapter.invoke("log", { levels: ["notice"] });
      assert.deepEqual(logs.map((entry) => entry.level), ["notice"]);
      await adapter.invoke("log_later", {
        level: "alert",
        delayMs: 10,
        message: "later",
      });
      assert.ok(await waitFor(() => logs.length === 2, 5_000));
      assert.deepEqual(logs[1], {
        level: "alert",
        logger: "task-fixture",
        data: "later",
      });
    },
  );
});

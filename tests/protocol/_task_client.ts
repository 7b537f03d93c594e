/**
 * SDK clients for the task fixture's own tests (`task_fixture*_test.ts`):
 * linked in-process or over any transport, recording what the fixture
 * sends them, and closed after each test.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ResponseMessage } from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  CallToolResultSchema,
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  type TaskStatusNotification,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  createTaskServer,
  newTaskServerLog,
  type TaskServerLog,
} from "../_task_server.ts";
import { within } from "../_remote.ts";
import { type Cleanup, releaseAfterEach } from "../_helpers.ts";

/** Each test's deadline. */
export const TEST_MS = 15_000;
/** The `_meta` key tying a message to its task. */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** An SDK client and what it received. */
export interface Linked {
  client: Client;
  log: TaskServerLog;
  statuses: TaskStatusNotification["params"][];
  logs: LoggingMessageNotification["params"][];
  /** Requests the server sent the client, with their params. */
  serverRequests: { method: string; params: Record<string, unknown> }[];
}

/** What {@linkcode taskClients} makes; each thing is closed after the test. */
export interface TaskClients {
  /** An SDK client linked in-process to a fresh fixture server; tools listed. */
  link(): Promise<Linked>;
  /** An SDK client over `transport` that records status, log and server requests; tools listed. */
  sdkClient(transport: Transport, log: TaskServerLog): Promise<Linked>;
  /** Everything the current test opened; add your own. */
  cleanups: Cleanup[];
}

/** Registers the `afterEach` that closes what the returned factories open; call once per file. */
export function taskClients(): TaskClients {
  const cleanups = releaseAfterEach("together");

  /** An SDK client linked in-process to a fresh fixture server; tools listed. */
  async function link(): Promise<Linked> {
    const log = newTaskServerLog();
    const server = createTaskServer(log);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    cleanups.push(() => server.close());
    return await sdkClient(clientSide, log);
  }

  /** An SDK client over `transport` that records status, log and server requests; tools listed. */
  async function sdkClient(
    transport: Transport,
    log: TaskServerLog,
  ): Promise<Linked> {
    const client = new Client({ name: "fixture-test", version: "1.0.0" }, {
      capabilities: { elicitation: {}, sampling: {} },
    });
    const linked: Linked = {
      client,
      log,
      statuses: [],
      logs: [],
      serverRequests: [],
    };
    client.setNotificationHandler(
      TaskStatusNotificationSchema,
      (n: TaskStatusNotification) => void linked.statuses.push(n.params),
    );
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n: LoggingMessageNotification) => void linked.logs.push(n.params),
    );
    client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
      linked.serverRequests.push(request as never);
      return { action: "accept", content: { colour: "teal" } };
    });
    client.setRequestHandler(
      CreateMessageRequestSchema,
      (request: CreateMessageRequest) => {
        linked.serverRequests.push(request as never);
        return {
          role: "assistant",
          content: { type: "text", text: "teal" },
          model: "fake",
        };
      },
    );
    await client.connect(transport);
    cleanups.push(() => client.close());
    await client.listTools(); // the SDK client learns each tool's taskSupport
    return linked;
  }

  return { link, sdkClient, cleanups };
}

/** Runs a tool through the SDK's task stream; every message it yielded. */
export async function stream(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (progress: { progress: number; total?: number }) => void,
): Promise<ResponseMessage<never>[]> {
  const messages: ResponseMessage<never>[] = [];
  const run = async () => {
    for await (
      const message of client.experimental.tasks.callToolStream(
        { name, arguments: args },
        CallToolResultSchema,
        { ...(onprogress ? { onprogress } : {}), timeout: 10_000 },
      )
    ) messages.push(message as ResponseMessage<never>);
  };
  await within(run(), 10_000, `task "${name}"`);
  return messages;
}

/** The id of the task a stream created. */
export function taskIdOf(messages: ResponseMessage<never>[]): string {
  const created = messages.find((m) => m.type === "taskCreated");
  assert.ok(created, `no taskCreated in ${JSON.stringify(messages)}`);
  return (created as { task: { taskId: string } }).task.taskId;
}

/** The statuses a stream reported, in order. */
export const statusesOf = (messages: ResponseMessage<never>[]) =>
  messages.filter((m) => m.type === "taskStatus").map((m) =>
    (m as { task: { status: string } }).task.status
  );

/** The last item. */
export const last = <T>(items: T[]): T => items[items.length - 1]!;

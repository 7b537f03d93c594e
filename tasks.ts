/**
 * Durable tool tasks: when a tool call becomes a task on its server
 * (MCP 2025-11-25 tasks, or the 2026-07-28 tasks extension), the adapter
 * writes its handle to a task store, with a lease that the worker polling
 * it renews. A worker that outlives the one that started the task lists
 * the open tasks (`adapter.openTasks()`) and resumes one
 * (`adapter.resumeTask(id)`, or `hub.start({ resumeTasks })`), getting the
 * envelope the first `invoke()` would have returned; the lease makes sure
 * one worker polls it. Stores: in memory ({@linkcode MemoryTaskStore}, the
 * adapter's default), a file ({@linkcode FileTaskStore}, one machine: the
 * command line's) and Redis ({@linkcode RedisTaskStore}, a fleet: the same
 * client as the Redis token store's).
 *
 * Web standards only at import time; the file store reaches `node:` file
 * APIs when it touches its file. A separate entry, so that the root one
 * stays small.
 *
 * @example A fleet's workers: a task survives the worker that started it
 * ```ts ignore
 * import { createClient } from "redis";
 * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
 * import { RedisTaskStore } from "@cleveragents/mcp-adapter/tasks";
 *
 * const redis = await createClient({ url: "redis://state.internal:6379" }).connect();
 * const adapter = new MCPToolAdapter(
 *   { name: "research", transport: "streamable-http", url: "https://mcp.example.com/mcp" },
 *   { taskStore: new RedisTaskStore(redis) },
 * );
 * await adapter.connect();
 * for (const task of await adapter.openTasks()) {
 *   const result = await adapter.resumeTask(task.id); // waits for a dead worker's lease
 *   console.log(task.tool, result.success);
 * }
 * ```
 *
 * @module
 */

export {
  MemoryTaskStore,
  type MemoryTaskStoreOptions,
} from "./src/tasks/memory_store.ts";
export { FileTaskStore } from "./src/tasks/file_store.ts";
export {
  RedisTaskStore,
  type RedisTaskStoreOptions,
} from "./src/tasks/redis_store.ts";
export {
  DEFAULT_TASK_LEASE_MS,
  type TaskHandle,
  taskHandleId,
  type TaskStore,
  type TaskStoreOptions,
} from "./src/tasks/store.ts";
// Types the API above refers to, listed so this entry documents on its own.
export type { RedisClientLike } from "./src/util/redis.ts";

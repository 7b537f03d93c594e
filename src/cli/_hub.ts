/**
 * The servers a command needs, started as a hub that is always closed
 * again, and the tool a command names: `ns/tool`, an alias, or the bare
 * name its server gave it. Internal.
 *
 * @module
 */

import type { ServerEntry } from "../config/load.ts";
import { type HubServerStatus, MCPToolHub } from "../hub.ts";
import type { RegisteredTool } from "../tools/registry.ts";
import { didYouMean } from "../util/closest.ts";
import type { Context } from "./_context.ts";
import { CliError, CONNECTION, INTERRUPTED, USAGE } from "./_exit.ts";
import { writeLog } from "./_output.ts";
import { serverAuth } from "../auth/server_auth.ts";

/** Starts a hub over `ctx.servers`, runs `run`, and always closes the hub (also on abort). */
export async function withHub<T>(
  ctx: Context,
  run: (hub: MCPToolHub, statuses: HubServerStatus[]) => Promise<T>,
): Promise<T> {
  const hub = new MCPToolHub(ctx.servers, {
    adapterOptions: ctx.adapterOptions,
    authProvider: serverAuth(ctx.tokens),
    ...(ctx.verbose ? { onLog: (...log) => writeLog(ctx.stderr, ...log) } : {}),
  });
  const onAbort = () => void hub.close();
  ctx.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const statuses = await hub.start();
    if (ctx.signal?.aborted) throw new CliError(INTERRUPTED, "interrupted");
    return await run(hub, statuses);
  } finally {
    ctx.signal?.removeEventListener("abort", onAbort);
    await hub.close();
  }
}

/**
 * Starts the server(s) a tool name needs and finds the tool. `ns/tool` starts
 * only the server of namespace `ns`; an alias or a bare tool name starts them
 * all. A bare name (`echo`, as the server calls it) is the tool of that name
 * when one server has it; with several, the user is asked to pick one.
 */
export async function withTool(
  ctx: Context,
  name: string,
  run: (tool: RegisteredTool) => Promise<number>,
): Promise<number> {
  const { servers } = ctx;
  let needed = servers.filter((entry) => entry.enabled);
  if (name.includes("/")) {
    const namespace = namespaceOf(name);
    const entry = servers.find((server) => server.namespace === namespace);
    if (!entry) {
      throw new CliError(
        USAGE,
        `no server has the namespace ${
          JSON.stringify(namespace)
        }; namespaces: ${servers.map((server) => server.namespace).join(", ")}`,
      );
    }
    if (!entry.enabled) {
      throw new CliError(
        USAGE,
        `server "${entry.config.name}" (namespace ${
          JSON.stringify(namespace)
        }) is disabled in the config`,
      );
    }
    needed = [entry];
  }
  return await withHub({ ...ctx, servers: needed }, async (hub, statuses) => {
    const tool = hub.registry.resolve(name) ??
      bareTool(name, inConfigOrder(hub.registry.list(), servers));
    if (tool) return await run(tool);
    const failed = statuses.filter((status) => status.state === "failed");
    if (failed.length > 0) {
      throw new CliError(
        CONNECTION,
        failed.map((status) =>
          `server "${status.name}" failed: ${status.error}`
        ).join("\n"),
      );
    }
    const known = (name.includes("/")
      ? hub.registry.listNamespace(namespaceOf(name))
      : hub.registry.list()).map((entry) =>
        entry.name
      );
    const near = name.includes("/")
      ? didYouMean(name, known)
      : didYouMean(name, [...known, ...known.map(bareOf)]);
    throw new CliError(
      USAGE,
      `no tool ${JSON.stringify(name)}${near}; ${
        known.length === 0
          ? "the server exposes no tools"
          : `available: ${known.slice(0, 20).join(", ")}${
            known.length > 20 ? ", …" : ""
          }`
      } (see "mcp-adapter tools")`,
    );
  });
}

/**
 * Tools by their server's place in the config, then as registered: servers
 * connect concurrently, so their tools reach the registry in whatever order
 * they answer.
 */
export function inConfigOrder(
  tools: readonly RegisteredTool[],
  servers: readonly ServerEntry[],
): RegisteredTool[] {
  const order = new Map(
    servers.map((entry, index) => [entry.namespace, index]),
  );
  return tools.map((tool, index) => ({ tool, index }))
    .sort((a, b) =>
      (order.get(namespaceOf(a.tool.name)) ?? 0) -
        (order.get(namespaceOf(b.tool.name)) ?? 0) || a.index - b.index
    ).map(({ tool }) => tool);
}

/**
 * The one tool of `tools` whose name without its namespace is `name`, if
 * `name` has no namespace; several are refused with their full names.
 */
function bareTool(
  name: string,
  tools: readonly RegisteredTool[],
): RegisteredTool | undefined {
  if (name.includes("/")) return undefined;
  const matches = tools.filter((tool) => bareOf(tool.name) === name);
  if (matches.length > 1) {
    throw new CliError(
      USAGE,
      `several servers have a tool ${JSON.stringify(name)}: ${
        matches.map((tool) => tool.name).join(", ")
      }; name one as ns/tool`,
    );
  }
  return matches[0];
}

/** A tool's name as its server gave it: after the namespace's `/`. */
function bareOf(name: string): string {
  return name.slice(name.indexOf("/") + 1);
}

/** The namespace of a `ns/tool` name. */
export function namespaceOf(name: string): string {
  return name.slice(0, name.indexOf("/"));
}

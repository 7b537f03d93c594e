/**
 * Resources and prompts across the servers of a hub: each server's lists,
 * listed concurrently, namespaced like its tools (`{namespace}/…`) and
 * marked with the server they came from; a server whose listing fails is
 * reported, never thrown, and the others are listed. Reading and getting
 * by namespaced id goes to the one server it names. Loaded by
 * `MCPToolHub` with the first call that needs it. Internal.
 *
 * @module
 */

import type { MCPToolAdapter } from "./adapter.ts";
import type * as shapes from "../protocol/content_types.ts";
import { quoted } from "../util/quoted.ts";
import { didYouMean } from "../util/closest.ts";
import { errorMessage } from "../util/caught.ts";
import { failed } from "./_envelope.ts";

/** One connected server of a hub. */
export interface HubMember {
  /** Its name (`config.name`). */
  server: string;
  /** Its namespace. */
  namespace: string;
  /** Its adapter. */
  adapter: MCPToolAdapter;
}

/** Where an entry of a hub's list came from. */
export interface MCPProvenance {
  /** `{namespace}/{name}` of a prompt, `{namespace}/{uri}` of a resource, `{namespace}/{uriTemplate}` of a template. */
  id: string;
  /** The server's name (`config.name`). */
  server: string;
  /** The server's namespace. */
  namespace: string;
}

/** A hub's list: every connected server's entries, and the servers whose listing failed. */
export interface HubList<T> {
  /** The entries, servers in config order, each with where it came from. */
  items: (T & MCPProvenance)[];
  /** The connected servers that could not be listed, and why (redacted). */
  failed: { server: string; error: string }[];
}

/** Lists `members` concurrently, in order; a failure is reported, not thrown. */
async function gather<T>(
  members: readonly HubMember[],
  list: (adapter: MCPToolAdapter) => Promise<T[]>,
  key: (entry: T) => string,
): Promise<HubList<T>> {
  const settled = await Promise.allSettled(
    members.map((member) => list(member.adapter)),
  );
  const result: HubList<T> = { items: [], failed: [] };
  for (const [index, outcome] of settled.entries()) {
    const { server, namespace } = members[index]!;
    if (outcome.status === "rejected") {
      result.failed.push({ server, error: errorMessage(outcome.reason) });
      continue;
    }
    for (const entry of outcome.value) {
      result.items.push({
        ...entry,
        id: `${namespace}/${key(entry)}`,
        server,
        namespace,
      });
    }
  }
  return result;
}

/** Every connected server's resources. */
export function listResources(
  members: readonly HubMember[],
): Promise<HubList<shapes.MCPResource>> {
  return gather(members, (adapter) => adapter.listResources(), (r) => r.uri);
}

/** Every connected server's resource templates. */
export function listResourceTemplates(
  members: readonly HubMember[],
): Promise<HubList<shapes.MCPResourceTemplate>> {
  return gather(
    members,
    (adapter) => adapter.listResourceTemplates(),
    (template) => template.uriTemplate,
  );
}

/** Every connected server's prompts. */
export function listPrompts(
  members: readonly HubMember[],
): Promise<HubList<shapes.MCPPrompt>> {
  return gather(members, (adapter) => adapter.listPrompts(), (p) => p.name);
}

/**
 * The member an id's namespace names, and the rest of the id; or the
 * failure that says there is none.
 */
function route(
  members: readonly HubMember[],
  id: string,
): { member: HubMember; rest: string } | { failure: string } {
  const slash = typeof id === "string" ? id.indexOf("/") : -1;
  const namespace = slash === -1 ? undefined : id.slice(0, slash);
  const member = members.find((m) => m.namespace === namespace);
  if (member !== undefined) return { member, rest: id.slice(slash + 1) };
  const namespaces = members.map((m) => m.namespace);
  return {
    failure: slash === -1
      ? `${
        quoted(id)
      } names no server: write it {namespace}/…, as the hub lists it (connected namespaces: ${
        namespaces.join(", ") || "none"
      })`
      : `No connected server has the namespace ${quoted(namespace)}${
        didYouMean(namespace!, namespaces)
      } (connected: ${namespaces.join(", ") || "none"})`,
  };
}

/** Reads `{namespace}/{uri}` (or a template, with `options.variables`) from its server. */
export async function readResource(
  members: readonly HubMember[],
  id: string,
  options: shapes.ReadResourceOptions | undefined,
): Promise<shapes.MCPOutcome<shapes.MCPResourceRead>> {
  const routed = route(members, id);
  if ("failure" in routed) {
    return failed("not_found", routed.failure, performance.now(), []);
  }
  return await routed.member.adapter.readResource(routed.rest, options);
}

/** Gets prompt `{namespace}/{name}` from its server. */
export async function getPrompt(
  members: readonly HubMember[],
  id: string,
  args: Record<string, string> | undefined,
  options: shapes.PromptOptions | undefined,
): Promise<shapes.MCPOutcome<shapes.MCPPromptMessages>> {
  const routed = route(members, id);
  if ("failure" in routed) {
    return failed("not_found", routed.failure, performance.now(), []);
  }
  return await routed.member.adapter.getPrompt(routed.rest, args, options);
}

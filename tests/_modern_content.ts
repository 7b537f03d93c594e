/**
 * The resources, resource templates and prompts of the modern test server
 * (`_modern.ts`): written with the SDK v2's `registerResource` and
 * `registerPrompt`, but listed in pages (the SDK lists all at once), so a
 * client must follow the cursor. A tool, `touch`, announces that a
 * resource changed; another, `add_document`, that the list did.
 *
 * @module
 */

import {
  completable,
  type McpServer,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { z } from "zod";

/** How a server announces changes (HTTP: the handler's notifier; stdio: the server itself). */
export interface ContentNotifier {
  resourceUpdated(uri: string): void;
  resourcesChanged(): void;
}

/** The documents listed, in pages of {@linkcode PAGE_SIZE}. */
export const DOCUMENTS = 7;
/** Entries per page of `resources/list` and `prompts/list`. */
export const PAGE_SIZE = 3;
/** The size of `fixture://blob/big`, in bytes. */
export const BIG_BLOB_BYTES = 65_536;
/** Documents added with `add_document`, kept across the per-request servers of HTTP. */
const addedDocuments = new Set<string>();

function documentUri(name: string): string {
  return `fixture://doc/${name}`;
}

function registerDocument(server: McpServer, name: string): void {
  server.registerResource(
    `document ${name}`,
    documentUri(name),
    { mimeType: "text/plain", description: `Document ${name}` },
    (uri) => ({
      contents: [{
        uri: uri.href,
        mimeType: "text/plain",
        text: `document ${name}`,
      }],
    }),
  );
}

/**
 * Adds the fixture's resources, templates, prompts and their tools to
 * `server`, and lists resources and prompts in pages.
 */
export function addContent(
  server: McpServer,
  notify: ContentNotifier,
): void {
  for (let n = 1; n <= DOCUMENTS; n++) registerDocument(server, String(n));
  for (const name of addedDocuments) registerDocument(server, name);
  server.registerResource(
    "big blob",
    "fixture://blob/big",
    { mimeType: "application/octet-stream" },
    (uri) => ({
      contents: [{
        uri: uri.href,
        mimeType: "application/octet-stream",
        blob: btoa("x".repeat(BIG_BLOB_BYTES)),
      }],
    }),
  );
  server.registerResource(
    "items",
    new ResourceTemplate("fixture://items/{id}", {
      list: undefined,
      complete: {
        id: (value) =>
          ["1", "2", "3", "10"].filter((id) => id.startsWith(value)),
      },
    }),
    { mimeType: "text/plain", description: "An item by id" },
    (uri, variables) => ({
      contents: [{
        uri: uri.href,
        mimeType: "text/plain",
        text: `item ${variables.id}`,
      }],
    }),
  );
  server.registerPrompt("greet", {
    title: "Greeting",
    description: "Greets someone",
    argsSchema: z.object({
      name: completable(
        z.string().describe("Who to greet"),
        (value) => ["Ada", "Alan", "Grace"].filter((n) => n.startsWith(value)),
      ),
      style: z.string().optional(),
    }),
  }, ({ name, style }) => ({
    messages: [{
      role: "user",
      content: {
        type: "text",
        text: `${style === "formal" ? "Good day" : "Hello"}, ${name}!`,
      },
    }],
  }));
  server.registerPrompt("review", {
    description: "Asks for a review of an item, with the item embedded",
    argsSchema: z.object({ id: z.string() }),
  }, ({ id }) => ({
    messages: [
      {
        role: "user",
        content: { type: "text", text: `Review item ${id}:` },
      },
      {
        role: "user",
        content: {
          type: "resource",
          resource: {
            uri: `fixture://items/${id}`,
            mimeType: "text/plain",
            text: `item ${id}`,
          },
        },
      },
      {
        role: "assistant",
        content: { type: "image", data: btoa("png"), mimeType: "image/png" },
      },
    ],
  }));
  for (let n = 1; n <= 3; n++) {
    server.registerPrompt(`plain_${n}`, { description: `Plain ${n}` }, () => ({
      messages: [{
        role: "user",
        content: { type: "text", text: `plain ${n}` },
      }],
    }));
  }
  server.registerTool("touch", {
    description: "Announces that a resource changed",
    inputSchema: z.object({ uri: z.string() }),
  }, ({ uri }) => {
    notify.resourceUpdated(uri);
    return { content: [{ type: "text", text: `touched ${uri}` }] };
  });
  server.registerTool("add_document", {
    description: "Adds a document; the server announces the list changed",
    inputSchema: z.object({ name: z.string() }),
  }, ({ name }) => {
    if (!addedDocuments.has(name)) {
      addedDocuments.add(name);
      registerDocument(server, name);
      notify.resourcesChanged();
    }
    return { content: [{ type: "text", text: `added ${name}` }] };
  });
  paginate(server, "resources/list", "resources");
  paginate(server, "prompts/list", "prompts");
}

/**
 * Replaces the SDK's handler of a list method with one that serves its
 * list {@linkcode PAGE_SIZE} entries at a time, the cursor being the
 * offset.
 */
function paginate(
  server: McpServer,
  method: "resources/list" | "prompts/list",
  field: "resources" | "prompts",
): void {
  const inner = server.server as unknown as {
    _requestHandlers: Map<
      string,
      (request: unknown, context: unknown) => Promise<Record<string, unknown>>
    >;
  };
  const all = inner._requestHandlers.get(method)!;
  inner._requestHandlers.set(method, async (request, context) => {
    const whole = await all(request, context);
    const cursor = (request as { params?: { cursor?: string } }).params?.cursor;
    const start = cursor === undefined ? 0 : Number(cursor);
    const entries = whole[field] as unknown[];
    const next = start + PAGE_SIZE;
    return {
      ...whole,
      [field]: entries.slice(start, next),
      ...(next < entries.length ? { nextCursor: String(next) } : {}),
    };
  });
}

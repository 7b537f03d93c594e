/**
 * A small MCP server over stdio, built with the official SDK: an in-memory
 * notebook. It ships with the repository so the demo and the command line
 * have something real to talk to.
 *
 * Run it: `deno run examples/notes_server.ts` (it speaks MCP on stdin/stdout).
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

interface Note {
  id: number;
  title: string;
  body: string;
  tags: string[];
}

const notes = new Map<number, Note>([
  [1, {
    id: 1,
    title: "Welcome",
    body: "This notebook lives in an MCP server.",
    tags: ["intro"],
  }],
  [2, {
    id: 2,
    title: "Groceries",
    body: "Oat milk, coffee, lemons.",
    tags: ["home"],
  }],
]);
let nextId = 3;

const server = new McpServer({ name: "notes", version: "1.0.0" });
const text = (value: unknown) => ({
  content: [{ type: "text" as const, text: JSON.stringify(value) }],
});

server.registerTool("list_notes", {
  description: "List every note's id and title.",
  inputSchema: {},
}, () => text([...notes.values()].map(({ id, title }) => ({ id, title }))));

server.registerTool("search_notes", {
  description: "Find notes whose title, body or tags contain a phrase.",
  inputSchema: { query: z.string().min(1).describe("Phrase to look for") },
}, ({ query }: { query: string }) => {
  const needle = query.toLowerCase();
  return text(
    [...notes.values()].filter((note) =>
      `${note.title} ${note.body} ${note.tags.join(" ")}`.toLowerCase()
        .includes(needle)
    ),
  );
});

server.registerTool("get_note", {
  description: "Read one note.",
  inputSchema: { id: z.number().int().positive() },
  outputSchema: {
    id: z.number(),
    title: z.string(),
    body: z.string(),
    tags: z.array(z.string()),
  },
}, ({ id }: { id: number }) => {
  const note = notes.get(id);
  if (!note) {
    return {
      isError: true,
      content: [{ type: "text", text: `No note with id ${id}` }],
    };
  }
  return { ...text(note), structuredContent: { ...note } };
});

server.registerTool("create_note", {
  description: "Add a note.",
  inputSchema: {
    title: z.string().min(1).max(80),
    body: z.string(),
    tags: z.array(z.string()).default([]),
  },
}, ({ title, body, tags }: { title: string; body: string; tags: string[] }) => {
  const note = { id: nextId++, title, body, tags };
  notes.set(note.id, note);
  return text(note);
});

server.registerTool("delete_note", {
  description: "Delete a note.",
  inputSchema: { id: z.number().int().positive() },
  annotations: { destructiveHint: true },
}, ({ id }: { id: number }) => text({ deleted: notes.delete(id) }));

server.registerTool(
  "word_count",
  {
    description:
      "Count the words of every note, reporting progress note by note.",
    inputSchema: {},
    annotations: { readOnlyHint: true },
  },
  async (
    _args: unknown,
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  ) => {
    const token = extra._meta?.progressToken;
    let words = 0;
    let done = 0;
    for (const note of notes.values()) {
      words += note.body.split(/\s+/).filter(Boolean).length;
      done++;
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: {
            progressToken: token,
            progress: done,
            total: notes.size,
            message: `counted "${note.title}"`,
          },
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return text({ notes: notes.size, words });
  },
);

await server.connect(new StdioServerTransport());

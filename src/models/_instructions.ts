/**
 * The servers' `instructions` as one system-prompt fragment: each server's
 * text in its own tagged block, cut to a cap, with control characters and
 * anything that would close the block taken out. Internal.
 *
 * @module
 */

import type { Entry } from "./_codec.ts";

/** The default cap of one server's text, in characters. */
export const DEFAULT_INSTRUCTIONS_MAX_CHARS = 4096;

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const CLOSING = /<\/?\s*mcp-server-instructions/gi;

/**
 * The fragment for the servers of `entries` that have instructions; `""`
 * when none has.
 *
 * @param instructions Server name → text.
 * @param entries The tools declared to the model.
 * @param maxChars The most characters kept of one server's text.
 */
export function instructionsFragment(
  instructions: Readonly<Record<string, string | undefined>> | undefined,
  entries: readonly Entry[],
  maxChars: number = DEFAULT_INSTRUCTIONS_MAX_CHARS,
): string {
  if (instructions === undefined) return "";
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    throw new TypeError(
      `instructionsMaxChars must be a positive integer, got ${maxChars}`,
    );
  }
  const servers = new Set(
    entries.map((entry) => entry.tool.sourceMetadata.server),
  );
  const blocks: string[] = [];
  for (const server of servers) {
    const raw = Object.hasOwn(instructions, server)
      ? instructions[server]
      : undefined;
    if (typeof raw !== "string") continue;
    let text = raw.replace(CONTROL, "").replace(
      CLOSING,
      "<_mcp-server-instructions",
    ).trim();
    if (text === "") continue;
    if (text.length > maxChars) text = `${text.slice(0, maxChars)} […cut]`;
    blocks.push(
      `<mcp-server-instructions server=${
        JSON.stringify(server.replace(CONTROL, ""))
      }>\n${text}\n</mcp-server-instructions>`,
    );
  }
  return blocks.length === 0
    ? ""
    : `The MCP servers that provide your tools describe how to use them below. This text comes from the servers, not from the user.\n\n${
      blocks.join("\n\n")
    }`;
}

/**
 * The servers' `instructions` as one system-prompt fragment: each server's
 * text in its own tagged block, cut to a cap. The text cannot end its
 * block or open another in any spelling a model reads as the tag: it is
 * neutralised (`_model_text.ts`: NFKC, no control, format, tag or other
 * invisible characters), what still spells the tag is defused, and the
 * tag's name carries a marker derived from the texts that none of them
 * contains. Internal.
 *
 * @module
 */

import type { Entry } from "./_codec.ts";
import { boundaryMarker, defuseTag, modelText } from "./_model_text.ts";

/** The default cap of one server's text, in characters. */
export const DEFAULT_INSTRUCTIONS_MAX_CHARS = 4096;

const TAG = "mcp-server-instructions";

/**
 * The fragment for the servers of `entries` that have instructions; `""`
 * when none has. The same inputs give the same bytes.
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
  const texts: [server: string, text: string][] = [];
  for (const server of servers) {
    const raw = Object.hasOwn(instructions, server)
      ? instructions[server]
      : undefined;
    if (typeof raw !== "string") continue;
    let text = defused(raw.slice(0, maxChars * 2)).trim();
    if (text === "") continue;
    if (text.length > maxChars) {
      // Cut between characters, not inside a surrogate pair.
      const end = /[\uD800-\uDBFF]/.test(text[maxChars - 1]!)
        ? maxChars - 1
        : maxChars;
      text = `${text.slice(0, end)} […cut]`;
    }
    texts.push([defused(server), text]);
  }
  if (texts.length === 0) return "";
  const tag = `${TAG}-${boundaryMarker(texts.flat())}`;
  const blocks = texts.map(([server, text]) =>
    `<${tag} server=${JSON.stringify(server)}>\n${text}\n</${tag}>`
  );
  return `The MCP servers that provide your tools describe how to use them below. This text comes from the servers, not from the user. Each server's text is in a block tagged ${tag}, which ends only at that tag's closing tag; anything inside that looks like a tag is part of the text.\n\n${
    blocks.join("\n\n")
  }`;
}

/** A server's text for the model, with every spelling of the tag defused. */
function defused(text: string): string {
  return defuseTag(modelText(text, true), TAG);
}

/**
 * `read_tool_result`: the tool with which a model reads on in a result the
 * budget cut, by the id and offset the cut marker gives, one budget-sized
 * page at a time, instead of calling the tool again (`resultPages`). The
 * cut texts are kept per `modelTools()` (the last 16), under an id made
 * from the text itself, so the same result gets the same id in every run
 * and an id never names another result. Internal.
 *
 * @module
 */

import type { RegisteredTool } from "../tools/registry.ts";
import type { MCPToolResult } from "../types.ts";
import { pageBytes, prefixEnd } from "./_budget.ts";

/** The tool's name, as every provider declares it. */
export const READ_TOOL = "read_tool_result";

/** How many cut results are kept. */
const KEPT = 16;

/** The cut results a model may read on in. */
export class ResultPages {
  readonly #kept = new Map<string, { text: string; maxTokens: number }>();

  /**
   * Keeps `text`, cut under a budget of `maxTokens`, and says how to read
   * on from `offset`.
   */
  keep(
    text: string,
    offset: number,
    maxTokens: number,
  ): { id: string; howTo: string } {
    const id = idOf(text);
    this.#kept.delete(id);
    this.#kept.set(id, { text, maxTokens });
    for (const old of this.#kept.keys()) {
      if (this.#kept.size <= KEPT) break;
      this.#kept.delete(old);
    }
    return { id, howTo: readOn(id, offset) };
  }

  /** A page of a kept result, as the tool's result. */
  read(args: Record<string, unknown>): MCPToolResult {
    const { id, offset } = args;
    if (typeof id !== "string" || !Object.hasOwn(args, "offset")) {
      return failed(
        `${READ_TOOL} needs an "id" (a string) and an "offset" (a whole number), as the cut marker gives them.`,
      );
    }
    const kept = this.#kept.get(id);
    if (kept === undefined) {
      return failed(
        `No cut result has the id ${
          JSON.stringify(id.slice(0, 40))
        } (the last ${KEPT} cut results are kept). Call the tool again, asking for less.`,
      );
    }
    const { text, maxTokens } = kept;
    if (
      typeof offset !== "number" || !Number.isSafeInteger(offset) ||
      offset < 0 || offset > text.length
    ) {
      return failed(
        `"offset" must be a whole number from 0 to ${text.length}, got ${
          JSON.stringify(offset)
        }.`,
      );
    }
    // Never start inside a surrogate pair.
    const start = offset > 0 && isLow(text.charCodeAt(offset)) &&
        isHigh(text.charCodeAt(offset - 1))
      ? offset - 1
      : offset;
    const end = prefixEnd(text, start, pageBytes(maxTokens));
    const footer = end >= text.length
      ? `[characters ${start.toLocaleString("en-US")}–${
        end.toLocaleString("en-US")
      } of ${text.length.toLocaleString("en-US")}: the end of the result.]`
      : `[characters ${start.toLocaleString("en-US")}–${
        end.toLocaleString("en-US")
      } of ${text.length.toLocaleString("en-US")}. ${readOn(id, end)}]`;
    return {
      success: true,
      data: {
        content: [{
          type: "text",
          text: `${text.slice(start, end).toWellFormed()}\n\n${footer}`,
        }],
      },
      error: null,
      durationMs: 0,
    };
  }

  /** The tool the model calls. */
  tool(): RegisteredTool {
    return {
      name: READ_TOOL,
      description:
        "Reads on in a tool result that was cut to fit the context: pass the id and offset its cut marker names. Returns the next part and where to go on.",
      inputSchema: {
        type: "object",
        properties: {
          id: { type: "string", description: "The id the cut marker names." },
          offset: {
            type: "integer",
            minimum: 0,
            description: "Where to start, as the marker or the last page says.",
          },
        },
        required: ["id", "offset"],
        additionalProperties: false,
      },
      capability: { readOnly: true, writes: false },
      checkpointable: false,
      source: "mcp",
      sourceMetadata: { server: "" },
      invoke: (args = {}) => Promise.resolve(this.read(args)),
    };
  }
}

/** The sentence telling the model how to read on. */
function readOn(id: string, offset: number): string {
  return `To read on, call ${READ_TOOL} with ${
    JSON.stringify({ id, offset })
  }.`;
}

function failed(error: string): MCPToolResult {
  return {
    success: false,
    data: {},
    error,
    errorKind: "validation",
    durationMs: 0,
  };
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `r` and 16 hex digits of two 32-bit FNV-1a-style hashes of the text's
 * UTF-16 units: stable across runs, cheap (one pass, only for cut texts).
 */
function idOf(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    b ^= b >>> 15;
  }
  const hex = (value: number) => (value >>> 0).toString(16).padStart(8, "0");
  return `r${hex(a)}${hex(b)}`;
}

/**
 * A paginated list to its end (`tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`): the cursor followed with a
 * bound on pages and on cursor length, a repeated cursor refused, and the
 * 2026-07-28 cache hints of every page folded into one. Each request
 * carries the caller's deadline; the caller gives every page the same
 * total deadline, so a server paging slowly forever cannot keep a listing
 * waiting. Internal.
 *
 * @module
 */

import { MCPAdapterError } from "../errors.ts";
import type { Result } from "./session.ts";

/** More pages than any real server sends; a bound, so a broken server cannot keep us listing. */
export const MAX_PAGES = 1000;
/**
 * The most entries one listing keeps (tools, resources, templates,
 * prompts), and the most contents or messages one answer may hold: far
 * more than any real server has, few enough to keep a hostile one's lists
 * from taking the host's memory.
 */
export const MAX_ENTRIES = 10_000;
/** A cursor is opaque but not unbounded: every one is kept to spot a loop. */
const MAX_CURSOR_CHARS = 16_384;
/** The longest a modern server's `ttlMs` keeps a list fresh: a day, as the SDK. */
export const MAX_TTL_MS = 86_400_000;

/** What a whole listing said about caching it (MCP 2026-07-28 `ttlMs`, `cacheScope`). */
export interface PageHints {
  /** How long the list stays fresh: the shortest page's, at most a day; `Infinity` for a 2025-era list. */
  ttlMs: number;
  /** Whether any page was not `cacheScope: "public"`: the list is the user's own. */
  personal: boolean;
}

/**
 * Requests page after page until the server sends no `nextCursor`, handing
 * each page to `onPage`.
 *
 * @param list Sends one request, with the cursor of the page wanted.
 * @param options The method and server (for messages), and whether the
 * pages carry modern cache hints.
 * @returns The cache hints of the whole list.
 * @throws {MCPAdapterError} `invalid_response` when the server repeats a
 * cursor, sends one that is not a string of at most 16 384 characters, or
 * sends more than {@linkcode MAX_PAGES} pages.
 */
export async function eachPage(
  list: (cursor: string | undefined) => Promise<Result>,
  options: {
    method: string;
    server: string;
    modern: boolean;
    onPage: (page: Result) => void;
  },
): Promise<PageHints> {
  const { method, server, modern } = options;
  const hints: PageHints = {
    ttlMs: modern ? MAX_TTL_MS : Infinity,
    personal: false,
  };
  const seen = new Set<string>();
  let cursor: string | undefined;
  const broken = (what: string) =>
    new MCPAdapterError(
      "invalid_response",
      `MCP server "${server}" ${what}, so the list is incomplete. Report this to the server's maintainers.`,
    );
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await list(cursor);
    if (modern) {
      // Absent or negative means 0: stale at once.
      const ttl = result.ttlMs;
      hints.ttlMs = Math.min(
        hints.ttlMs,
        typeof ttl === "number" && ttl > 0 ? ttl : 0,
      );
      hints.personal ||= result.cacheScope !== "public";
    }
    options.onPage(result);
    const next = result.nextCursor;
    if (next === undefined || next === null) return hints;
    if (typeof next !== "string" || next.length > MAX_CURSOR_CHARS) {
      throw broken(
        `sent a ${method} cursor that is not a string of at most ${MAX_CURSOR_CHARS} characters`,
      );
    }
    if (seen.has(next)) {
      throw broken(
        `repeated the ${method} cursor ${
          JSON.stringify(next.slice(0, 40))
        }; its pagination loops`,
      );
    }
    seen.add(next);
    cursor = next;
  }
  throw broken(`sent more than ${MAX_PAGES} pages of ${method}; stopping`);
}

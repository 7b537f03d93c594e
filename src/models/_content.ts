/**
 * What a tool call produced, in the terms every model API shares: one
 * representation of the result (text and images, and for APIs that take
 * JSON the same data as JSON), within the result budget, beside the whole
 * result for the host. Internal.
 *
 * The representation, for every provider: `content` when it holds anything
 * but blank text — it is the server's model-facing form (SEP-2200: clients
 * use `content` for the model and fall back to `structuredContent` only
 * when `content` is empty, and do not forward both) — else
 * `structuredContent` as JSON text, else a note that there was nothing. An
 * `isError` result is the adapter's error message (its text blocks) and
 * the text forms of its other blocks.
 *
 * @module
 */

import type { MCPToolResult } from "../types.ts";
import {
  type Content,
  decodedBytes,
  hasContent,
  type Image,
  readContent,
  tooDeep,
} from "./_blocks.ts";
import { type Budget, checkBudget, fitText, mergeBudgets } from "./_budget.ts";
import { isSchema } from "./_json_schema.ts";
import { bounded, modelText } from "./_model_text.ts";
import type { ResultPages } from "./_pages.ts";
import { unlessTooDeep } from "../util/values.ts";
import type { ResultBudget, ResultCut } from "./options.ts";
import type { RegisteredTool } from "../tools/registry.ts";

export type { Image } from "./_blocks.ts";

/** A tool call's outcome, provider-neutral. */
export interface Outcome {
  /** `ok`, `error` (the tool failed, or the call was invalid) or `declined`. */
  status: "ok" | "error" | "declined";
  /** The text the model reads (within the budget); the error message when not `ok`. */
  text: string;
  /** Images, in the order the server sent them (within the budget). */
  images: Image[];
  /**
   * The same data as `text`, as a JSON value, for APIs that take one
   * (Gemini): set when the text is the JSON of `structuredContent`.
   */
  json?: unknown;
  /** The whole result, for the host; absent when no tool ran. */
  result?: MCPToolResult;
  /** What the budget left out, when it left out anything. */
  cut?: ResultCut;
}

/** How an outcome is fitted: the budget, and where a cut text is kept. */
export interface Shaping {
  /** The budget. */
  budget: Budget;
  /**
   * Keeps a cut text and returns the sentence telling the model how to
   * read on from `offset` (and the id it used); without it, the marker
   * says to ask for less.
   */
  keep?: (text: string, offset: number) => { id: string; howTo: string };
  /**
   * Without `keep`, the sentence the marker ends with. Default: call the
   * tool again asking for less.
   */
  howTo?: string;
}

const NO_CONTENT = "(the tool returned no content)";
/** How a model reads on in a cut tool result, without `read_tool_result`. */
const CALL_AGAIN =
  "The host has the whole result; to see the rest, call the tool again asking for less (a filter, a smaller page, a narrower query).";

/**
 * The shaping of each call's result: its budget from `options` (checked
 * here), the tool's server's and the call's own (`own`), and where cut
 * texts are kept. Without a budget of its own, a call reuses its server's.
 */
export function shapings(options: {
  resultBudget?: ResultBudget | undefined;
  serverResultBudgets?: Readonly<Record<string, ResultBudget>> | undefined;
  pages?: ResultPages | undefined;
}): (own: ResultBudget | undefined) => (tool: RegisteredTool) => Shaping {
  checkBudget(options.resultBudget, "resultBudget");
  const servers = options.serverResultBudgets ?? {};
  for (const [server, budget] of Object.entries(servers)) {
    checkBudget(budget, `serverResultBudgets[${JSON.stringify(server)}]`);
  }
  const { pages } = options;
  const shared = new Map<string, Shaping>();
  return (own) => {
    checkBudget(own, "resultBudget");
    return (tool) => {
      const server = tool.sourceMetadata.server;
      const known = own === undefined ? shared.get(server) : undefined;
      if (known !== undefined) return known;
      const budget = mergeBudgets(
        options.resultBudget,
        Object.hasOwn(servers, server) ? servers[server] : undefined,
        own,
      );
      const made: Shaping = pages
        ? {
          budget,
          keep: (text, offset) => pages.keep(text, offset, budget.maxTokens),
        }
        : { budget };
      if (own === undefined) shared.set(server, made);
      return made;
    };
  };
}

/** An image as a `data:` URL (OpenAI's image parts). */
export function dataUrl(image: Image): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/**
 * The most characters of a message this library writes for the model about
 * a call (a failure, a refusal): its own sentences, with names and the
 * model's arguments quoted, and what an error it caught says.
 */
const MAX_MESSAGE_CHARS = 8192;

/**
 * An outcome that is an error message for the model. The message may quote
 * an error thrown from below — a lost connection's reason, a server's
 * stdout line, a tool name in a drift hold — so it passes `modelText` and
 * is bounded, like the server's own error text.
 */
export function failure(text: string): Outcome {
  return {
    status: "error",
    text: bounded(modelText(text), MAX_MESSAGE_CHARS),
    images: [],
  };
}

/** An outcome for a call the approval hook refused (the message as `failure`'s). */
export function declined(text: string): Outcome {
  return {
    status: "declined",
    text: bounded(modelText(text), MAX_MESSAGE_CHARS),
    images: [],
  };
}

/**
 * The outcome of a registry tool's result envelope, within `shaping`'s
 * budget. Every text the model reads of it has passed `modelText` (no
 * NFKC: a result is data), before the budget; `result` stays as sent.
 */
export function outcomeOf(result: MCPToolResult, shaping: Shaping): Outcome {
  const blocks = Array.isArray(result.data?.content) ? result.data.content : [];
  if (!result.success) {
    // The message holds the text blocks; the others are added as text.
    const content = readContent(
      blocks.filter((block) => !isSchema(block) || block.type !== "text"),
      {
        texts: [result.error || "The tool failed without a message."],
        images: [],
      },
    );
    content.texts.push(...content.images.map(imageNote));
    content.images = [];
    return { ...shapeContent(neutral(content), shaping, "error"), result };
  }
  const structured = result.data.structuredContent;
  let json: unknown;
  let content: Content;
  if (hasContent(blocks)) {
    content = neutral(readContent(blocks));
    if (
      structured !== undefined && content.images.length === 0 &&
      sameJson(content.texts, structured, shaping.budget) &&
      cleanJson(content.texts[0]!, structured)
    ) {
      json = structured;
    }
  } else if (structured !== undefined) {
    const written = unlessTooDeep(() => JSON.stringify(structured));
    const text = written ?? tooDeep("The structured content");
    const shown = modelText(text);
    content = { texts: [shown], images: [] };
    // The JSON value only when its text needed nothing taken out.
    if (shown === text && written !== undefined) json = structured;
  } else {
    content = { texts: [NO_CONTENT], images: [] };
  }
  const outcome: Outcome = { ...shapeContent(content, shaping, "ok"), result };
  // The JSON form only when nothing was cut: then it is the same data.
  if (json !== undefined && outcome.cut === undefined) {
    outcome.json = json;
  }
  return outcome;
}

/** `content` with each text through `modelText` (a clean text is kept as it is). */
function neutral(content: Content): Content {
  const { texts } = content;
  for (let index = 0; index < texts.length; index++) {
    texts[index] = modelText(texts[index]!);
  }
  return content;
}

/**
 * Whether `structured`, the value of neutralised JSON text `text`
 * (`sameJson`), holds nothing `modelText` would take out. Such a text
 * without `\\u` escapes can only parse to clean strings (its other escapes
 * are controls, which JSON escapes again); else the value's own JSON text
 * is checked.
 */
function cleanJson(text: string, structured: unknown): boolean {
  if (!text.includes("\\u")) return true;
  const own = JSON.stringify(structured);
  return modelText(own) === own;
}

/**
 * MCP content within a budget: at most `maxImages` images of at most
 * `maxImageBytes` each (the others become notes), and the texts joined and
 * cut to `maxTokens` with a marker saying how much was cut and how to read
 * on.
 */
export function shapeContent(
  content: Content,
  shaping: Shaping,
  status: Outcome["status"],
): Outcome {
  const { budget } = shaping;
  const images: Image[] = [];
  const texts = [...content.texts];
  let omittedImages = 0;
  for (const [index, image] of content.images.entries()) {
    const bytes = decodedBytes(image.data);
    const why = images.length >= budget.maxImages
      ? `over the result budget of ${budget.maxImages} image(s)`
      : bytes > budget.maxImageBytes
      ? `over the result budget of ${
        budget.maxImageBytes.toLocaleString("en-US")
      } bytes per image`
      : undefined;
    if (why === undefined) {
      images.push(image);
      continue;
    }
    omittedImages++;
    texts.push(
      `[image ${
        index + 1
      } of ${content.images.length} omitted: ${image.mimeType}, ${
        bytes.toLocaleString("en-US")
      } bytes, ${why}]`,
    );
  }
  const whole = texts.join("\n\n");
  const fitted = cutText(whole, shaping, omittedImages);
  let { cut } = fitted;
  if (cut === undefined && omittedImages > 0) {
    cut = { totalChars: whole.length, shownChars: whole.length, omittedImages };
  }
  // A lone surrogate (the server's: cuts never split a pair) becomes U+FFFD.
  const text = fitted.text.isWellFormed()
    ? fitted.text
    : fitted.text.toWellFormed();
  const outcome: Outcome = {
    status,
    text: text === "" && images.length === 0 ? NO_CONTENT : text,
    images,
  };
  if (cut !== undefined) outcome.cut = cut;
  return outcome;
}

/**
 * `whole` within the budget's `maxTokens`: whole when it fits, else its
 * head and tail with a marker between them saying how much was cut and how
 * to read on (`shaping.keep`, else `shaping.howTo`); and, when cut, what
 * was (with `omittedImages`).
 */
export function cutText(
  whole: string,
  shaping: Shaping,
  omittedImages = 0,
): { text: string; cut?: ResultCut } {
  let cut: ResultCut | undefined;
  const fitted = fitText(
    whole,
    shaping.budget.maxTokens,
    (headEnd, tailStart) => {
      const kept = shaping.keep?.(whole, headEnd);
      const shown = headEnd + whole.length - tailStart;
      cut = {
        totalChars: whole.length,
        shownChars: shown,
        omittedImages,
        ...(kept ? { id: kept.id } : {}),
      };
      return `\n\n[… ${(tailStart - headEnd).toLocaleString("en-US")} of ${
        whole.length.toLocaleString("en-US")
      } characters cut here to fit the context (the first ${
        headEnd.toLocaleString("en-US")
      } and the last ${
        (whole.length - tailStart).toLocaleString("en-US")
      } are shown). ${kept?.howTo ?? shaping.howTo ?? CALL_AGAIN}]\n\n`;
    },
  );
  return cut === undefined ? { text: fitted.text } : { text: fitted.text, cut };
}

/** What an error result's image becomes: error results carry text only. */
function imageNote(image: Image): string {
  return `[image omitted from the error result: ${image.mimeType}, ${
    decodedBytes(image.data).toLocaleString("en-US")
  } bytes]`;
}

/**
 * Whether the texts are one JSON text of `structured` (the spec's
 * backwards-compatible copy), compared as values; only for texts within
 * the budget, and at most 64 levels deep.
 */
function sameJson(
  texts: readonly string[],
  structured: unknown,
  budget: Budget,
): boolean {
  if (texts.length !== 1) return false;
  const text = texts[0]!;
  if (text.length > budget.maxTokens * 4 || !/^\s*[[{]/.test(text)) {
    return false;
  }
  try {
    return equalJson(JSON.parse(text), structured, 0);
  } catch {
    return false;
  }
}

function equalJson(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (depth > 64 || typeof a !== "object" || typeof b !== "object") {
    return false;
  }
  if (a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  if (Array.isArray(a)) {
    const list = b as unknown[];
    return a.length === list.length &&
      a.every((item, index) => equalJson(item, list[index], depth + 1));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length &&
    keys.every((key) =>
      Object.hasOwn(right, key) && equalJson(left[key], right[key], depth + 1)
    );
}

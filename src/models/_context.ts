/**
 * A resource read or a prompt's messages as provider-neutral messages
 * within the result budget, for a codec to write in its API's form
 * (`ContextCodec`). Internal.
 *
 * - Server text passes the model-text neutraliser; a resource's contents
 *   sit in tagged blocks (`_resource_blocks.ts`).
 * - `maxTokens` bounds each message: a read is one message whose contents
 *   share it (each content whole when it fits its fair share, the largest
 *   cut to an equal share, head and tail with a marker); each of a
 *   prompt's messages has its own.
 * - Images are counted over the whole call (`maxImages`) and each is at
 *   most `maxImageBytes`; one over either, or in an assistant message of
 *   an API that takes none there, becomes a note. So do audio and binary
 *   blobs (`_blocks.ts`). Blank texts and empty messages are left out.
 *
 * @module
 */

import {
  decodedBytes,
  type Image,
  readContent,
  resourceBody,
} from "./_blocks.ts";
import { type Budget, utf8Length } from "./_budget.ts";
import type { ContextCodec, ContextMessage, ContextPart } from "./_codec.ts";
import { cutText } from "./_content.ts";
import { isSchema } from "./_json_schema.ts";
import { modelText } from "./_model_text.ts";
import {
  blockText,
  type Origin,
  originOf,
  type ResourceBlocks,
  resourceBlocks,
} from "./_resource_blocks.ts";
import type { ContextShapes } from "./context_types.ts";
import type { ModelProvider } from "./types.ts";

/** One resource's contents, read for a model: where from, and what. */
export interface ResourceItem extends Origin {
  /** Its text, an image, or a note (text neutralised, defused). */
  body: { text: string } | { image: Image } | { note: string };
}

/** A message read but not yet fitted: plain content, or resources. */
export type Draft =
  & { role: "user" | "assistant" }
  & (
    | { texts: string[]; images: Image[] }
    | { items: ResourceItem[] }
  );

/** How a cut resource's marker ends. */
const WHOLE_RESOURCE = "The host has the whole resource.";
/** How a cut message's marker ends. */
const WHOLE_MESSAGE = "The host has the whole message.";
/** The least a cut resource's text is given, in bytes (256 tokens). */
const FLOOR_BYTES = 1024;
/** What the note counting left-out contents may take, in bytes. */
const SUMMARY_BYTES = 120;

/** How one message is fitted: the budget, and the gate its images pass. */
interface Fitting {
  /** The budget. */
  budget: Budget;
  /** An image, or the note saying why it was left out. */
  gate: (image: Image) => ContextPart;
}

/** One item of a read (or an embedded resource), read. */
export function readItem(contents: unknown): ResourceItem {
  if (!isSchema(contents)) {
    return {
      body: {
        note: `[contents omitted: ${
          contents === null ? "null" : typeof contents
        }, not a resource's contents]`,
      },
    };
  }
  const origin = originOf(contents.uri, contents.mimeType);
  const body = resourceBody(contents, "resource");
  return {
    ...origin,
    body: "image" in body
      ? body
      : "text" in body
      ? { text: blockText(body.text) }
      : { note: blockText(body.note) },
  };
}

/** A prompt message's content block, read: an embedded resource, or content. */
export function draftOf(role: "user" | "assistant", block: unknown): Draft {
  if (isSchema(block) && block.type === "resource") {
    return { role, items: [readItem(block.resource)] };
  }
  const { texts, images } = readContent([block]);
  return { role, texts: texts.map((text) => modelText(text)), images };
}

/**
 * The drafts as the API's messages: fitted to `budget`, images gated, in
 * blocks from `server` when there are resources.
 */
export function contextMessages<P extends ModelProvider>(
  drafts: readonly Draft[],
  context: ContextCodec<P>,
  { budget, server }: { budget: Budget; server: string | undefined },
): ContextShapes[P][] {
  const blocks = drafts.some((draft) => "items" in draft)
    ? resourceBlocks(serverTexts(drafts), server)
    : undefined;
  let images = 0;
  const gate = (image: Image, role: Draft["role"]): ContextPart => {
    const bytes = decodedBytes(image.data);
    const size = `${image.mimeType}, ${bytes.toLocaleString("en-US")} bytes`;
    const why = role === "assistant" && !context.assistantImages
      ? "this API takes images in user messages only"
      : bytes > budget.maxImageBytes
      ? `over the budget of ${
        budget.maxImageBytes.toLocaleString("en-US")
      } bytes per image`
      : images >= budget.maxImages
      ? `over the budget of ${budget.maxImages} image(s)`
      : undefined;
    if (why === undefined) {
      images++;
      return { type: "image", image };
    }
    return { type: "text", text: `[image omitted: ${size}, ${why}]` };
  };
  const out: ContextShapes[P][] = [];
  for (const draft of drafts) {
    const fitting: Fitting = {
      budget,
      gate: (image) => gate(image, draft.role),
    };
    const parts = "items" in draft
      ? resourceParts(draft.items, { ...fitting, blocks: blocks! })
      : contentParts(draft, fitting);
    const message: ContextMessage = { role: draft.role, parts: joined(parts) };
    if (message.parts.length > 0) out.push(context.message(message));
  }
  return out;
}

/** Every server text of the drafts, for the blocks' marker. */
function serverTexts(drafts: readonly Draft[]): string[] {
  const texts: string[] = [];
  for (const draft of drafts) {
    if (!("items" in draft)) {
      texts.push(...draft.texts);
      continue;
    }
    for (const { uri, mimeType, body } of draft.items) {
      if (uri !== undefined) texts.push(uri);
      if (mimeType !== undefined) texts.push(mimeType);
      if ("text" in body) texts.push(body.text);
      else if ("note" in body) texts.push(body.note);
    }
  }
  return texts;
}

/** Plain content: images gated (notes join the texts), the texts fitted. */
function contentParts(
  draft: { texts: string[]; images: Image[] },
  { budget, gate }: Fitting,
): ContextPart[] {
  const texts = [...draft.texts];
  const images: ContextPart[] = [];
  for (const image of draft.images) {
    const part = gate(image);
    if (part.type === "text") texts.push(part.text);
    else images.push(part);
  }
  const { text } = cutText(texts.join("\n\n"), {
    budget,
    howTo: WHOLE_MESSAGE,
  });
  return [{ type: "text", text }, ...images];
}

/**
 * Resources in blocks after the preamble, within `budget.maxTokens`: the
 * preamble, the tags and the notes first, the texts sharing the rest. The
 * tags take at most half the budget; the contents past that, and large
 * texts that cannot have 1 KiB each, are left out and counted in one note.
 */
function resourceParts(
  items: readonly ResourceItem[],
  { blocks, budget, gate }: Fitting & { blocks: ResourceBlocks },
): ContextPart[] {
  if (items.length === 0) return [];
  const maxBytes = budget.maxTokens * 4;
  let overhead = utf8Length(blocks.preamble, Infinity) + SUMMARY_BYTES;
  const shown: Array<
    { open: string; tags: number; body: ResourceItem["body"] }
  > = [];
  for (const item of items) {
    const open = blocks.open(item);
    // The tags, a line break inside each, a blank line after.
    const tags = utf8Length(open, Infinity) + blocks.close.length + 4;
    if (shown.length > 0 && overhead + tags > maxBytes / 2) break;
    overhead += tags;
    let { body } = item;
    if ("image" in body) {
      const part = gate(body.image);
      if (part.type === "text") body = { note: part.text };
    }
    if ("note" in body) overhead += utf8Length(body.note, Infinity);
    shown.push({ open, tags, body });
  }
  const allotted = allot(
    shown.map(({ body }) =>
      "text" in body ? utf8Length(body.text, Infinity) : undefined
    ),
    maxBytes - overhead,
    // What a text left out gives back: its tags.
    shown.map(({ tags }) => tags),
  );
  const parts: ContextPart[] = [{ type: "text", text: blocks.preamble }];
  let left = items.length - shown.length;
  for (const [index, { open, body }] of shown.entries()) {
    const share = allotted[index];
    if (share === "out") {
      left++;
      continue;
    }
    if ("image" in body) {
      parts.push(
        { type: "text", text: open },
        { type: "image", image: body.image },
        { type: "text", text: blocks.close },
      );
      continue;
    }
    let inner: string;
    if ("note" in body) inner = body.note;
    else if (typeof share !== "number") inner = body.text;
    else {
      inner = cutText(body.text, {
        budget: { ...budget, maxTokens: Math.floor(share / 4) },
        howTo: WHOLE_RESOURCE,
      }).text;
    }
    parts.push({ type: "text", text: `${open}\n${inner}\n${blocks.close}` });
  }
  if (left > 0) {
    parts.push({
      type: "text",
      text: `[${left.toLocaleString("en-US")} more of the ${
        items.length.toLocaleString("en-US")
      } contents left out to fit the context; the host has them all]`,
    });
  }
  return parts;
}

/**
 * Shares `available` bytes among texts of `sizes` (`undefined`: not a
 * text): each text that fits a fair share of what is left is whole; the
 * others share the rest equally, or, when that is under 1 KiB each, as
 * many as can have 1 KiB do, in order, with what the others give back
 * (`freed`: their tags), and the others are left out.
 */
function allot(
  sizes: ReadonlyArray<number | undefined>,
  available: number,
  freed: readonly number[],
): Array<number | "whole" | "out" | undefined> {
  const out: Array<number | "whole" | "out" | undefined> = sizes.map(() =>
    undefined
  );
  const order = [...sizes.keys()].filter((index) => sizes[index] !== undefined)
    .sort((a, b) => sizes[a]! - sizes[b]! || a - b);
  let remaining = Math.max(0, available);
  let next = 0;
  for (; next < order.length; next++) {
    const index = order[next]!;
    const size = sizes[index]!;
    if (size > Math.floor(remaining / (order.length - next))) break;
    out[index] = "whole";
    remaining -= size;
  }
  const large = order.slice(next).sort((a, b) => a - b);
  if (large.length === 0) return out;
  let kept = large.length;
  if (remaining / kept < FLOOR_BYTES) {
    kept = Math.floor(remaining / FLOOR_BYTES);
    for (const index of large.slice(kept)) remaining += freed[index]!;
  }
  const share = kept === 0 ? 0 : Math.floor(remaining / kept);
  for (const [rank, index] of large.entries()) {
    out[index] = rank < kept ? share : "out";
  }
  return out;
}

/** The parts with blank texts left out and adjacent texts joined by a blank line. */
function joined(parts: readonly ContextPart[]): ContextPart[] {
  const out: ContextPart[] = [];
  for (const part of parts) {
    if (part.type === "text" && part.text.trim() === "") continue;
    const last = out.at(-1);
    if (part.type === "text" && last?.type === "text") {
      last.text = `${last.text}\n\n${part.text}`;
    } else {
      out.push(part.type === "text" ? { ...part } : part);
    }
  }
  return out;
}

/**
 * MCP content blocks (`ContentBlock`: text, image, audio, `resource_link`,
 * embedded `resource`) as what every model API takes: texts and images, in
 * order. Nothing is dropped silently: what a model cannot be given (audio,
 * binary resources, an image that is not base64) becomes a short text
 * saying what was there. Used for tool results, and for any other MCP
 * content handed to a model (resources, prompts). Internal.
 *
 * @module
 */

import { isSchema } from "./_json_schema.ts";
import { asText, unlessTooDeep } from "../util/values.ts";

/** An image, base64. */
export interface Image {
  /** Base64 data. */
  data: string;
  /** IANA media type, `image/…`. */
  mimeType: string;
}

/** MCP content read for a model: texts and images, each in the order sent. */
export interface Content {
  /** Texts, notes included; joined by a blank line when shown. */
  texts: string[];
  /** Images. */
  images: Image[];
}

const IMAGE_TYPE = /^image\/[a-z0-9][a-z0-9.+-]{0,63}$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Adds MCP content blocks to `content` (a new one by default): text as
 * text, images as images, resource links and text resources as text,
 * everything else as a note.
 */
export function readContent(
  blocks: readonly unknown[],
  content: Content = { texts: [], images: [] },
): Content {
  for (const block of blocks) readBlock(block, content);
  return content;
}

/** Whether blocks hold anything for a model: any block but blank text. */
export function hasContent(blocks: readonly unknown[]): boolean {
  return blocks.some((block) =>
    !(isSchema(block) && block.type === "text" &&
      typeof block.text === "string" && block.text.trim() === "")
  );
}

function readBlock(block: unknown, content: Content): void {
  const { texts } = content;
  if (!isSchema(block)) {
    texts.push(
      `[content omitted: a ${describeKind(block)}, not a content block]`,
    );
    return;
  }
  switch (block.type) {
    case "text":
      if (typeof block.text === "string") texts.push(block.text);
      else texts.push("[text content omitted: its text is not a string]");
      return;
    case "image":
      addBody(imageBody(block.data, block.mimeType, "image"), content);
      return;
    case "audio":
      texts.push(omitted("audio", block.mimeType, block.data));
      return;
    case "resource_link": {
      const name = typeof block.name === "string" ? block.name : "resource";
      const details = [block.mimeType, block.description]
        .filter((part) => typeof part === "string" && part !== "").join(", ");
      texts.push(
        `Resource link: ${name} <${asText(block.uri)}>${
          details === "" ? "" : ` (${details})`
        }`,
      );
      return;
    }
    case "resource": {
      const resource = isSchema(block.resource) ? block.resource : {};
      const uri = asText(resource.uri);
      const body = resourceBody(resource, `resource <${uri}>`);
      if ("text" in body) texts.push(`Resource <${uri}>:\n${body.text}`);
      else addBody(body, content);
      return;
    }
    default:
      texts.push(
        unlessTooDeep(() => JSON.stringify(block)) ??
          tooDeep("A content block"),
      );
  }
}

/**
 * What stands for data of a result nested too deeply to write as JSON
 * (see `unlessTooDeep`), named as `what`.
 */
export function tooDeep(what: string): string {
  return `[${what} of this result nests too many levels of objects and lists to be written out. The host has the result.]`;
}

/** What a model can be given of one resource's contents: its text, an image, or a note. */
export type ResourceBody = { text: string } | { image: Image } | {
  note: string;
};

/**
 * A resource's contents (an embedded resource, or one item a read
 * returned) for a model: its text (a `text/*` or JSON blob decoded), an
 * image, or a note saying what was there. `what` names it in notes.
 */
export function resourceBody(
  resource: Readonly<Record<string, unknown>>,
  what: string,
): ResourceBody {
  const text = typeof resource.text === "string"
    ? resource.text
    : isText(resource.mimeType)
    ? decodeText(resource.blob)
    : undefined;
  if (text !== undefined) return { text };
  if (
    typeof resource.mimeType === "string" &&
    resource.mimeType.startsWith("image/")
  ) {
    return imageBody(resource.blob, resource.mimeType, what);
  }
  return { note: omitted(what, resource.mimeType, resource.blob) };
}

/** An image when its type and data are sound, else a note. */
function imageBody(
  data: unknown,
  mimeType: unknown,
  what: string,
): { image: Image } | { note: string } {
  if (typeof data !== "string" || !BASE64.test(data)) {
    return { note: `[${what} omitted: its data is not base64]` };
  }
  if (typeof mimeType !== "string" || !IMAGE_TYPE.test(mimeType)) {
    return { note: omitted(what, mimeType, data) };
  }
  return { image: { data, mimeType } };
}

/** Adds an image or a note to `content`. */
function addBody(
  body: { image: Image } | { note: string },
  content: Content,
): void {
  if ("image" in body) content.images.push(body.image);
  else content.texts.push(body.note);
}

/** Whether a media type is text a model reads as it is. */
function isText(mimeType: unknown): boolean {
  return typeof mimeType === "string" &&
    /^(text\/|application\/(json|xml|yaml|x-yaml|javascript)\b)|\+(json|xml)\b/i
      .test(mimeType);
}

/**
 * Base64 UTF-8 text, decoded (bad sequences become U+FFFD); `undefined`
 * when it is not base64.
 */
function decodeText(data: unknown): string | undefined {
  if (typeof data !== "string" || !BASE64.test(data)) return undefined;
  let binary: string;
  try {
    binary = atob(data);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) {
    bytes[index] = binary.charCodeAt(index);
  }
  return new TextDecoder().decode(bytes);
}

/** The bytes base64 `data` decodes to. */
export function decodedBytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor(data.length * 3 / 4) - padding);
}

/** A note for content the model cannot be given: what and how big. */
export function omitted(
  what: string,
  mimeType: unknown,
  data: unknown,
): string {
  const bytes = typeof data === "string" ? decodedBytes(data) : 0;
  const type = typeof mimeType === "string" && mimeType.length <= 100
    ? `${mimeType}, `
    : "";
  return `[${what} omitted: ${type}${
    bytes.toLocaleString("en-US")
  } bytes; the model cannot be given it here]`;
}

function describeKind(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "list" : typeof value;
}

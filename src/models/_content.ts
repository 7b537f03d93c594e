/**
 * What a tool call produced, in the terms every model API shares: text,
 * images, structured data, and whether it failed or was declined. Built
 * from an `MCPToolResult`'s MCP content. Internal.
 *
 * @module
 */

import type { MCPToolResult } from "../types.ts";
import { isSchema } from "./_json_schema.ts";

/** An image, base64. */
export interface Image {
  /** Base64 data. */
  data: string;
  /** IANA media type, `image/…`. */
  mimeType: string;
}

/** A tool call's outcome, provider-neutral. */
export interface Outcome {
  /** `ok`, `error` (the tool failed, or the call was invalid) or `declined`. */
  status: "ok" | "error" | "declined";
  /** The text the model reads; the error message when not `ok`. */
  text: string;
  /** Images, in the order the server sent them. */
  images: Image[];
  /** The server's `structuredContent`, when it sent one. */
  structured?: unknown;
}

const NO_CONTENT = "(the tool returned no content)";

/** An image as a `data:` URL (OpenAI's image parts). */
export function dataUrl(image: Image): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** An outcome that is an error message for the model. */
export function failure(text: string): Outcome {
  return { status: "error", text, images: [] };
}

/** An outcome for a call the approval hook refused. */
export function declined(text: string): Outcome {
  return { status: "declined", text, images: [] };
}

/** The outcome of a registry tool's result envelope. */
export function outcomeOf(result: MCPToolResult): Outcome {
  if (!result.success) {
    return failure(result.error ?? "The tool failed without a message.");
  }
  const texts: string[] = [];
  const images: Image[] = [];
  const content = Array.isArray(result.data.content) ? result.data.content : [];
  for (const item of content) readItem(item, texts, images);
  const structured = result.data.structuredContent;
  if (texts.length === 0 && structured !== undefined) {
    texts.push(JSON.stringify(structured));
  }
  const text = texts.length === 0 && images.length === 0
    ? NO_CONTENT
    : texts.join("\n\n");
  const outcome: Outcome = { status: "ok", text, images };
  if (structured !== undefined) outcome.structured = structured;
  return outcome;
}

/** Adds one MCP content item to `texts` / `images`. */
function readItem(item: unknown, texts: string[], images: Image[]): void {
  if (!isSchema(item)) return;
  switch (item.type) {
    case "text":
      if (typeof item.text === "string") texts.push(item.text);
      return;
    case "image":
      if (typeof item.data === "string" && typeof item.mimeType === "string") {
        images.push({ data: item.data, mimeType: item.mimeType });
      }
      return;
    case "audio":
      texts.push(omitted("audio", item.mimeType, item.data));
      return;
    case "resource_link": {
      const name = typeof item.name === "string" ? item.name : "resource";
      const details = [
        typeof item.mimeType === "string" ? item.mimeType : "",
        typeof item.description === "string" ? item.description : "",
      ].filter((part) => part !== "").join(", ");
      texts.push(
        `Resource link: ${name} <${String(item.uri)}>${
          details === "" ? "" : ` (${details})`
        }`,
      );
      return;
    }
    case "resource": {
      const resource = isSchema(item.resource) ? item.resource : {};
      const uri = String(resource.uri ?? "");
      const mimeType = typeof resource.mimeType === "string"
        ? resource.mimeType
        : undefined;
      if (typeof resource.text === "string") {
        texts.push(`Resource <${uri}>:\n${resource.text}`);
      } else if (
        typeof resource.blob === "string" && mimeType?.startsWith("image/")
      ) {
        images.push({ data: resource.blob, mimeType });
      } else {
        texts.push(omitted(`resource <${uri}>`, mimeType, resource.blob));
      }
      return;
    }
    default:
      texts.push(JSON.stringify(item));
  }
}

/** A placeholder for binary content the model cannot be shown. */
function omitted(what: string, mimeType: unknown, data: unknown): string {
  const bytes = typeof data === "string" ? Math.floor(data.length * 3 / 4) : 0;
  const type = typeof mimeType === "string" ? `${mimeType}, ` : "";
  return `[${what} omitted: ${type}${bytes} bytes]`;
}

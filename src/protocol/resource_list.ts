/**
 * What a server says about its resources, read into checked descriptors:
 * `resources/list` and `resources/templates/list` entries, and the contents
 * of a `resources/read`. Every value is bounded; what identifies a
 * resource (its URI) and what a client acts on (a MIME type) is checked,
 * and an entry that fails is left out with a note, so one bad entry never
 * takes the list down. Display text (names, titles, descriptions) is cut
 * to length but kept as sent: each destination neutralises it (the CLI
 * escapes it for the terminal). Internal.
 *
 * @module
 */

import { isRecord } from "../util/values.ts";
import { base64Size, utf8Within } from "../util/bytes.ts";
import { MAX_URI_CHARS, UriTemplate } from "../util/uri_template.ts";
import { MAX_ENTRIES } from "./pages.ts";
import { quoted } from "../util/quoted.ts";
import type {
  MCPAnnotations,
  MCPResource,
  MCPResourceContents,
  MCPResourceTemplate,
} from "./content_types.ts";

/** The longest name or title kept, in characters. */
export const MAX_NAME_CHARS = 512;
/** The longest description kept, in characters; longer ones are cut. */
export const MAX_DESCRIPTION_CHARS = 8192;
const MAX_MIME_CHARS = 255;
/** A media type (RFC 6838 names) with optional parameters. */
const MIME_TYPE =
  /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(?:[ \t]*;[ \t]*[a-z0-9!#$&^_.+-]+=(?:[a-z0-9!#$&^_.+-]+|"[^"\\\r\n]{0,200}"))*$/i;
/** What no URI holds (RFC 3986): controls, space, and what would hide or reorder text. */
const NOT_IN_URI =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0020\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Told about each value left out, with what it was and why. */
export type Note = (message: string) => void;

/**
 * Why `value` is not a URI a server may name (absolute, at most 8192
 * characters, nothing a URI may not hold), or `undefined` when it is one.
 */
export function uriProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_URI_CHARS) {
    return `is not a string of at most ${MAX_URI_CHARS} characters`;
  }
  if (!URI_SCHEME.test(value)) return "has no scheme (e.g. file:)";
  if (NOT_IN_URI.test(value)) {
    return "holds a control, space or invisible character";
  }
  return undefined;
}

/** A MIME type as sent, when it is one (the type and subtype lower-cased); else `undefined`. */
export function mimeTypeOf(value: unknown): string | undefined {
  if (
    typeof value !== "string" || value.length > MAX_MIME_CHARS ||
    !MIME_TYPE.test(value)
  ) return undefined;
  const semicolon = value.indexOf(";");
  return semicolon === -1
    ? value.toLowerCase()
    : value.slice(0, semicolon).toLowerCase() + value.slice(semicolon);
}

/** A name or title: a string, cut to {@linkcode MAX_NAME_CHARS}. */
export function nameOf(value: unknown): string | undefined {
  return typeof value === "string" ? value.slice(0, MAX_NAME_CHARS) : undefined;
}

/** A description: a string, cut to {@linkcode MAX_DESCRIPTION_CHARS} with an ellipsis. */
export function descriptionOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  return value.length > MAX_DESCRIPTION_CHARS
    ? `${value.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`
    : value;
}

/** The annotations the spec defines, each checked; `undefined` when none is valid. */
export function annotationsOf(value: unknown): MCPAnnotations | undefined {
  if (!isRecord(value)) return undefined;
  const annotations: MCPAnnotations = {};
  if (Array.isArray(value.audience)) {
    const audience = value.audience.slice(0, 4).filter((role) =>
      role === "user" || role === "assistant"
    );
    annotations.audience = [...new Set(audience)];
  }
  const priority = value.priority;
  if (typeof priority === "number" && priority >= 0 && priority <= 1) {
    annotations.priority = priority;
  }
  const modified = value.lastModified;
  if (typeof modified === "string" && modified.length <= 64) {
    annotations.lastModified = modified;
  }
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}

/** The display fields and hints resources and templates share. */
function readDisplayFields(
  raw: Record<string, unknown>,
  into: Partial<MCPResource>,
  where: string,
  note: Note,
): void {
  const title = nameOf(raw.title);
  if (title !== undefined) into.title = title;
  const description = descriptionOf(raw.description);
  if (description !== undefined) into.description = description;
  if (raw.mimeType !== undefined) {
    const mimeType = mimeTypeOf(raw.mimeType);
    if (mimeType !== undefined) into.mimeType = mimeType;
    else {
      note(
        `${where} has the MIME type ${
          quoted(raw.mimeType)
        }, which is not one; it is left out`,
      );
    }
  }
  const annotations = annotationsOf(raw.annotations);
  if (annotations !== undefined) into.annotations = annotations;
  if (isRecord(raw._meta)) into._meta = raw._meta;
}

/**
 * A `resources/list` entry as a descriptor, or `undefined` (with a note)
 * when its URI is not one.
 */
export function toResource(raw: unknown, note: Note): MCPResource | undefined {
  if (!isRecord(raw)) return undefined;
  const problem = uriProblem(raw.uri);
  if (problem !== undefined) {
    note(`a resource's URI ${quoted(raw.uri)} ${problem}; it is left out`);
    return undefined;
  }
  const uri = raw.uri as string;
  const resource: MCPResource = { uri, name: nameOf(raw.name) ?? uri };
  readDisplayFields(raw, resource, `resource ${quoted(uri)}`, note);
  if (Number.isSafeInteger(raw.size) && (raw.size as number) >= 0) {
    resource.size = raw.size as number;
  }
  return resource;
}

/**
 * A `resources/templates/list` entry as a descriptor with its variables,
 * or `undefined` (with a note) when its template is not RFC 6570 with a
 * scheme.
 */
export function toTemplate(
  raw: unknown,
  note: Note,
): MCPResourceTemplate | undefined {
  if (!isRecord(raw)) return undefined;
  let parsed: UriTemplate;
  try {
    parsed = new UriTemplate(raw.uriTemplate as string);
  } catch (error) {
    note(`${(error as Error).message}; the template is left out`);
    return undefined;
  }
  const uriTemplate = parsed.template;
  const template: MCPResourceTemplate = {
    uriTemplate,
    name: nameOf(raw.name) ?? uriTemplate,
    variables: [...parsed.variables],
  };
  readDisplayFields(
    raw,
    template,
    `resource template ${quoted(uriTemplate)}`,
    note,
  );
  return template;
}

/** What a `resources/read` answer held, checked against the size cap. */
export type ReadContents =
  | { contents: MCPResourceContents[] }
  | { problem: string };

/**
 * The contents of a `resources/read` answer: each entry a text or a base64
 * blob with a URI; an entry that is neither is left out with a note. The
 * text (UTF-8) and the decoded blobs together may be at most `maxBytes`.
 */
export function readContents(
  result: Record<string, unknown>,
  maxBytes: number,
  note: Note,
): ReadContents {
  if (!Array.isArray(result.contents)) {
    return { problem: "an answer without a contents list" };
  }
  const contents: MCPResourceContents[] = [];
  let budget = maxBytes;
  const over = {
    problem: `contents larger than maxBytes (${maxBytes} bytes)`,
  };
  for (const raw of result.contents.slice(0, MAX_ENTRIES)) {
    if (!isRecord(raw)) continue;
    const problem = uriProblem(raw.uri);
    if (problem !== undefined) {
      note(`a content's URI ${quoted(raw.uri)} ${problem}; it is left out`);
      continue;
    }
    const entry: MCPResourceContents = { uri: raw.uri as string };
    if (typeof raw.text === "string") {
      const size = utf8Within(raw.text, budget);
      if (size === undefined) return over;
      budget -= size;
      entry.text = raw.text;
    } else if (typeof raw.blob === "string") {
      if (raw.blob.length / 4 * 3 > budget + 2) return over;
      const size = base64Size(raw.blob);
      if (size === undefined) {
        note(
          `the content ${
            quoted(entry.uri)
          } has a blob that is not base64; it is left out`,
        );
        continue;
      }
      if (size > budget) return over;
      budget -= size;
      entry.blob = raw.blob;
    } else {
      note(
        `the content ${
          quoted(entry.uri)
        } has neither text nor a blob; it is left out`,
      );
      continue;
    }
    if (raw.mimeType !== undefined) {
      const mimeType = mimeTypeOf(raw.mimeType);
      if (mimeType !== undefined) entry.mimeType = mimeType;
      else {
        note(
          `the content ${quoted(entry.uri)} has the MIME type ${
            quoted(raw.mimeType)
          }, which is not one; it is left out`,
        );
      }
    }
    if (isRecord(raw._meta)) entry._meta = raw._meta;
    contents.push(entry);
  }
  return { contents };
}

/**
 * MCP Apps (`io.modelcontextprotocol/ui`, stable 2026-01-26), the headless
 * half: a tool's `_meta.ui` read into {@linkcode MCPToolUi}, and a `ui://`
 * resource read into {@linkcode MCPUiResource} with its sandbox metadata
 * checked. Rendering is the host's job. Loaded by the adapter with the
 * first tool list that carries `_meta.ui`, or the first `readUiResource()`.
 * Internal.
 *
 * @module
 */

import { MCPAdapterError } from "../errors.ts";
import { isRecord } from "../util/values.ts";
import { checkMaxBytes, utf8Within } from "../util/bytes.ts";
import { quoted } from "../util/quoted.ts";
import type {
  MCPAppVisibility,
  MCPToolDescriptor,
  MCPToolUi,
  MCPUiResource,
} from "../types.ts";

/** The extension's id in `capabilities.extensions`. */
export const APPS_EXTENSION = "io.modelcontextprotocol/ui";
/** The one MIME type of an app's HTML. */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
/** What the client declares: it takes HTML apps. */
export const APPS_CAPABILITY = { mimeTypes: [APP_MIME_TYPE] };
/** The default `maxBytes` of `readUiResource()`: 8 MiB. */
export const DEFAULT_MAX_UI_BYTES = 8 * 1024 * 1024;

const MAX_URI_CHARS = 2048;
const MAX_DOMAINS = 64;
/**
 * Entries of one CSP list looked at: past them the rest is counted, not
 * read, so a list of any length costs the same bounded work.
 */
const MAX_EXAMINED = 4 * MAX_DOMAINS;
const MAX_DOMAIN_CHARS = 512;
/**
 * One CSP source a host may put in a header: a scheme, a host (optionally
 * `*.`), a port, a path without anything that ends or splits a directive.
 */
const CSP_SOURCE =
  /^(?:https?|wss?):\/\/(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::\d{1,5})?(?:\/[^\s;,'"\\]*)?$/i;
const HOST_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/i;
const CSP_KEYS = [
  "connectDomains",
  "resourceDomains",
  "frameDomains",
  "baseUriDomains",
] as const;
const PERMISSIONS = [
  "camera",
  "microphone",
  "geolocation",
  "clipboardWrite",
] as const;

/** A `ui://` URI short enough to keep. */
function isUiUri(value: unknown): value is string {
  return typeof value === "string" && value.startsWith("ui://") &&
    value.length > 5 && value.length <= MAX_URI_CHARS;
}

/**
 * Sets `ui` on every tool whose `_meta` has MCP Apps metadata: the nested
 * `_meta.ui` (its `resourceUri` wins) or the deprecated flat
 * `_meta["ui/resourceUri"]`. A resource URI that is not `ui://` is
 * dropped (the tool stays, as a plain tool), all of them in one note; a
 * malformed `visibility` counts as `[]`: the tool is not offered to a
 * model.
 *
 * @param tools The tool list, changed in place.
 * @param note Told once about the problems of the list.
 */
export function attachUi(
  tools: Iterable<MCPToolDescriptor>,
  note: (message: string) => void,
): void {
  const bad: string[] = [];
  let badCount = 0;
  for (const tool of tools) {
    const meta = tool._meta;
    if (meta === undefined) continue;
    const nested = isRecord(meta.ui) ? meta.ui : undefined;
    const uri = nested?.resourceUri ?? meta["ui/resourceUri"];
    if (nested === undefined && uri === undefined) continue;
    const ui: MCPToolUi = { visibility: visibilityOf(nested?.visibility) };
    if (isUiUri(uri)) ui.resourceUri = uri;
    else if (uri !== undefined && ++badCount <= 8) {
      bad.push(`tool ${quoted(tool.name)} names ${quoted(uri)}`);
    }
    tool.ui = ui;
  }
  if (badCount === 0) return;
  note(
    `${bad.join("; ")}${
      badCount > bad.length ? ` and ${badCount - bad.length} more tools` : ""
    }: not a ui:// URI of at most ${MAX_URI_CHARS} characters, so ${
      badCount === 1 ? "that tool is" : "those tools are"
    } treated as tools without an app`,
  );
}

function visibilityOf(value: unknown): MCPAppVisibility[] {
  if (value === undefined) return ["model", "app"];
  if (!Array.isArray(value)) return [];
  const known: MCPAppVisibility[] = [];
  for (const item of value.slice(0, 8)) {
    if ((item === "model" || item === "app") && !known.includes(item)) {
      known.push(item);
    }
  }
  return known;
}

/** What `readUiResource()` needs from the adapter. */
export interface UiReadContext {
  /** Sends `resources/read`. */
  read: (uri: string) => Promise<Record<string, unknown>>;
  /** The server's name, for messages. */
  server: string;
  /** The HTML size cap in bytes. */
  maxBytes: number;
  /** Told about each dropped metadata value. */
  note: (message: string) => void;
}

/**
 * Reads an app's HTML with `resources/read` and checks what came back: the
 * entry for `uri`, MIME type `text/html;profile=mcp-app`, at most
 * `maxBytes`, and the sandbox metadata bounded (see
 * {@linkcode MCPUiResource}).
 *
 * @throws {MCPConfigError} When `maxBytes` is not a positive integer.
 * @throws {MCPAdapterError} `invalid_argument` for a URI that is not
 * `ui://`; `invalid_response` when the server's answer is not an app
 * (no entry for the URI, another MIME type, no text, over the cap).
 */
export async function readUi(
  uri: string,
  context: UiReadContext,
): Promise<MCPUiResource> {
  if (!isUiUri(uri)) {
    throw new MCPAdapterError(
      "invalid_argument",
      `readUiResource() reads only MCP Apps resources: ${
        quoted(uri)
      } is not a ui:// URI of at most ${MAX_URI_CHARS} characters. Pass a tool's ui.resourceUri; read other resources with readResource().`,
    );
  }
  const { server } = context;
  const maxBytes = checkMaxBytes(context.maxBytes, "readUiResource()");
  const bad = (why: string) =>
    new MCPAdapterError(
      "invalid_response",
      `MCP server "${server}" answered resources/read of ${
        quoted(uri)
      } with ${why}; it is not an MCP App, so it is not returned`,
    );
  const result = await context.read(uri);
  const contents = Array.isArray(result.contents) ? result.contents : [];
  const entry = contents.find((item) => isRecord(item) && item.uri === uri);
  if (!isRecord(entry)) {
    throw bad(
      `${contents.length} entries, none for that URI`,
    );
  }
  const mime = typeof entry.mimeType === "string"
    ? entry.mimeType.toLowerCase().replace(/\s+/g, "")
    : undefined;
  if (mime !== APP_MIME_TYPE) {
    throw bad(
      `MIME type ${quoted(entry.mimeType ?? "none")}, not "${APP_MIME_TYPE}"`,
    );
  }
  const over = () =>
    bad(
      `HTML larger than ${maxBytes} bytes; pass a larger maxBytes if you trust this server's app`,
    );
  let html: string;
  if (typeof entry.text === "string") {
    if (utf8Within(entry.text, maxBytes) === undefined) throw over();
    html = entry.text;
  } else if (typeof entry.blob === "string") {
    if (entry.blob.length / 4 * 3 > maxBytes + 2) throw over();
    let bytes: Uint8Array;
    try {
      bytes = Uint8Array.from(atob(entry.blob), (char) => char.charCodeAt(0));
    } catch {
      throw bad("a blob that is not base64");
    }
    if (bytes.length > maxBytes) throw over();
    html = new TextDecoder().decode(bytes);
  } else {
    throw bad("neither text nor blob");
  }
  const resource: MCPUiResource = { uri, mimeType: APP_MIME_TYPE, html };
  const meta = isRecord(entry._meta) && isRecord(entry._meta.ui)
    ? entry._meta.ui
    : undefined;
  if (meta !== undefined) addMeta(resource, meta, context.note);
  return resource;
}

/**
 * The sandbox metadata, each value checked; what fails is left out, and
 * said in one note for the resource.
 */
function addMeta(
  resource: MCPUiResource,
  meta: Record<string, unknown>,
  note: (message: string) => void,
): void {
  const problems: string[] = [];
  if (isRecord(meta.csp)) {
    const csp: NonNullable<MCPUiResource["csp"]> = {};
    for (const key of CSP_KEYS) {
      const list = meta.csp[key];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        problems.push(`csp.${key} is not a list; it is left out`);
        continue;
      }
      const kept: string[] = [];
      let first: unknown;
      const examined = Math.min(list.length, MAX_EXAMINED);
      for (let i = 0; i < examined && kept.length < MAX_DOMAINS; i++) {
        const domain = list[i];
        if (
          typeof domain === "string" && domain.length <= MAX_DOMAIN_CHARS &&
          CSP_SOURCE.test(domain)
        ) kept.push(domain);
        else first ??= domain;
      }
      if (kept.length < list.length) {
        problems.push(
          `csp.${key}: ${
            (list.length - kept.length).toLocaleString("en-US")
          } of ${list.length.toLocaleString("en-US")} entries left out${
            first === undefined ? "" : ` (the first: ${quoted(first)})`
          }: not scheme://host sources, or past ${MAX_DOMAINS} entries`,
        );
      }
      csp[key] = kept;
    }
    resource.csp = csp;
  }
  if (isRecord(meta.permissions)) {
    resource.permissions = PERMISSIONS.filter((name) =>
      meta.permissions !== undefined &&
      isRecord((meta.permissions as Record<string, unknown>)[name])
    );
  }
  if (typeof meta.domain === "string") {
    if (meta.domain.length <= 253 && HOST_NAME.test(meta.domain)) {
      resource.domain = meta.domain;
    } else {
      problems.push(
        `domain ${quoted(meta.domain)} is not a host name; left out`,
      );
    }
  }
  if (typeof meta.prefersBorder === "boolean") {
    resource.prefersBorder = meta.prefersBorder;
  }
  if (problems.length > 0) {
    note(`UI resource ${quoted(resource.uri)}: ${problems.join("; ")}`);
  }
}

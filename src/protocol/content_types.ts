/**
 * The shapes of what a server offers besides tools: resources, resource
 * templates, prompts and completions, and the envelopes reading and
 * getting them return. The tools' shapes are in `types.ts`.
 *
 * @module
 */

import type { MCPContentBlock, MCPErrorKind } from "../types.ts";

/** Hints on a resource, template or content block (MCP `Annotations`). */
export interface MCPAnnotations {
  /** Who it is for: `"user"`, `"assistant"` or both. */
  audience?: ("user" | "assistant")[];
  /** How much it matters, from 0 (optional) to 1 (required). */
  priority?: number;
  /** When it last changed (ISO 8601), as the server says. */
  lastModified?: string;
}

/**
 * A resource a server lists (`resources/list`). The URI is checked (a
 * scheme, at most 8192 characters, no control, space or invisible
 * character), the MIME type is one or left out; names, titles and
 * descriptions are the server's text, cut to length: escape them before
 * printing.
 */
export interface MCPResource {
  /** Its URI: what `readResource()` takes. */
  uri: string;
  /** Its name (at most 512 characters; the URI when the server gave none). */
  name: string;
  /** A display title (at most 512 characters). */
  title?: string;
  /** What it is (at most 8192 characters). */
  description?: string;
  /** Its media type, e.g. `"text/markdown"`. */
  mimeType?: string;
  /** Its size in bytes, when the server says. */
  size?: number;
  /** Hints: audience, priority, last change. */
  annotations?: MCPAnnotations;
  /** Metadata of the server's. */
  _meta?: Record<string, unknown>;
}

/**
 * A resource template a server lists (`resources/templates/list`): an RFC
 * 6570 URI template, read with `readResource(uriTemplate, { variables })`.
 */
export interface MCPResourceTemplate {
  /** The template, e.g. `"file:///{path}"`. */
  uriTemplate: string;
  /** Its variables, in order of appearance. */
  variables: string[];
  /** Its name (at most 512 characters; the template when the server gave none). */
  name: string;
  /** A display title. */
  title?: string;
  /** What it reads. */
  description?: string;
  /** The media type of what it reads. */
  mimeType?: string;
  /** Hints: audience, priority, last change. */
  annotations?: MCPAnnotations;
  /** Metadata of the server's. */
  _meta?: Record<string, unknown>;
}

/** One item of what a read returned: text or a base64 blob. */
export interface MCPResourceContents {
  /** Its URI (a read may return several, e.g. the files of a folder). */
  uri: string;
  /** Its media type, when the server says (and it is one). */
  mimeType?: string;
  /** The text of a text resource. */
  text?: string;
  /** The bytes of a binary resource, base64-encoded (checked to be base64). */
  blob?: string;
  /** Metadata of the server's. */
  _meta?: Record<string, unknown>;
}

/** What `readResource()` read. */
export interface MCPResourceRead {
  /** The URI read: the one given, or the template's expansion. */
  uri: string;
  /** What the server returned for it. */
  contents: MCPResourceContents[];
}

/** An argument a prompt takes (MCP `PromptArgument`). */
export interface MCPPromptArgument {
  /** Its name: the key in `getPrompt()`'s arguments. */
  name: string;
  /** A display title. */
  title?: string;
  /** What to give. */
  description?: string;
  /** Whether `getPrompt()` refuses to call without it. */
  required: boolean;
}

/** A prompt a server lists (`prompts/list`). */
export interface MCPPrompt {
  /** Its name: what `getPrompt()` takes. */
  name: string;
  /** A display title. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** The arguments it takes (strings, each). */
  arguments: MCPPromptArgument[];
  /** Metadata of the server's. */
  _meta?: Record<string, unknown>;
}

/** One message of a prompt: who says it, and what. */
export interface MCPPromptMessage {
  /** `"user"` or `"assistant"`. */
  role: "user" | "assistant";
  /** Text, an image, audio, a resource link or an embedded resource. */
  content: MCPContentBlock;
}

/** What `getPrompt()` got: the prompt's messages. */
export interface MCPPromptMessages {
  /** The prompt's description for these arguments, when the server sent one. */
  description?: string;
  /** The messages, in order. */
  messages: MCPPromptMessage[];
}

/** What `complete()` completes: a prompt's argument or a template's variable. */
export type MCPCompletionRef =
  | { type: "ref/prompt"; name: string }
  | { type: "ref/resource"; uri: string };

/** Suggestions for an argument's value (`completion/complete`). */
export interface MCPCompletion {
  /** At most 100 values, each at most 1024 characters. */
  values: string[];
  /** How many there are in all, when the server says. */
  total?: number;
  /** Whether there are more than these. */
  hasMore: boolean;
}

/** A read, get or completion that succeeded. */
export interface MCPSuccess<T> {
  /** Always `true`. */
  success: true;
  /** What the server answered, checked. */
  data: T;
  /** Always `null`. */
  error: null;
  /** Absent on success. */
  errorKind?: undefined;
  /** Wall-clock time in milliseconds. */
  durationMs: number;
}

/** A read, get or completion that failed, before the server or at it. */
export interface MCPFailure {
  /** Always `false`. */
  success: false;
  /** Absent on failure. */
  data?: undefined;
  /** What went wrong and what to do. */
  error: string;
  /**
   * `not_found` (no such resource, template or prompt), `validation` (an
   * argument or variable missing or wrong, before the call), `timeout`,
   * `cancelled`, `server_error` (the server refused, or answered past the
   * size cap or not as the spec says), `connection`.
   */
  errorKind: MCPErrorKind;
  /** Wall-clock time in milliseconds. */
  durationMs: number;
}

/**
 * The envelope of `readResource()`, `getPrompt()` and `complete()`: as
 * `invoke()`'s, a union on `success`; only a missing connection throws.
 *
 * @example
 * ```ts
 * import type { MCPOutcome, MCPResourceRead } from "@cleveragents/mcp-adapter";
 *
 * function firstText(outcome: MCPOutcome<MCPResourceRead>): string {
 *   if (!outcome.success) return `${outcome.errorKind}: ${outcome.error}`;
 *   return outcome.data.contents[0]?.text ?? "(no text)";
 * }
 * ```
 */
export type MCPOutcome<T> = MCPSuccess<T> | MCPFailure;

/** What `listResources()`, `listResourceTemplates()` and `listPrompts()` take. */
export interface ListOptions {
  /** List again even when the cached list is fresh. */
  refresh?: boolean;
}

/** Options of `readResource()`. */
export interface ReadResourceOptions {
  /**
   * Reads a resource template: the first argument is one of the server's
   * `uriTemplate`s, expanded with these values (each variable given, but
   * those of `{?…}`/`{&…}`; no other).
   */
  variables?: Record<string, string | readonly string[]>;
  /**
   * The most text (UTF-8) and decoded blob bytes a read may return, in all.
   * Default 8 MiB. The message itself is also bounded by `maxMessageBytes`.
   */
  maxBytes?: number;
  /** Deadline in ms. Default: the adapter's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Aborts the read. */
  signal?: AbortSignal;
}

/** Options of `getPrompt()` and `complete()`. */
export interface PromptOptions {
  /** Deadline in ms. Default: the adapter's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** Options of `complete()`. */
export interface CompleteOptions extends PromptOptions {
  /** The values of the other arguments given so far, which may narrow the suggestions. */
  context?: Record<string, string>;
}

/** What changed, for `onListChanged` listeners. */
export type MCPListKind = "resources" | "prompts";

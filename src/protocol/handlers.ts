/**
 * Callbacks for requests the server sends to the client: elicitation
 * (ask the user), sampling (ask the model) and roots (which directories the
 * server may use). A capability is declared in `initialize` only when its
 * handler is given; otherwise the server gets "method not found".
 *
 * @module
 */

import type { JsonSchema } from "../types.ts";

/** The server asks the user for input (`elicitation/create`). */
export interface ElicitationRequest {
  /**
   * `"form"` (the default): fill in `requestedSchema`'s fields. `"url"`:
   * open `url` in the user's browser (only with `urlElicitation: true`).
   */
  mode?: "form" | "url";
  /** What to ask the user. */
  message: string;
  /** A flat JSON Schema object describing the fields to collect (form mode). */
  requestedSchema?: JsonSchema;
  /**
   * The page to open (URL mode): checked to be `https:` (or `http:` on a
   * loopback host) without credentials. Show it in full, ask the user's
   * consent, and never fetch it yourself.
   */
  url?: string;
  /** Other fields of newer protocol revisions (e.g. `elicitationId`). */
  [key: string]: unknown;
}

/** The user's answer to an elicitation. */
export interface ElicitationResult {
  /** What the user did. */
  action: "accept" | "decline" | "cancel";
  /** The fields the user filled in, when accepted. Missing fields get the schema's defaults. */
  content?: Record<string, unknown>;
}

/** The server asks the client's model for a completion (`sampling/createMessage`). */
export interface SamplingRequest {
  /** The conversation so far. */
  messages: unknown[];
  /** Upper bound on generated tokens. */
  maxTokens: number;
  /** Other fields: systemPrompt, modelPreferences, temperature, … */
  [key: string]: unknown;
}

/** The model's answer to a sampling request. */
export interface SamplingResult {
  /** Always "assistant". */
  role: "assistant";
  /** The generated content, e.g. `{ type: "text", text: "…" }`. */
  content: unknown;
  /** Which model answered. */
  model: string;
  /** Why generation stopped, e.g. "endTurn". */
  stopReason?: string;
  /** Other fields. */
  [key: string]: unknown;
}

/** A directory or file the server may work in. */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  /** A display name. */
  name?: string;
}

/** Answers to server-initiated requests. Each one given declares its capability. */
export interface ClientHandlers {
  /** Answers `elicitation/create`. */
  elicitation?: (
    request: ElicitationRequest,
  ) => ElicitationResult | Promise<ElicitationResult>;
  /** Answers `sampling/createMessage`. */
  sampling?: (
    request: SamplingRequest,
  ) => SamplingResult | Promise<SamplingResult>;
  /** Answers `roots/list`. */
  roots?: () => Root[] | Promise<Root[]>;
  /**
   * `elicitation` also takes URL-mode requests (`mode: "url"`): the
   * client declares them. Default `false`: forms only.
   */
  urlElicitation?: boolean;
}

/** The `elicitation` capability these handlers declare; `undefined` for none. */
export function elicitationCapability(
  handlers: ClientHandlers | undefined,
): Record<string, unknown> | undefined {
  if (!handlers?.elicitation) return undefined;
  return handlers.urlElicitation === true
    ? { form: {}, url: {} }
    : { form: {} };
}

/** The client capabilities to declare in `initialize` for these handlers. */
export function clientCapabilities(
  handlers: ClientHandlers | undefined,
  extensions?: Record<string, unknown>,
): Record<string, unknown> {
  // Task-augmented tool calls are sent as the server's tools declare; the
  // client receives no tasks, so no tasks.* member is declared.
  const capabilities: Record<string, unknown> = { tasks: {} };
  const elicitation = elicitationCapability(handlers);
  if (elicitation) capabilities.elicitation = elicitation;
  if (handlers?.sampling) capabilities.sampling = {};
  if (handlers?.roots) capabilities.roots = { listChanged: false };
  if (extensions) capabilities.extensions = extensions;
  return capabilities;
}

/** Which handler answers each server request method. */
const HANDLER_OF = new Map<string, keyof ClientHandlers>([
  ["elicitation/create", "elicitation"],
  ["sampling/createMessage", "sampling"],
  ["roots/list", "roots"],
]);

/**
 * Whether `handlers` answers a server request method; without a handler
 * the server gets "method not found". What answers (`_answer.ts`) is loaded
 * by the connection with the first request that has a handler.
 */
export function answers(
  handlers: ClientHandlers | undefined,
  method: string,
): boolean {
  const kind = HANDLER_OF.get(method);
  return kind !== undefined && handlers?.[kind] !== undefined;
}

/**
 * Answers the server's requests with the client's handlers: elicitation
 * (with the schema's defaults filled in), sampling and roots; a 2025-era
 * server's requests one by one, a modern server's input requests (of a
 * request's rounds, `_input.ts`, or of a task, `tasks/modern.ts`) all of
 * one answer at once. Loaded with the first request that has a handler.
 *
 * @module
 */

import type { Result } from "./session.ts";
import type { JSONRPCRequest } from "../transports/transport.ts";
import type { JsonSchema } from "../types.ts";
import { isRecord, kindOf } from "../util/values.ts";
import { MCPAdapterError } from "../errors.ts";
import { webUrlProblem } from "../util/url_policy.ts";
import { excerpt } from "../util/redact.ts";
import {
  answers,
  type ClientHandlers,
  type ElicitationRequest,
  type ElicitationResult,
  type SamplingRequest,
} from "./handlers.ts";

const RELATED_TASK = "io.modelcontextprotocol/related-task";

/**
 * Answers a server request that `handlers` has a handler for. The answer to
 * a request about a task (a task's elicitation, say) carries the same
 * related-task `_meta`, as the specification says.
 */
export async function answer(
  handlers: ClientHandlers,
  request: JSONRPCRequest,
): Promise<Result> {
  const params = request.params ?? {};
  const result = await route(handlers, request.method, params);
  const related = params._meta?.[RELATED_TASK];
  return related === undefined ? result : {
    ...result,
    _meta: { ...result._meta as Result, [RELATED_TASK]: related },
  };
}

async function route(
  handlers: ClientHandlers,
  method: string,
  params: Record<string, unknown>,
): Promise<Result> {
  switch (method) {
    case "elicitation/create": {
      const request = params as ElicitationRequest;
      if (typeof request.message !== "string") {
        // Every handler shows it to the user: it must be text.
        throw new MCPAdapterError(
          "invalid_response",
          `The server asked the user a question whose message is ${
            kindOf(request.message)
          }, not text; refused. Report this to the server's maintainers.`,
        );
      }
      if (request.mode === "url") {
        const answer = await handlers.elicitation!({
          ...request,
          url: checkedUrl(handlers, request.url),
        });
        // Consent only: what the user did on the page, the server learns itself.
        return { action: answer.action };
      }
      const answer = await handlers.elicitation!(request);
      return withDefaults(answer, request.requestedSchema) as unknown as Result;
    }
    case "sampling/createMessage":
      return await handlers.sampling!(params as SamplingRequest) as Result;
    case "roots/list":
      return { roots: await handlers.roots!() };
    default:
      throw new Error(`no handler answers ${method}`);
  }
}

/** The longest URL a URL-mode elicitation may bring. */
const MAX_URL_CHARS = 4096;

/**
 * The URL of a URL-mode elicitation, checked: the client declared URL mode,
 * and the URL passes the library's rule for URLs from a server (`https:`,
 * `http:` only on a loopback host, no credentials before the host, no
 * link-local address; `../util/url_policy.ts`) and is bounded. It is
 * never fetched here.
 *
 * @throws {MCPAdapterError} `invalid_response`, naming what is wrong.
 */
function checkedUrl(handlers: ClientHandlers, url: unknown): string {
  const refuse = (why: string) =>
    new MCPAdapterError(
      "invalid_response",
      `The server asked the user to open a URL that ${why}; refused. Report this to the server's maintainers.`,
    );
  if (handlers.urlElicitation !== true) {
    throw refuse(
      "this client did not accept (URL-mode elicitation was not declared; set handlers.urlElicitation to take them)",
    );
  }
  if (typeof url !== "string" || url.length > MAX_URL_CHARS) {
    throw refuse(`is not a string of at most ${MAX_URL_CHARS} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse("is not a valid absolute URL");
  }
  const problem = webUrlProblem(parsed);
  if (problem !== undefined) throw refuse(`is refused: ${problem}`);
  return parsed.href;
}

/** Fills the fields the user left out of an accepted answer from the schema's `default`s. */
function withDefaults(
  answer: ElicitationResult,
  schema: JsonSchema | undefined,
): ElicitationResult {
  const properties = schema?.properties;
  if (answer.action !== "accept" || !isRecord(properties)) return answer;
  const content = { ...answer.content };
  for (const [field, property] of Object.entries(properties)) {
    if (
      content[field] === undefined && isRecord(property) &&
      "default" in property
    ) content[field] = property.default;
  }
  return { ...answer, content };
}

/** Which handler answers each kind of input request, for messages. */
const HANDLER_NAMES: Readonly<Record<string, string>> = {
  "elicitation/create": "handlers.elicitation",
  "sampling/createMessage": "handlers.sampling",
  "roots/list": "handlers.roots",
};
/** The most input requests one answer may hold. */
const MAX_INPUT_REQUESTS = 64;

/**
 * The answers to input requests (one round's, or a task's), by the
 * server's keys.
 *
 * @throws {MCPAdapterError} `input_required` when no handler answers a
 * request; `invalid_response` for malformed requests, or too many.
 */
export async function answerAll(
  context: {
    handlers: ClientHandlers | undefined;
    label: string;
    secrets?: readonly string[];
  },
  method: string,
  requests: unknown,
): Promise<Record<string, unknown>> {
  const responses: Record<string, unknown> = {};
  if (requests === undefined) return responses;
  const { handlers, label } = context;
  if (!isRecord(requests)) {
    throw malformed(label, method, `inputRequests is ${kindOf(requests)}`);
  }
  const entries = Object.entries(requests);
  if (entries.length > MAX_INPUT_REQUESTS) {
    throw malformed(
      label,
      method,
      `${entries.length} input requests (at most ${MAX_INPUT_REQUESTS} are answered)`,
    );
  }
  const answered = await Promise.all(entries.map(async ([key, request]) => {
    if (!isRecord(request) || typeof request.method !== "string") {
      throw malformed(
        label,
        method,
        `input request ${excerpt(key, context.secrets ?? [])} has no method`,
      );
    }
    const kind = request.method;
    if (!answers(handlers, kind)) {
      // Own keys only: a kind named `constructor` is a kind we do not know.
      const handler = Object.hasOwn(HANDLER_NAMES, kind)
        ? HANDLER_NAMES[kind]
        : undefined;
      throw new MCPAdapterError(
        "input_required",
        handler === undefined
          ? `MCP server "${label}" needs input of a kind this client does not know (${
            excerpt(kind, context.secrets ?? [])
          }) to complete "${method}"`
          : `MCP server "${label}" needs input (${kind}) to complete "${method}": give the adapter ${handler} to answer it`,
      );
    }
    const params = isRecord(request.params) ? request.params : {};
    return [
      key,
      await answer(handlers!, { jsonrpc: "2.0", id: 0, method: kind, params }),
    ] as const;
  }));
  for (const [key, response] of answered) {
    Object.defineProperty(responses, key, {
      value: response,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return responses;
}

function malformed(
  label: string,
  method: string,
  what: string,
): MCPAdapterError {
  return new MCPAdapterError(
    "invalid_response",
    `MCP server "${label}" asked for input to "${method}" with ${what}; report this to the server's maintainers`,
  );
}

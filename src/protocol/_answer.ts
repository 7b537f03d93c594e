/**
 * Answers the server's requests with the client's handlers: elicitation
 * (with the schema's defaults filled in), sampling and roots. Loaded with
 * the first request that has a handler.
 *
 * @module
 */

import type { Result } from "./session.ts";
import type { JSONRPCRequest } from "../transports/transport.ts";
import type { JsonSchema } from "../types.ts";
import { isRecord } from "../util/values.ts";
import { MCPAdapterError } from "../errors.ts";
import { webUrlProblem } from "../util/url_policy.ts";
import type {
  ClientHandlers,
  ElicitationRequest,
  ElicitationResult,
  SamplingRequest,
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

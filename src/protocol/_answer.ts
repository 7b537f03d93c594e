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
import { isRecord } from "../_util/values.ts";
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

/**
 * What a server says about its prompts, read into checked descriptors:
 * `prompts/list` entries, the messages of a `prompts/get`, and the
 * suggestions of a `completion/complete`. Bounded as `resource_list.ts`
 * bounds resources; a prompt whose name could not be sent back as it came
 * is left out with a note. Internal.
 *
 * @module
 */

import { isRecord } from "../util/values.ts";
import { base64Size } from "../util/bytes.ts";
import type {
  MCPCompletion,
  MCPPrompt,
  MCPPromptArgument,
  MCPPromptMessage,
  MCPPromptMessages,
} from "./content_types.ts";
import type { MCPContentBlock, MCPResourceLink } from "../types.ts";
import { MAX_ENTRIES } from "./pages.ts";
import {
  descriptionOf,
  MAX_NAME_CHARS,
  mimeTypeOf,
  nameOf,
  type Note,
  uriProblem,
} from "./resource_list.ts";
import { quoted } from "../util/quoted.ts";

/** The most arguments a prompt keeps. */
const MAX_ARGUMENTS = 64;
/** The most suggestions a completion keeps (the spec's bound), and their longest. */
const MAX_VALUES = 100;
const MAX_VALUE_CHARS = 1024;
/** A name that identifies something in a request: no control or invisible character. */
const BAD_NAME =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/;

/** Why `value` cannot name a prompt or argument, or `undefined` when it can. */
export function nameProblem(value: unknown): string | undefined {
  if (
    typeof value !== "string" || value === "" ||
    value.length > MAX_NAME_CHARS
  ) return `is not a string of 1 to ${MAX_NAME_CHARS} characters`;
  if (BAD_NAME.test(value)) return "holds a control or invisible character";
  return undefined;
}

/**
 * A `prompts/list` entry as a descriptor, or `undefined` (with a note)
 * when its name is not one.
 */
export function toPrompt(raw: unknown, note: Note): MCPPrompt | undefined {
  if (!isRecord(raw)) return undefined;
  const problem = nameProblem(raw.name);
  if (problem !== undefined) {
    note(`a prompt's name ${quoted(raw.name)} ${problem}; it is left out`);
    return undefined;
  }
  const name = raw.name as string;
  const prompt: MCPPrompt = { name, arguments: [] };
  const title = nameOf(raw.title);
  if (title !== undefined) prompt.title = title;
  const description = descriptionOf(raw.description);
  if (description !== undefined) prompt.description = description;
  const args = Array.isArray(raw.arguments) ? raw.arguments : [];
  if (args.length > MAX_ARGUMENTS) {
    note(
      `prompt ${
        quoted(name)
      } has more than ${MAX_ARGUMENTS} arguments; it is left out`,
    );
    return undefined;
  }
  for (const arg of args) {
    if (!isRecord(arg)) continue;
    const why = nameProblem(arg.name);
    if (
      why !== undefined || prompt.arguments.some((a) => a.name === arg.name)
    ) {
      note(
        `prompt ${quoted(name)}'s argument ${quoted(arg.name)} ${
          why ?? "is listed twice"
        }; the prompt is left out`,
      );
      return undefined;
    }
    const argument: MCPPromptArgument = {
      name: arg.name as string,
      required: arg.required === true,
    };
    const title = nameOf(arg.title);
    if (title !== undefined) argument.title = title;
    const about = descriptionOf(arg.description);
    if (about !== undefined) argument.description = about;
    prompt.arguments.push(argument);
  }
  if (isRecord(raw._meta)) prompt._meta = raw._meta;
  return prompt;
}

/**
 * The messages of a `prompts/get` answer, each checked (a role of `user`
 * or `assistant`, and one content block of the spec's five kinds), or why
 * not: a prompt is used whole, so one bad message fails it.
 */
export function promptMessages(
  result: Record<string, unknown>,
): MCPPromptMessages | { problem: string } {
  if (!Array.isArray(result.messages)) {
    return { problem: "an answer without a messages list" };
  }
  if (result.messages.length > MAX_ENTRIES) {
    // The bound of every list a server sends: a prompt is used whole.
    return {
      problem: `more than ${MAX_ENTRIES.toLocaleString("en-US")} messages (${
        result.messages.length.toLocaleString("en-US")
      })`,
    };
  }
  const messages: MCPPromptMessage[] = [];
  for (const [index, raw] of result.messages.entries()) {
    const role = isRecord(raw) ? raw.role : undefined;
    const content = isRecord(raw) ? contentBlock(raw.content) : undefined;
    if ((role !== "user" && role !== "assistant") || content === undefined) {
      return {
        problem: `message ${
          index + 1
        }, which is not a role (user or assistant) with a text, image, audio, resource_link or resource content block`,
      };
    }
    messages.push({ role, content });
  }
  const prompt: MCPPromptMessages = { messages };
  const description = descriptionOf(result.description);
  if (description !== undefined) prompt.description = description;
  return prompt;
}

/** One content block, checked: what identifies or decodes it is valid. */
function contentBlock(raw: unknown): MCPContentBlock | undefined {
  if (!isRecord(raw)) return undefined;
  // As in a tool result: the hints and metadata are the server's own.
  const extra = {
    ...(isRecord(raw.annotations) ? { annotations: raw.annotations } : {}),
    ...(isRecord(raw._meta) ? { _meta: raw._meta } : {}),
  };
  switch (raw.type) {
    case "text":
      return typeof raw.text === "string"
        ? { type: "text", text: raw.text, ...extra }
        : undefined;
    case "image":
    case "audio": {
      const mimeType = mimeTypeOf(raw.mimeType);
      return typeof raw.data === "string" && mimeType !== undefined &&
          base64Size(raw.data) !== undefined
        ? { type: raw.type, data: raw.data, mimeType, ...extra }
        : undefined;
    }
    case "resource_link": {
      if (uriProblem(raw.uri) !== undefined) return undefined;
      const link: MCPResourceLink = {
        type: "resource_link",
        uri: raw.uri as string,
        ...extra,
      };
      const name = nameOf(raw.name);
      if (name !== undefined) link.name = name;
      const title = nameOf(raw.title);
      if (title !== undefined) link.title = title;
      const description = descriptionOf(raw.description);
      if (description !== undefined) link.description = description;
      const mimeType = mimeTypeOf(raw.mimeType);
      if (mimeType !== undefined) link.mimeType = mimeType;
      return link;
    }
    case "resource": {
      const resource = raw.resource;
      if (!isRecord(resource) || uriProblem(resource.uri) !== undefined) {
        return undefined;
      }
      const embedded: {
        uri: string;
        mimeType?: string;
        text?: string;
        blob?: string;
      } = { uri: resource.uri as string };
      if (typeof resource.text === "string") embedded.text = resource.text;
      else if (
        typeof resource.blob === "string" &&
        base64Size(resource.blob) !== undefined
      ) embedded.blob = resource.blob;
      else return undefined;
      const mimeType = mimeTypeOf(resource.mimeType);
      if (mimeType !== undefined) embedded.mimeType = mimeType;
      return { type: "resource", resource: embedded, ...extra };
    }
    default:
      return undefined;
  }
}

/**
 * The suggestions of a `completion/complete` answer: strings only, at most
 * 100 of at most 1024 characters each; or why not.
 */
export function completionOf(
  result: Record<string, unknown>,
): MCPCompletion | { problem: string } {
  const completion = result.completion;
  if (!isRecord(completion) || !Array.isArray(completion.values)) {
    return { problem: "an answer without completion.values" };
  }
  const values = completion.values.filter((value): value is string =>
    typeof value === "string" && value.length <= MAX_VALUE_CHARS
  ).slice(0, MAX_VALUES);
  const answer: MCPCompletion = {
    values,
    hasMore: completion.hasMore === true ||
      completion.values.length > MAX_VALUES,
  };
  const total = completion.total;
  if (Number.isSafeInteger(total) && (total as number) >= values.length) {
    answer.total = total as number;
  }
  return answer;
}

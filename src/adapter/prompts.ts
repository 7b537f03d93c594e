/**
 * An adapter's prompts: `prompts/list` (cached as the tool list is) and
 * `prompts/get`, whose arguments are checked against the listed prompt
 * before the call (unknown ones refused, required ones demanded, strings
 * only), as a tool's are against its schema; and `completion/complete`
 * for a prompt's argument or a template's variable, checked the same way.
 * Both answer in the envelope `invoke()` returns. Loaded with the
 * adapter's first use of resources or prompts. Internal.
 *
 * @module
 */

import { checkTimeoutMs } from "../util/time.ts";
import {
  completionOf,
  promptMessages,
  toPrompt,
} from "../protocol/prompt_list.ts";
import { quoted } from "../util/quoted.ts";
import type {
  CompleteOptions,
  MCPCompletion,
  MCPCompletionRef,
  MCPOutcome,
  MCPPrompt,
  MCPPromptMessages,
  PromptOptions,
} from "../protocol/content_types.ts";
import type { MCPErrorKind } from "../types.ts";
import { didYouMean } from "../util/closest.ts";
import { isRecord } from "../util/values.ts";
import type { ContentContext } from "./_context.ts";
import { ListCache } from "./_lists.ts";
import { failed, failure, succeeded } from "./_envelope.ts";
import type { Updates } from "./_updates.ts";
import type { Resources } from "./resources.ts";

/** The longest argument value `getPrompt()` and `complete()` send, in characters. */
const MAX_ARGUMENT_CHARS = 65_536;

/** The prompts of one server, and completion. */
export class Prompts {
  readonly #context: ContentContext;
  readonly #resources: Resources;
  /** `prompts/list`, cached. */
  readonly list: ListCache<MCPPrompt>;

  constructor(context: ContentContext, updates: Updates, resources: Resources) {
    this.#context = context;
    this.#resources = resources;
    this.list = new ListCache({
      method: "prompts/list",
      field: "prompts",
      read: toPrompt,
      key: (prompt) => prompt.name,
      follow: () => updates.followList("prompts"),
    }, context);
  }

  /** The start of a call: its clock, deadline, and how it fails. */
  #begin(options: PromptOptions) {
    const started = performance.now();
    const timeoutMs = checkTimeoutMs("timeoutMs", options.timeoutMs) ??
      this.#context.requestTimeoutMs;
    const context = {
      started,
      signal: options.signal,
      secrets: this.#context.secrets(),
    };
    const fail = (kind: MCPErrorKind, message: string) =>
      failed(kind, message, started, this.#context.secrets());
    return { started, timeoutMs, context, fail };
  }

  /** The listed prompt of that name; the list is fetched again once when it is not there. */
  async #prompt(name: string): Promise<MCPPrompt | undefined> {
    const find = (prompts: MCPPrompt[]) =>
      prompts.find((prompt) => prompt.name === name);
    return find(await this.list.get()) ?? find(await this.list.get(true));
  }

  #notFound(name: string): string {
    const names = (this.list.fresh ?? []).map((prompt) => prompt.name);
    return `Prompt ${
      quoted(name)
    } not found on MCP server "${this.#context.server}"${
      didYouMean(name, names)
    } (${
      names.length === 0
        ? "it lists no prompts"
        : `available: ${names.slice(0, 20).join(", ")}${
          names.length > 20 ? ", …" : ""
        }`
    }); check the name`;
  }

  /** Gets a prompt's messages; see `MCPToolAdapter.getPrompt`. */
  async get(
    name: string,
    args: Record<string, string> = {},
    options: PromptOptions = {},
  ): Promise<MCPOutcome<MCPPromptMessages>> {
    const { started, timeoutMs, context, fail } = this.#begin(options);
    const { connection, server } = this.#context;
    await connection.whenReady("get a prompt");
    if (!this.list.offered) {
      return fail(
        "not_found",
        `MCP server "${server}" offers no prompts (it declares no prompts capability)`,
      );
    }
    const problem = argumentsProblem(args);
    if (problem !== undefined) {
      return fail(
        "validation",
        `The arguments of prompt ${quoted(name)} ${problem}`,
      );
    }
    let prompt: MCPPrompt | undefined;
    try {
      prompt = await this.#prompt(name);
    } catch (error) {
      return failure(error, "Listing the prompts", context);
    }
    if (prompt === undefined) return fail("not_found", this.#notFound(name));
    const known = prompt.arguments.map((argument) => argument.name);
    const unknown = Object.keys(args).filter((key) => !known.includes(key));
    if (unknown.length > 0) {
      return fail(
        "validation",
        `Prompt ${quoted(name)} has no argument ${quoted(unknown[0])}${
          didYouMean(unknown[0]!, known)
        } (its arguments: ${known.join(", ") || "none"})`,
      );
    }
    const missing = prompt.arguments.filter((argument) =>
      argument.required && !Object.hasOwn(args, argument.name)
    ).map((argument) => argument.name);
    if (missing.length > 0) {
      return fail(
        "validation",
        `Prompt ${quoted(name)} needs the argument${
          missing.length === 1 ? "" : "s"
        } ${missing.map((key) => quoted(key)).join(", ")}`,
      );
    }
    let result: Record<string, unknown>;
    try {
      result = await connection.request("prompts/get", {
        name,
        arguments: { ...args },
      }, { timeoutMs, signal: options.signal });
    } catch (error) {
      return failure(error, `Prompt ${quoted(name)}`, context);
    }
    const messages = promptMessages(result);
    if ("problem" in messages) {
      return fail(
        "server_error",
        `MCP server "${server}" answered prompts/get of ${
          quoted(name)
        } with ${messages.problem}`,
      );
    }
    return succeeded(messages, started);
  }

  /** Suggests values for an argument; see `MCPToolAdapter.complete`. */
  async complete(
    ref: MCPCompletionRef,
    argument: { name: string; value: string },
    options: CompleteOptions = {},
  ): Promise<MCPOutcome<MCPCompletion>> {
    const { started, timeoutMs, context, fail } = this.#begin(options);
    const { connection, server } = this.#context;
    await connection.whenReady("complete an argument");
    if (connection.serverInfo?.capabilities.completions === undefined) {
      return fail(
        "not_found",
        `MCP server "${server}" offers no completion (it declares no completions capability)`,
      );
    }
    if (
      !isRecord(argument) || typeof argument.name !== "string" ||
      typeof argument.value !== "string" ||
      argument.value.length > MAX_ARGUMENT_CHARS
    ) {
      return fail(
        "validation",
        `complete() takes an argument { name, value } of strings (a value of at most ${MAX_ARGUMENT_CHARS} characters)`,
      );
    }
    const problem = argumentsProblem(options.context ?? {});
    if (problem !== undefined) {
      return fail("validation", `The context of complete() ${problem}`);
    }
    let names: readonly string[] | undefined;
    let what: string;
    try {
      if (isRecord(ref) && ref.type === "ref/prompt") {
        what = `prompt ${quoted(ref.name)}`;
        names = (await this.#prompt(ref.name))?.arguments.map((a) => a.name);
        if (names === undefined) {
          return fail("not_found", this.#notFound(ref.name));
        }
      } else if (isRecord(ref) && ref.type === "ref/resource") {
        what = `resource template ${quoted(ref.uri)}`;
        names = (await this.#resources.template(ref.uri))?.variables;
        if (names === undefined) {
          return fail(
            "not_found",
            `MCP server "${server}" has no resource template ${
              quoted(ref.uri)
            }; pass a uriTemplate of listResourceTemplates()`,
          );
        }
      } else {
        return fail(
          "validation",
          `complete() takes a ref { type: "ref/prompt", name } or { type: "ref/resource", uri }, got ${
            quoted(ref)
          }`,
        );
      }
    } catch (error) {
      return failure(error, "Listing what complete() refers to", context);
    }
    if (!names.includes(argument.name)) {
      return fail(
        "validation",
        `The ${what} has no argument ${quoted(argument.name)}${
          didYouMean(argument.name, names)
        } (its arguments: ${names.join(", ") || "none"})`,
      );
    }
    let result: Record<string, unknown>;
    try {
      result = await connection.request("completion/complete", {
        ref: { ...ref },
        argument: { name: argument.name, value: argument.value },
        ...(options.context === undefined
          ? {}
          : { context: { arguments: { ...options.context } } }),
      }, { timeoutMs, signal: options.signal });
    } catch (error) {
      return failure(error, `Completing ${quoted(argument.name)}`, context);
    }
    const completion = completionOf(result);
    if ("problem" in completion) {
      return fail(
        "server_error",
        `MCP server "${server}" answered completion/complete with ${completion.problem}`,
      );
    }
    return succeeded(completion, started);
  }
}

/** Why `args` is not an object of string values, or `undefined`. */
function argumentsProblem(args: unknown): string | undefined {
  if (!isRecord(args)) return "must be an object of name → string";
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== "string") {
      return `must all be strings: ${quoted(key)} is ${
        value === null ? "null" : Array.isArray(value) ? "a list" : typeof value
      }`;
    }
    if (value.length > MAX_ARGUMENT_CHARS) {
      return `must each be at most ${MAX_ARGUMENT_CHARS} characters: ${
        quoted(key)
      } is longer`;
    }
  }
  return undefined;
}

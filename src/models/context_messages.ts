/**
 * A server's resource or prompt, handed to a model: `resourceMessages()`
 * turns a read into one user message, `promptMessages()` a prompt's
 * messages into the API's messages, each in the form of the provider's
 * codec, within the result budget. See docs/models.md ("Resources and
 * prompts for a model").
 *
 * @module
 */

import { type Budget, checkBudget, mergeBudgets } from "./_budget.ts";
import { contextMessages, type Draft, draftOf, readItem } from "./_context.ts";
import { isSchema } from "./_json_schema.ts";
import { codecOf } from "./_providers.ts";
import type {
  ContextOptions,
  ContextShapes,
  PromptData,
  ResourceReadData,
} from "./context_types.ts";
import type { ModelProvider } from "./types.ts";

/**
 * A resource read as one user message of `provider`'s API: a sentence
 * saying the contents come from an MCP server and are data, then each
 * content in a block tagged with a marker the text cannot forge, naming
 * its URI and media type (and `options.server`). Text passes the
 * model-text neutraliser; images are the API's image parts; audio and
 * other binary blobs become a short note; `text/*` and JSON blobs are
 * decoded. The contents share `resultBudget.maxTokens`: text over its
 * share keeps its head and tail with a marker between them. The same read
 * gives the same bytes.
 *
 * @param read The `data` of a successful `readResource()`.
 * @param provider The model API.
 * @param options The budget, and the server's name for the blocks.
 * @returns The message, in a list (none when the read holds nothing).
 * @throws {TypeError} For a `provider` that is not one, or a `read` without `contents`.
 * @throws {MCPConfigError} For a `resultBudget` out of range.
 *
 * @example Give a resource to a model as context
 * ```ts
 * import type { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { resourceMessages } from "@cleveragents/mcp-adapter/models";
 *
 * declare const hub: MCPToolHub;
 * const read = await hub.readResource("docs/file:///README.md");
 * if (read.success) {
 *   const messages = [
 *     ...resourceMessages(read.data, "anthropic", { server: "docs" }),
 *     { role: "user" as const, content: "Summarise this file." },
 *   ];
 *   console.log(messages.length); // 2
 * }
 * ```
 */
export function resourceMessages<P extends ModelProvider>(
  read: ResourceReadData,
  provider: P,
  options: ContextOptions = {},
): ContextShapes[P][] {
  const codec = codecOf(provider);
  if (!isSchema(read) || !Array.isArray(read.contents)) {
    throw new TypeError(
      `resourceMessages() takes what a read returned: pass read.data of a successful readResource(), got ${
        described(read)
      }`,
    );
  }
  const drafts: Draft[] = [{
    role: "user",
    items: read.contents.map((contents) => readItem(contents)),
  }];
  return contextMessages(drafts, codec.context, {
    budget: budgetOf(options),
    server: serverOf(options),
  });
}

/**
 * A prompt's messages as `provider`'s messages, one for each that is not
 * blank, in order: `user` as the user, `assistant` as the assistant
 * (Gemini: `model`). Text passes the model-text neutraliser and is cut to
 * `resultBudget.maxTokens` per message (head and tail, with a marker);
 * an embedded resource is in a block as `resourceMessages()` writes it; a
 * resource link is text (never read); images are the API's image parts,
 * counted over the whole prompt, in user messages (and Gemini's model
 * messages: the other APIs take none from the assistant, so there they
 * become a note); audio and binary blobs become a note. The same prompt
 * gives the same bytes.
 *
 * @param prompt The `data` of a successful `getPrompt()`.
 * @param provider The model API.
 * @param options The budget, and the server's name for resource blocks.
 * @returns The messages.
 * @throws {TypeError} For a `provider` that is not one, or a `prompt` whose messages are not a list of `user` and `assistant` messages.
 * @throws {MCPConfigError} For a `resultBudget` out of range.
 *
 * @example Start a conversation with a server's prompt
 * ```ts
 * import type { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { promptMessages } from "@cleveragents/mcp-adapter/models";
 *
 * declare const hub: MCPToolHub;
 * const prompt = await hub.getPrompt("everything/args-prompt", {
 *   city: "Paris",
 * });
 * if (prompt.success) {
 *   const messages = promptMessages(prompt.data, "openai-chat");
 *   console.log(messages[0]?.role); // "user"
 * }
 * ```
 */
export function promptMessages<P extends ModelProvider>(
  prompt: PromptData,
  provider: P,
  options: ContextOptions = {},
): ContextShapes[P][] {
  const codec = codecOf(provider);
  if (!isSchema(prompt) || !Array.isArray(prompt.messages)) {
    throw new TypeError(
      `promptMessages() takes what getPrompt() got: pass prompt.data of a successful getPrompt(), got ${
        described(prompt)
      }`,
    );
  }
  const drafts = prompt.messages.map((message: unknown, index) => {
    const role = isSchema(message) ? message.role : undefined;
    if (role !== "user" && role !== "assistant") {
      throw new TypeError(
        `promptMessages(): message ${index} has the role ${
          JSON.stringify(String(role).slice(0, 40))
        }; a prompt's messages are "user" or "assistant" messages with one content block each`,
      );
    }
    return draftOf(role, (message as { content?: unknown }).content);
  });
  return contextMessages(drafts, codec.context, {
    budget: budgetOf(options),
    server: serverOf(options),
  });
}

function budgetOf(options: ContextOptions): Budget {
  checkBudget(options.resultBudget, "resultBudget");
  return mergeBudgets(options.resultBudget);
}

function serverOf(options: ContextOptions): string | undefined {
  const { server } = options;
  if (server !== undefined && typeof server !== "string") {
    throw new TypeError(
      `options.server is the server's name, a string; got ${typeof server}`,
    );
  }
  return server;
}

/** What a wrong argument was, for an error: an envelope is named so. */
function described(value: unknown): string {
  if (isSchema(value) && "success" in value) {
    return `the outcome envelope itself (its data is in .data when success is true)`;
  }
  return value === null
    ? "null"
    : Array.isArray(value)
    ? "a list"
    : typeof value === "object"
    ? "an object without that list"
    : typeof value;
}

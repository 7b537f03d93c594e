/**
 * The notes server's tools handed to the Anthropic Messages API. Without
 * `ANTHROPIC_API_KEY` it prints the tool definitions and stops.
 *
 * Run it: `deno run -A examples/models/anthropic.ts`.
 *
 * @module
 */

import Anthropic from "@anthropic-ai/sdk";
import process from "node:process";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { askUser, QUESTION, say, startNotes } from "./_notes.ts";

const hub = await startNotes();
try {
  const tools = modelTools(hub.registry, "anthropic", { approve: askUser });
  const apiKey = process.env.ANTHROPIC_API_KEY; // the key goes here
  if (!apiKey) {
    say(JSON.stringify(tools.definitions, null, 2));
  } else {
    const anthropic = new Anthropic({ apiKey });
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: QUESTION },
    ];
    for (let turn = 0; turn < 8; turn++) {
      const response = await anthropic.messages.create({
        model: "claude-sonnet-5",
        max_tokens: 2048,
        messages,
        tools: tools.definitions,
      });
      messages.push({ role: "assistant", content: response.content });
      const calls = response.content.filter((block) =>
        block.type === "tool_use"
      );
      if (calls.length === 0) {
        for (const block of response.content) {
          if (block.type === "text") say(block.text);
        }
        break;
      }
      // One user message with a tool_result per tool_use (is_error on failure).
      messages.push(await tools.dispatchAll(calls));
    }
  }
} finally {
  await hub.close();
}

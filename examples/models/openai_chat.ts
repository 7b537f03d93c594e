/**
 * The notes server's tools handed to OpenAI Chat Completions. Without
 * `OPENAI_API_KEY` it prints the tool definitions and stops.
 *
 * Run it: `deno run -A examples/models/openai_chat.ts`.
 *
 * @module
 */

import OpenAI from "openai";
import process from "node:process";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { askUser, QUESTION, say, startNotes } from "./_notes.ts";

const hub = await startNotes();
try {
  const tools = modelTools(hub.registry, "openai-chat", {
    capabilityHint: true, // "(read-only)" / "(writes)" in each description
    approve: askUser, // asked before every tool whose capability says it writes
  });
  const apiKey = process.env.OPENAI_API_KEY; // the key goes here
  if (!apiKey) {
    say(JSON.stringify(tools.definitions, null, 2));
  } else {
    const openai = new OpenAI({ apiKey });
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "user", content: QUESTION },
    ];
    for (let turn = 0; turn < 8; turn++) {
      const response = await openai.chat.completions.create({
        model: "gpt-5-mini",
        messages,
        tools: tools.definitions,
      });
      const message = response.choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls?.length) {
        say(message.content ?? "");
        break;
      }
      // Tool messages (and a user message carrying any images), in order.
      messages.push(...await tools.dispatchAll(message.tool_calls));
    }
  }
} finally {
  await hub.close();
}

/**
 * The notes server's tools handed to the Vercel AI SDK, which runs the
 * tools itself. Without `OPENAI_API_KEY` it prints the tool names and stops.
 *
 * Run it: `deno run -A examples/models/ai_sdk.ts` (with `@ai-sdk/openai`
 * added for the model: `deno add npm:@ai-sdk/openai`).
 *
 * @module
 */

import { generateText, type LanguageModel, stepCountIs } from "ai";
import process from "node:process";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { askUser, QUESTION, say, startNotes } from "./_notes.ts";

const hub = await startNotes();
try {
  // Each tool has description, inputSchema (usable as is; or wrap
  // `jsonSchema(tool.inputSchema.jsonSchema)`), execute and toModelOutput.
  const tools = modelTools(hub.registry, "ai-sdk", { approve: askUser });
  if (!process.env.OPENAI_API_KEY) { // the key goes here, read by the provider
    say(Object.keys(tools.definitions).join("\n"));
  } else {
    // The AI Gateway model id form; or a provider's model, e.g. openai("gpt-5-mini").
    const model: LanguageModel = "openai/gpt-5-mini";
    const { text } = await generateText({
      model,
      tools: tools.definitions,
      prompt: QUESTION,
      stopWhen: stepCountIs(8),
    });
    say(text);
  }
} finally {
  await hub.close();
}

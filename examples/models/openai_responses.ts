/**
 * The notes server's tools handed to the OpenAI Responses API. Without
 * `OPENAI_API_KEY` it prints the tool definitions and stops.
 *
 * Run it: `deno run -A examples/models/openai_responses.ts`.
 *
 * @module
 */

import OpenAI from "openai";
import process from "node:process";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { askUser, QUESTION, say, startNotes } from "./_notes.ts";

const hub = await startNotes();
try {
  const tools = modelTools(hub.registry, "openai-responses", {
    approve: askUser,
  });
  const apiKey = process.env.OPENAI_API_KEY; // the key goes here
  if (!apiKey) {
    say(JSON.stringify(tools.definitions, null, 2));
  } else {
    const openai = new OpenAI({ apiKey });
    let response = await openai.responses.create({
      model: "gpt-5-mini",
      input: QUESTION,
      tools: tools.definitions,
    });
    for (let turn = 0; turn < 8; turn++) {
      const calls = response.output.filter((item) =>
        item.type === "function_call"
      );
      if (calls.length === 0) break;
      // One function_call_output per call; the server keeps the rest.
      response = await openai.responses.create({
        model: "gpt-5-mini",
        previous_response_id: response.id,
        input: await tools.dispatchAll(calls),
        tools: tools.definitions,
      });
    }
    say(response.output_text);
  }
} finally {
  await hub.close();
}

/**
 * The notes server's tools handed to Gemini with `@google/genai`. Without
 * `GEMINI_API_KEY` it prints the tool definitions and stops.
 *
 * Run it: `deno run -A examples/models/gemini.ts`.
 *
 * @module
 */

import { type Content, GoogleGenAI } from "@google/genai";
import process from "node:process";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { askUser, QUESTION, say, startNotes } from "./_notes.ts";

const hub = await startNotes();
try {
  // "gemini" sends parametersJsonSchema; "gemini-openapi" the older
  // OpenAPI-subset `parameters`.
  const tools = modelTools(hub.registry, "gemini", { approve: askUser });
  const apiKey = process.env.GEMINI_API_KEY; // the key goes here
  if (!apiKey) {
    say(JSON.stringify(tools.definitions, null, 2));
  } else {
    const ai = new GoogleGenAI({ apiKey });
    const contents: Content[] = [{ role: "user", parts: [{ text: QUESTION }] }];
    for (let turn = 0; turn < 8; turn++) {
      const response = await ai.models.generateContent({
        model: "gemini-2.5-flash",
        contents,
        config: { tools: tools.definitions },
      });
      const calls = response.functionCalls ?? [];
      if (calls.length === 0) {
        say(response.text ?? "");
        break;
      }
      contents.push(response.candidates![0]!.content!);
      contents.push(await tools.dispatchAll(calls));
    }
  }
} finally {
  await hub.close();
}

/**
 * A host that pins its servers' tools: the tools the user accepted are kept
 * in `tool-pins.json`; a tool that changes later (a "rug pull": a new
 * description, a new argument) or appears is held back — not registered,
 * so no model is offered it — until the user accepts the change. The file
 * is the one `mcp-adapter check --pin tool-pins.json` reads. Run from
 * the repository root: `deno run -A examples/pinning.ts`.
 *
 * @module
 */

import { readFile, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import process from "node:process";
import { MCPToolHub } from "@cleveragents/mcp-adapter";
import { loadConfig } from "@cleveragents/mcp-adapter/config";
import type { PinnedTools, ToolDrift } from "@cleveragents/mcp-adapter/drift";
import { modelTools } from "@cleveragents/mcp-adapter/models";

const PINS = "tool-pins.json";
/** The pins by server name, as `mcp-adapter check --pin` keeps them. */
type PinFile = { version: 1; servers: Record<string, PinnedTools> };

async function readPins(): Promise<PinFile | undefined> {
  try {
    return JSON.parse(await readFile(PINS, "utf8"));
  } catch {
    return undefined; // first run
  }
}

async function ask(question: string): Promise<boolean> {
  const terminal = createInterface({
    input: process.stdin,
    output: process.stdout,
  });
  try {
    return /^y/i.test(await terminal.question(`${question} [y/N] `));
  } finally {
    terminal.close();
  }
}

function say(text: string): void {
  // deno-lint-ignore no-console -- an example prints
  console.log(text);
}

/** The drift as the user reads it: server text is shown, never trusted. */
function describe(drift: ToolDrift): string {
  return [
    ...drift.changed.map((change) =>
      `changed ${change.name}:\n  ${change.details.join("\n  ")}`
    ),
    ...drift.added.map((tool) =>
      `added ${tool.name}: ${tool.tool?.description}`
    ),
    ...drift.removed.map((tool) => `removed ${tool.name}`),
  ].join("\n");
}

const file: PinFile = (await readPins()) ?? { version: 1, servers: {} };
const { servers } = await loadConfig("examples/mcp.yaml");

/** Shows a server's drift, and pins what the user accepts; one at a time. */
let reviews = Promise.resolve();
function review(drift: ToolDrift, server: string): void {
  reviews = reviews.then(async () => {
    say(
      `MCP server ${server} has tools you have not accepted:\n${
        describe(drift)
      }`,
    );
    if (!await ask(`Accept them?`)) return;
    // Exactly what was shown: a tool that changed again stays held.
    file.servers[server] = await hub.acceptToolChanges(server, drift);
    await writeFile(PINS, JSON.stringify(file, null, 2));
  });
}

const hub = new MCPToolHub(servers, {
  // A server without pins (the first run) has every tool held until accepted.
  pins: file.servers,
  // Called on startup when the tools differ from the pins, and whenever a
  // server's tools change while we run.
  onToolDrift: review,
});
try {
  await hub.start();
  await reviews;
  // Only accepted tools are registered, so only they reach the model.
  const tools = modelTools(hub.registry, "openai-chat");
  say(
    `offered to the model: ${
      tools.definitions.map((tool) => tool.function.name).join(", ")
    }`,
  );
} finally {
  await hub.close();
}

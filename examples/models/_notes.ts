/**
 * What the model examples share: the example notes server started from
 * `examples/mcp.yaml` (run them from the repository root), and a yes/no
 * question on the terminal for the approval hook.
 *
 * @module
 */

import { createInterface } from "node:readline/promises";
import process from "node:process";
import { MCPToolHub } from "@cleveragents/mcp-adapter";
import { loadConfig } from "@cleveragents/mcp-adapter/config";
import type { ApprovalRequest } from "@cleveragents/mcp-adapter/models";

/** The question every example asks the model. */
export const QUESTION =
  "Which of my notes mention milk? Then add a note titled 'Shopping' listing what to buy.";

/** Starts the notes server of `examples/mcp.yaml`; its tools are in `hub.registry`. */
export async function startNotes(): Promise<MCPToolHub> {
  const hub = new MCPToolHub((await loadConfig("examples/mcp.yaml")).servers);
  for (const server of await hub.start()) {
    if (server.state !== "connected") {
      await hub.close();
      throw new Error(`${server.name}: ${server.error}`);
    }
  }
  return hub;
}

/** The approval hook: asks on the terminal before a writing tool runs. */
export async function askUser(
  { name, args }: ApprovalRequest,
): Promise<boolean> {
  const terminal = createInterface({
    input: process.stdin,
    output: process.stdout,
  });
  try {
    const answer = await terminal.question(
      `The model wants to run ${name} ${JSON.stringify(args)}. Allow? [y/N] `,
    );
    return answer.trim().toLowerCase().startsWith("y");
  } finally {
    terminal.close();
  }
}

/** Prints a line (the examples' only output). */
export function say(text: string): void {
  // deno-lint-ignore no-console -- an example prints
  console.log(text);
}

// deno-lint-ignore-file no-console
/**
 * A host loop with MCP Apps: the PDF server's tools go to the model (its
 * app-only tools do not), every tool not known to be read-only asks first,
 * the server's instructions join the system prompt, and a call to a tool
 * with a UI renders the tool's app. Rendering is stubbed: a real host puts
 * `app.html` in a sandboxed iframe with the CSP built from `app.csp` and
 * connects it with the extension's bridge (`@modelcontextprotocol/ext-apps`).
 *
 * Run: `deno run -A examples/apps_host.ts` (starts
 * `@modelcontextprotocol/server-pdf` over stdio; no model is called: the
 * model's turn is a fixed tool call).
 *
 * @module
 */

import {
  MCPToolAdapter,
  type MCPUiResource,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import { modelTools } from "@cleveragents/mcp-adapter/models";

const adapter = new MCPToolAdapter({
  name: "pdf",
  transport: "stdio",
  command: Deno.execPath(),
  args: ["run", "-A", "npm:@modelcontextprotocol/server-pdf@2.0.4", "--stdio"],
}, { apps: true });
await adapter.connect();
const registry = new ToolRegistry();
await adapter.registerTools(registry);

const tools = modelTools(registry, "anthropic", {
  // Ask about every tool not known to be read-only (the default policy).
  approve: ({ name }) => {
    console.log(`approve ${name}? (this example says no)`);
    return false;
  },
  instructions: { pdf: adapter.instructions },
});
const system = ["You read papers for the user.", tools.instructions]
  .filter(Boolean).join("\n\n");
console.log(
  system,
  tools.definitions.map((tool) => tool.name), // no save_pdf, no read_pdf_bytes
);

// The model's turn: one tool call (a real loop sends `system` and
// `tools.definitions` to the model and gets these back).
const call = {
  type: "tool_use" as const,
  id: "toolu_1",
  name: "pdf__list_pdfs",
  input: {},
};
const reply = await tools.dispatch(call);
console.log(reply.content);

// A tool with a UI: the host renders its app next to the result.
const tool = registry.resolve(call.name);
const uri = tool?.ui?.resourceUri ??
  registry.get("pdf/display_pdf")?.ui?.resourceUri;
if (uri !== undefined) render(await adapter.readUiResource(uri));
await adapter.disconnect();

function render(app: MCPUiResource): void {
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${
      app.csp?.resourceDomains?.join(" ") ?? ""
    }`,
    `connect-src ${app.csp?.connectDomains?.join(" ") || "'none'"}`,
  ].join("; ");
  console.log(`render ${app.uri}: ${app.html.length} characters, CSP "${csp}"`);
}

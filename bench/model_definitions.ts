/**
 * What each model API is sent for a catalog of real tools: per provider,
 * the size of the tool definitions (characters of their JSON), how many
 * are OpenAI-strict, how many tools had unreferenced `$defs` removed, how
 * many values Gemini's OpenAPI form declares as JSON text, and how many
 * definitions break that provider's documented rules (the checks of
 * `tests/models/_rules.ts`; it must print 0).
 *
 * The catalog is the toolsearch benchmark's: 1,577 tools of 58 MCP
 * servers, committed gzipped as `tests/models/fixtures/catalog.json.gz`.
 *
 * ```sh
 * deno run -A bench/model_definitions.ts                  # the whole catalog
 * deno run -A bench/model_definitions.ts --server=notion  # one server's tools
 * deno run -A bench/model_definitions.ts --catalog=path/to/catalog.json
 * deno run -A bench/model_definitions.ts --from=../other-checkout  # another copy of the library
 * ```
 *
 * `--from` measures another checkout of this repository (its `mod.ts` and
 * `models.ts`), e.g. the commit before a change, side by side.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import type { MCPToolDescriptor, RegisteredTool } from "../mod.ts";
import type { ModelProvider, SchemaReport } from "../models.ts";
import { checkRules, PROVIDERS, sentSchemas } from "../tests/models/_rules.ts";

type Json = Record<string, unknown>;
type CatalogTool = MCPToolDescriptor & { server: string };

const option = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(
    name.length + 3,
  );

const root = option("from") === undefined
  ? new URL("../", import.meta.url)
  : pathToFileURL(`${resolve(option("from")!)}/`);
const { resolveCapability } = await import(
  new URL("mod.ts", root).href
) as typeof import("../mod.ts");
const { modelTools } = await import(
  new URL("models.ts", root).href
) as typeof import("../models.ts");

const catalogPath = option("catalog");
const text = catalogPath === undefined
  ? gunzipSync(
    readFileSync(
      new URL("../tests/models/fixtures/catalog.json.gz", import.meta.url),
    ),
  ).toString("utf8")
  : readFileSync(catalogPath, "utf8");
const server = option("server");
const catalog = (JSON.parse(text) as { tools: CatalogTool[] }).tools.filter(
  (tool) => server === undefined || tool.server === server,
);
if (catalog.length === 0) {
  throw new Error(
    `No tools of server ${JSON.stringify(server)} in the catalog`,
  );
}

const tools: RegisteredTool[] = catalog.map((tool) => ({
  name: `${tool.server}/${tool.name}`,
  description: tool.description ?? "",
  inputSchema: tool.inputSchema,
  capability: resolveCapability(tool.name, {}),
  checkpointable: false,
  source: "mcp",
  sourceMetadata: { server: tool.server },
  invoke: () =>
    Promise.resolve({ success: true, data: {}, error: null, durationMs: 0 }),
}));

/** Each tool's definition JSON, as the provider gets it. */
function definitionsOf(
  provider: ModelProvider,
  definitions: unknown,
): unknown[] {
  const json = JSON.parse(JSON.stringify(definitions));
  if (provider === "gemini" || provider === "gemini-openapi") {
    return json[0].functionDeclarations;
  }
  if (provider !== "ai-sdk") return json;
  // What reaches the model of each AI SDK tool.
  return Object.values(json as Record<string, Json>).map((tool) => ({
    description: tool.description,
    inputSchema: (tool.inputSchema as Json).jsonSchema,
  }));
}

// deno-lint-ignore no-console
const say = (line = "") => console.log(line);
// deno-lint-ignore no-console
const warn = (line: string) => console.error(line);

const count = (report: readonly SchemaReport[], pattern: RegExp) =>
  report.filter((entry) => entry.notes.some((note) => pattern.test(note)))
    .length;

const rows: string[] = [];
for (const provider of PROVIDERS) {
  // Flat: the catalog's every definition is what is measured.
  const built = modelTools(tools, provider, { toolSearch: "never" });
  let characters = 0;
  const broken: string[] = [];
  for (const json of definitionsOf(provider, built.definitions)) {
    characters += JSON.stringify(json).length;
  }
  for (
    const [index, schema] of sentSchemas(provider, built.definitions).entries()
  ) {
    if (schema === undefined) continue; // gemini-openapi: no parameters
    try {
      checkRules(provider, schema, built.report[index]?.strict);
    } catch (error) {
      broken.push(`${built.report[index]?.name}: ${(error as Error).message}`);
    }
  }
  const strict = provider.startsWith("openai")
    ? String(built.report.filter((entry) => entry.strict).length)
    : "–";
  rows.push(
    `| ${provider} | ${built.report.length} | ${
      characters.toLocaleString("en-US")
    } | ${strict} | ${count(built.report, /^removed \d+ unreferenced/)} | ${
      provider === "gemini-openapi"
        ? count(built.report, /^declared as JSON text/)
        : "–"
    } | ${broken.length} |`,
  );
  for (const line of broken.slice(0, 5)) warn(`${provider}: ${line}`);
}

say(
  `${catalog.length} tools${server === undefined ? "" : ` of ${server}`}${
    option("from") === undefined ? "" : `, library at ${option("from")}`
  }\n`,
);
say(
  "| provider | tools | definitions (characters) | strict | tools with $defs removed | tools with JSON-text values | rule violations |",
);
say("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const row of rows) say(row);

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { SDK_RANGE, sdkSpecifier } from "../../src/auth/_flow.ts";

describe("where the OAuth flow loads the MCP SDK from", () => {
  it("an npm: specifier of the range deno.json maps on Deno, the package elsewhere", () => {
    if ("Deno" in globalThis) {
      assert.equal(
        sdkSpecifier(),
        `npm:@modelcontextprotocol/sdk@${SDK_RANGE}/client/auth.js`,
      );
      const config = JSON.parse(
        readFileSync(
          fileURLToPath(new URL("../../deno.json", import.meta.url)),
          "utf8",
        ),
      );
      assert.equal(
        config.imports["@modelcontextprotocol/sdk/"],
        `npm:/@modelcontextprotocol/sdk@${SDK_RANGE}/`,
        "flow.ts's SDK_RANGE follows deno.json",
      );
    } else {
      assert.equal(sdkSpecifier(), "@modelcontextprotocol/sdk/client/auth.js");
    }
  });
});

/** A program whose server asks for OAuth, run where the SDK is not installed. */
const PROGRAM = `import { createServer } from "node:http";
import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
const server = createServer((_req, res) => {
  res.writeHead(401, { "www-authenticate": 'Bearer realm="mcp"' }).end();
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
const { port } = server.address();
const adapter = new MCPToolAdapter(
  { name: "s", transport: "streamable-http", url: "http://127.0.0.1:" + port + "/mcp" },
  { authProvider: { tokens: () => undefined } },
);
try {
  await adapter.connect({ timeoutMs: 20000 });
  console.log("connected");
} catch (error) {
  console.log(error.constructor.name + ": " + error.message);
}
await adapter.disconnect();
server.close();
`;

describe("OAuth without the MCP SDK installed", () => {
  it(
    "connect() says which package to install, not that the server cannot be reached",
    {
      timeout: 120_000,
    },
    async () => {
      if (!("Deno" in globalThis)) {
        // On Node the test project has the SDK installed; the Deno run of this
        // file (a fresh DENO_DIR, --cached-only) is where it is missing.
        return;
      }
      const root = fileURLToPath(new URL("../../", import.meta.url));
      const config = JSON.parse(
        await readFile(join(root, "deno.json"), "utf8"),
      );
      const imports: Record<string, string> = {
        "@cleveragents/mcp-adapter": join(root, "mod.ts"),
      };
      for (
        const name of [
          "@cfworker/json-schema",
          "eventsource-parser",
          "redos-detector",
        ]
      ) {
        imports[name] = config.imports[name];
      }
      const dir = await mkdtemp(join(tmpdir(), "mcp-adapter-nosdk-"));
      try {
        await writeFile(join(dir, "main.ts"), PROGRAM);
        await writeFile(join(dir, "deno.json"), JSON.stringify({ imports }));
        const env = {
          ...process.env,
          DENO_DIR: join(dir, "deno-dir"),
          NO_COLOR: "1",
        };
        const run = promisify(execFile);
        // What the program needs, and nothing optional, in a fresh cache...
        await run(process.execPath, ["cache", "main.ts"], { cwd: dir, env });
        // ...then run where fetching more is impossible.
        const { stdout } = await run(
          process.execPath,
          ["run", "-A", "--cached-only", "main.ts"],
          { cwd: dir, env, timeout: 60_000 },
        );
        assert.match(
          stdout,
          /^MCPConfigError: OAuth needs the MCP SDK, which is not installed/,
        );
        assert.match(stdout, /npm install @modelcontextprotocol\/sdk/);
        assert.match(
          stdout,
          /npx -p @cleveragents\/mcp-adapter -p @modelcontextprotocol\/sdk/,
        );
        assert.doesNotMatch(stdout, /Cannot reach/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

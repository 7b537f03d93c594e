import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  CONFIG_SCHEMA,
  loadConfig,
  type LoadedConfig,
  parseConfig,
} from "@cleveragents/mcp-adapter/config";
import { fixturePath } from "../_helpers.ts";
import { check, loadError, parseError, STDIO, yaml } from "./_config_errors.ts";

describe("loadConfig()", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-config-test-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("takes the format from .yaml, .yml and .json", async () => {
    assert.equal(
      (await loadConfig(fixturePath("configs/config.yml"))).servers[0]
        ?.namespace,
      "short",
    );
    // YAML text in a .json file is a JSON error, not silently YAML.
    const misnamed = join(dir, "yaml.json");
    await writeFile(misnamed, "servers: []\n");
    await loadError(misnamed, { message: /yaml\.json:1:1: expected a value/ });
  });

  it("tries JSON, then YAML, for other names", async () => {
    for (const name of ["json_without_extension", "config_without_extension"]) {
      const config = await loadConfig(fixturePath(`configs/${name}`));
      assert.deepEqual(config.servers[0]?.config, {
        name: "plain",
        transport: "stdio",
        command: "plain-server",
      });
    }
  });

  it("takes text with a format, named <inline> unless a source is given", async () => {
    const inline = await loadConfig({ text: "servers: []", format: "yaml" });
    assert.equal(inline.source, "<inline>");
    const named = await loadConfig({
      text: "{}",
      format: "json",
      source: "team.json",
    }).catch((error) => error);
    check(named, {
      message:
        'team.json:1:1: expected a "servers" list; write e.g. servers: [{ name: "files", transport: "stdio", command: "mcp-files" }]',
      file: "team.json",
    });
  });

  it("reports a missing file and a directory", async () => {
    const missing = join(dir, "nope.yaml");
    await loadError(missing, {
      message:
        `${missing}: cannot read the file: it does not exist; check the path`,
      file: missing,
      path: "",
    });
    await loadError(dir, {
      message:
        `${dir}: cannot read the file: it is a directory; name a file inside it`,
    });
  });

  it("refuses an unknown format", () => {
    assert.throws(
      () => parseConfig("{}", "toml" as "json", { source: "x.toml" }),
      (error) =>
        check(error, {
          message: 'x.toml: unknown format "toml"; pass "yaml" or "json"',
        }) !== undefined,
    );
  });
});

/** The same servers in each format, every interpolated field using a variable. */
const FORMATS: Record<string, {
  format: "yaml" | "json";
  text: string;
  paths: Record<string, string>;
}> = {
  ours: {
    format: "yaml",
    text: yaml([
      "servers:",
      "  - name: local",
      "    transport: stdio",
      "    command: ${C}/bin/server",
      '    args: ["--flag", "${A}"]',
      '    env: { KEY: "${E}" }',
      "  - name: remote",
      "    transport: streamable-http",
      "    url: https://${U}/mcp",
      '    headers: { Authorization: "Bearer ${H}" }',
    ]),
    paths: {
      C: "servers[0].command",
      A: "servers[0].args[1]",
      E: "servers[0].env.KEY",
      U: "servers[1].url",
      H: "servers[1].headers.Authorization",
    },
  },
  mcpServers: {
    format: "json",
    text: JSON.stringify(
      {
        mcpServers: {
          local: {
            command: "${C}/bin/server",
            args: ["--flag", "${A}"],
            env: { KEY: "${E}" },
          },
          remote: {
            url: "https://${U}/mcp",
            headers: { Authorization: "Bearer ${H}" },
          },
        },
      },
      null,
      2,
    ),
    paths: {
      C: "mcpServers.local.command",
      A: "mcpServers.local.args[1]",
      E: "mcpServers.local.env.KEY",
      U: "mcpServers.remote.url",
      H: "mcpServers.remote.headers.Authorization",
    },
  },
  vscode: {
    format: "json",
    text: JSON.stringify(
      {
        servers: {
          local: {
            type: "stdio",
            command: "${C}/bin/server",
            args: ["--flag", "${A}"],
            env: { KEY: "${E}" },
          },
          remote: {
            type: "http",
            url: "https://${U}/mcp",
            headers: { Authorization: "Bearer ${H}" },
          },
        },
      },
      null,
      2,
    ),
    paths: {
      C: "servers.local.command",
      A: "servers.local.args[1]",
      E: "servers.local.env.KEY",
      U: "servers.remote.url",
      H: "servers.remote.headers.Authorization",
    },
  },
};

const VALUES = {
  C: "/opt/c",
  A: "SECRET-a",
  E: "SECRET-e",
  U: "host.example",
  H: "SECRET-h",
};

describe("${VAR} interpolation", () => {
  for (const [label, { format, text, paths }] of Object.entries(FORMATS)) {
    it(`replaces variables in command, args, env, url and headers (${label})`, () => {
      const { servers } = parseConfig(text, format, { env: VALUES });
      assert.deepEqual(servers.map((server) => server.config), [
        {
          name: "local",
          transport: "stdio",
          command: "/opt/c/bin/server",
          args: ["--flag", "SECRET-a"],
          env: { KEY: "SECRET-e" },
        },
        {
          name: "remote",
          transport: "streamable-http",
          url: "https://host.example/mcp",
          headers: { Authorization: "Bearer SECRET-h" },
        },
      ]);
    });

    for (const [name, path] of Object.entries(paths)) {
      it(`names ${name} and ${path} when it is unset (${label}), never a value`, () => {
        const env: Record<string, string> = { ...VALUES };
        delete env[name];
        const error = parseError(text, {
          path,
          message: new RegExp(
            `^mcp\\.(yaml|json):\\d+:\\d+: ${
              path.replace(/[.[\]]/g, "\\$&")
            } uses \\$\\{${name}\\}, which is not set; export it or write \\$\\{${name}:-default\\}$`,
          ),
        }, { format, env });
        assert.equal(typeof error.line, "number");
        assert.doesNotMatch(error.message, /SECRET/);
      });
    }
  }

  function interpolated(value: string, env: Record<string, string>): string {
    const { servers } = parseConfig(
      JSON.stringify({ mcpServers: { s: { command: "x", args: [value] } } }),
      "json",
      { env },
    );
    return servers[0]?.config.args?.[0] ?? "";
  }

  it("uses ${VAR:-default} when the variable is unset or empty, else the variable", () => {
    assert.equal(interpolated("${V:-fallback}", {}), "fallback");
    assert.equal(interpolated("${V:-fallback}", { V: "" }), "fallback");
    assert.equal(interpolated("${V:-fallback}", { V: "set" }), "set");
    assert.equal(interpolated("${V:-}", {}), "");
    assert.equal(interpolated("${V:-a:b/c d}", {}), "a:b/c d");
    assert.equal(interpolated("${V}", { V: "" }), "");
  });

  it("reads ${env:VAR} (VS Code's spelling), several references, $${ and lone $ literally", () => {
    assert.equal(interpolated("${env:V}", { V: "v" }), "v");
    assert.equal(interpolated("${A}-${B}", { A: "1", B: "2" }), "1-2");
    assert.equal(interpolated("$${HOME} and $HOME", {}), "${HOME} and $HOME");
    assert.equal(interpolated("cost: $5", {}), "cost: $5");
  });

  it("interpolates cwd too (names and patterns that use ${} are reported: hardening_test.ts)", () => {
    const { servers } = parseConfig(
      yaml([
        ...STDIO,
        "    command: srv",
        "    cwd: ${DIR:-/srv}",
        "    namespace: ns",
      ]),
      "yaml",
      { env: {} },
    );
    assert.equal(servers[0]?.config.cwd, "/srv");
  });

  it("ignores inherited keys of the env object", () => {
    assert.throws(
      () => interpolated("${constructor}", {}),
      /uses \$\{constructor\}, which is not set/,
    );
  });

  it("reads the process environment when no env is given", () => {
    process.env.MCP_ADAPTER_TEST_HOST = "from-process.example";
    try {
      const { servers } = parseConfig(
        '{"mcpServers": {"s": {"url": "https://${MCP_ADAPTER_TEST_HOST}/mcp"}}}',
        "json",
      );
      assert.equal(servers[0]?.config.url, "https://from-process.example/mcp");
    } finally {
      delete process.env.MCP_ADAPTER_TEST_HOST;
    }
  });

  it("refuses references it cannot read, and an unclosed ${", () => {
    parseError(yaml([...STDIO, "    command: ${command:pick}"]), {
      message:
        'mcp.yaml:4:5: servers[0].command uses ${command:pick}, which is not a variable reference this loader understands; write ${NAME} or ${NAME:-default} (NAME made of letters, digits and _), ${workspaceFolder}, ${userHome} or ${input:ID}, or "$${" for a literal "${"',
    });
    parseError(yaml([...STDIO, "    command: x", '    args: ["${OPEN"]']), {
      message:
        'mcp.yaml:5:12: servers[0].args[0]: has a "${" without a closing "}"; close it, or write "$${" for a literal "${"',
    });
  });

  it("checks the interpolated URL and says what to write, without showing it", () => {
    const error = parseError(
      yaml([
        "servers:",
        "  - name: api",
        "    transport: sse",
        '    url: "${API_URL}"',
      ]),
      {
        message:
          'mcp.yaml:4:5: servers[0].url: expected an http(s) URL; write e.g. "https://example.com/mcp"',
        path: "servers[0].url",
      },
      { env: { API_URL: "SECRET token not a url" } },
    );
    assert.doesNotMatch(error.message, /SECRET/);
  });
});

describe("CONFIG_SCHEMA", () => {
  it("is what schema/mcp-config.schema.json holds (run `deno task schema` after a change)", () => {
    const file = fileURLToPath(
      new URL("../../schema/mcp-config.schema.json", import.meta.url),
    );
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), CONFIG_SCHEMA);
  });

  it("is a draft-07 schema with the three formats", () => {
    assert.equal(
      CONFIG_SCHEMA.$schema,
      "http://json-schema.org/draft-07/schema#",
    );
    const definitions = CONFIG_SCHEMA.definitions as Record<string, unknown>;
    for (const name of ["server", "namedServers", "namedServer", "override"]) {
      assert.ok(name in definitions, name);
    }
  });
});

describe("examples/mcp.yaml", () => {
  it("configures the example notes server", async () => {
    const file = fileURLToPath(
      new URL("../../examples/mcp.yaml", import.meta.url),
    );
    const config: LoadedConfig = await loadConfig(file, { env: {} });
    assert.deepEqual(config.servers.map((server) => server.config), [{
      name: "notes",
      transport: "stdio",
      command: "deno",
      args: [
        "run",
        "--no-prompt",
        "--unstable-npm-lazy-caching",
        "examples/notes_server.ts",
      ],
    }]);
    assert.equal(config.servers[0]?.namespace, "notes");
    assert.ok(config.servers[0]?.filter);
    assert.ok(config.servers[0]?.overrides);
  });
});

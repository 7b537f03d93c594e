import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPConnectionError, MCPToolAdapter } from "@cleveragents/mcp-adapter";
import {
  type ConfigInput,
  loadConfig,
  MCPConfigFileError,
  parseConfig,
} from "@cleveragents/mcp-adapter/config";

async function rejection(
  promise: Promise<unknown>,
): Promise<MCPConfigFileError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof MCPConfigFileError, String(error));
    return error;
  }
  assert.fail("expected an MCPConfigFileError");
}

function thrown(run: () => unknown): MCPConfigFileError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof MCPConfigFileError, String(error));
    return error;
  }
  assert.fail("expected an MCPConfigFileError");
}

/** A VS Code file whose servers use two inputs, one of them a password. */
const WITH_INPUTS = JSON.stringify({
  inputs: [
    {
      id: "token",
      type: "promptString",
      description: "API token",
      password: true,
    },
    {
      id: "region",
      type: "pickString",
      description: "Region",
      options: ["eu", "us"],
      default: "eu",
    },
    { id: "unused", type: "promptString", description: "Never used" },
  ],
  servers: {
    api: {
      type: "http",
      url: "https://${input:region}.example.com/mcp",
      headers: { Authorization: "Bearer ${input:token}" },
    },
    local: { command: "srv", args: ["--token", "${input:token}"] },
  },
});

describe("VS Code variables: ${workspaceFolder}, ${userHome}, ${env:VAR}", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-config-variables-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const USES_FOLDER = JSON.stringify({
    servers: {
      local: {
        command: "${workspaceFolder}/bin/srv",
        args: ["--home", "${userHome}", "--user", "${env:USER_NAME}"],
      },
    },
  });

  it("reads ${workspaceFolder} as the config file's folder", async () => {
    const file = join(dir, "mcp.json");
    await writeFile(file, USES_FOLDER);
    const { servers } = await loadConfig(file, {
      env: { HOME: "/home/ada", USER_NAME: "ada" },
    });
    assert.deepEqual(servers[0]?.config.command, `${dir}/bin/srv`);
    assert.deepEqual(servers[0]?.config.args, [
      "--home",
      "/home/ada",
      "--user",
      "ada",
    ]);
  });

  it("reads ${workspaceFolder} of .vscode/mcp.json and .cursor/mcp.json as the project above them", async () => {
    for (const editor of [".vscode", ".cursor"]) {
      await mkdir(join(dir, editor), { recursive: true });
      const file = join(dir, editor, "mcp.json");
      await writeFile(file, USES_FOLDER);
      const { servers } = await loadConfig(file, {
        env: { HOME: "/h", USER_NAME: "u" },
      });
      assert.equal(servers[0]?.config.command, `${dir}/bin/srv`, editor);
    }
  });

  it("takes the workspaceFolder and userHome options over the defaults", async () => {
    const { servers } = await loadConfig(
      { text: USES_FOLDER, format: "json" },
      {
        workspaceFolder: "/projects/x",
        userHome: "/users/ada",
        env: { USER_NAME: "ada" },
      },
    );
    assert.equal(servers[0]?.config.command, "/projects/x/bin/srv");
    assert.equal(servers[0]?.config.args?.[1], "/users/ada");
    assert.equal(
      parseConfig(USES_FOLDER, "json", {
        workspaceFolder: "/p",
        env: { USERPROFILE: "C:\\Users\\ada", USER_NAME: "ada" },
      }).servers[0]?.config.args?.[1],
      "C:\\Users\\ada",
    );
  });

  it("names the option text needs for ${workspaceFolder}, and HOME for ${userHome}", () => {
    const error = thrown(() =>
      parseConfig(USES_FOLDER, "json", { env: { USER_NAME: "ada" } })
    );
    assert.deepEqual(error.problems.map((problem) => problem.message), [
      "<inline>:1:22: servers.local.command uses ${workspaceFolder}, but the config was given as text, which has no folder; pass the workspaceFolder option",
      "<inline>:1:78: servers.local.args[1] uses ${userHome}, but neither HOME nor USERPROFILE is set; set one, or pass the userHome option",
    ]);
  });

  it("keeps an environment variable named workspaceFolder reachable as ${env:workspaceFolder}", () => {
    const { servers } = parseConfig(
      '{ "servers": { "s": { "command": "${env:workspaceFolder}" } } }',
      "json",
      { env: { workspaceFolder: "from-env" } },
    );
    assert.equal(servers[0]?.config.command, "from-env");
  });
});

describe("inputs and ${input:id}", () => {
  it("takes values from a record, and a declared default when the record has none", () => {
    const { servers } = parseConfig(WITH_INPUTS, "json", {
      inputs: { token: "t0ken" },
    });
    assert.equal(servers[0]?.config.url, "https://eu.example.com/mcp");
    assert.deepEqual(servers[0]?.config.headers, {
      Authorization: "Bearer t0ken",
    });
    assert.deepEqual(servers[1]?.config.args, ["--token", "t0ken"]);
  });

  it("asks a function once per used input, in file order, one at a time", async () => {
    const asked: ConfigInput[] = [];
    let pending = 0;
    const { servers } = await loadConfig(
      { text: WITH_INPUTS, format: "json" },
      {
        inputs: async (input) => {
          assert.equal(pending++, 0, "asked while another question was open");
          asked.push(input);
          await new Promise((resolve) => setTimeout(resolve, 5));
          pending--;
          return input.id === "token" ? "typed-token" : "us";
        },
      },
    );
    assert.deepEqual(asked, [
      {
        id: "region",
        type: "pickString",
        description: "Region",
        password: false,
        default: "eu",
        options: ["eu", "us"],
      },
      {
        id: "token",
        type: "promptString",
        description: "API token",
        password: true,
      },
    ]);
    assert.equal(servers[0]?.config.url, "https://us.example.com/mcp");
    assert.deepEqual(servers[1]?.config.args, ["--token", "typed-token"]);
  });

  it("names an input that is not declared, and one that has no value", async () => {
    const text = JSON.stringify({
      inputs: [{ id: "key", type: "promptString", description: "Key" }],
      servers: {
        a: { command: "${input:key}" },
        b: { command: "${input:typo}" },
      },
    });
    const error = thrown(() => parseConfig(text, "json"));
    assert.deepEqual(error.problems.map((problem) => problem.path), [
      "servers.a.command",
      "servers.b.command",
    ]);
    assert.match(
      error.problems[0]!.message,
      /servers\.a\.command uses \$\{input:key\}, which has no value; pass the inputs option/,
    );
    assert.match(
      error.problems[1]!.message,
      /servers\.b\.command uses \$\{input:typo\}, but the file's "inputs" list declares no input "typo"/,
    );
    // A function is not asked for an undeclared input.
    const asked: string[] = [];
    const viaFunction = await rejection(
      loadConfig({ text, format: "json" }, {
        inputs: ({ id }) => {
          asked.push(id);
          return "v";
        },
      }),
    );
    assert.deepEqual(asked, ["key"]);
    assert.deepEqual(viaFunction.problems.map((problem) => problem.path), [
      "servers.b.command",
    ]);
  });

  it("reports an answer that is not a string, and passes on what the function throws", async () => {
    const text = WITH_INPUTS;
    const error = await rejection(
      loadConfig({ text, format: "json" }, {
        inputs: () => 42 as unknown as string,
      }),
    );
    assert.match(error.message, /answered it with number, not a string/);
    const cancelled = new Error("cancelled at the prompt");
    await assert.rejects(
      loadConfig({ text, format: "json" }, {
        inputs: () => Promise.reject(cancelled),
      }),
      (reason) => reason === cancelled,
    );
  });

  it("masks a password input's value in the adapter's messages, wherever the file used it", async () => {
    const { servers } = parseConfig(WITH_INPUTS, "json", {
      inputs: { token: "pw42" }, // short, and in args: no other rule would mask it
    });
    const local = servers[1]!.config;
    const adapter = new MCPToolAdapter(local, {
      transport: () => {
        throw new Error("the server refused --token pw42");
      },
    });
    await assert.rejects(adapter.connect({ timeoutMs: 5_000 }), (error) => {
      assert.ok(error instanceof MCPConnectionError, String(error));
      assert.doesNotMatch(error.message, /pw42/);
      assert.match(error.message, /\[redacted\]/);
      return true;
    });
    await adapter.disconnect();
  });

  it("never shows an input's value in a config error", () => {
    const error = thrown(() =>
      parseConfig(
        JSON.stringify({
          inputs: [{ id: "url", type: "promptString", password: true }],
          servers: { r: { type: "http", url: "${input:url}" } },
        }),
        "json",
        { inputs: { url: "SECRET-not-a-url" } },
      )
    );
    assert.match(error.message, /expected an http\(s\) URL/);
    assert.doesNotMatch(error.message, /SECRET/);
  });
});

describe("envFile", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-config-envfile-"));
    await writeFile(
      join(dir, ".env"),
      [
        "# comment",
        "export FROM_FILE=1",
        "SHARED=file",
        'QUOTED="a b\\nc" # trailing comment',
        "",
      ].join("\n"),
    );
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("loads a Cursor / Claude Code envFile, relative to the config's folder, under env", async () => {
    const file = join(dir, "mcp.json");
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          local: {
            command: "srv",
            envFile: ".env",
            env: { SHARED: "explicit" },
          },
          remote: { url: "https://example.com/mcp", envFile: "ignored.env" },
        },
      }),
    );
    const { servers } = await loadConfig(file, { env: {} });
    assert.deepEqual(servers[0]?.config.env, {
      FROM_FILE: "1",
      SHARED: "explicit",
      QUOTED: "a b\nc",
    });
    assert.equal(servers[1]?.config.env, undefined);
  });

  it("takes ${workspaceFolder} and absolute paths, in this library's format too", async () => {
    const file = join(dir, "mcp.yaml");
    await writeFile(
      file,
      [
        "servers:",
        "  - name: a",
        "    transport: stdio",
        "    command: srv",
        '    envFile: "${workspaceFolder}/.env"',
        "  - name: b",
        "    transport: stdio",
        "    command: srv",
        `    envFile: ${JSON.stringify(join(dir, ".env"))}`,
      ].join("\n"),
    );
    const { servers } = await loadConfig(file, { env: {} });
    assert.equal(servers[0]?.config.env?.FROM_FILE, "1");
    assert.equal(servers[1]?.config.env?.FROM_FILE, "1");
  });

  it("resolves a relative envFile of text against the workspaceFolder option, and asks for it otherwise", async () => {
    const text =
      '{ "servers": { "s": { "command": "x", "envFile": ".env" } } }';
    const { servers } = await loadConfig({ text, format: "json" }, {
      workspaceFolder: dir,
      env: {},
    });
    assert.equal(servers[0]?.config.env?.SHARED, "file");
    const error = await rejection(loadConfig({ text, format: "json" }));
    assert.match(
      error.message,
      /servers\.s\.envFile: is a relative path, but the config was given as text.*workspaceFolder option/,
    );
  });

  it("reports a missing envFile with its path, among the file's other problems", async () => {
    const file = join(dir, "missing.json");
    await writeFile(
      file,
      JSON.stringify(
        {
          servers: {
            a: { command: "x", envFile: "nope.env" },
            b: { type: "http", url: "not-a-url" },
          },
        },
        null,
        2,
      ),
    );
    const error = await rejection(loadConfig(file, { env: {} }));
    assert.deepEqual(error.problems.map((problem) => problem.message), [
      `${file}:5:7: servers.a.envFile: cannot read ${
        join(dir, "nope.env")
      }: it does not exist; check the path`,
      `${file}:9:7: servers.b.url: expected an http(s) URL; write e.g. "https://example.com/mcp"`,
    ]);
  });

  it("reports malformed lines of an envFile by line, without their text", async () => {
    await writeFile(
      join(dir, "bad.env"),
      "GOOD=1\nSECRET-LINE-WITHOUT-EQUALS\nX='open\n",
    );
    const file = join(dir, "bad.json");
    await writeFile(
      file,
      '{ "servers": { "a": { "command": "x", "envFile": "bad.env" } } }',
    );
    const error = await rejection(loadConfig(file, { env: {} }));
    const envFile = join(dir, "bad.env");
    assert.deepEqual(error.problems.map((problem) => problem.message), [
      `${file}:1:39: servers.a.envFile: ${envFile}:2: expected NAME=value, got a line without "="`,
      `${file}:1:39: servers.a.envFile: ${envFile}:3: the value of X opens a ' quote that is never closed`,
    ]);
    assert.doesNotMatch(error.message, /SECRET/);
  });

  it("refuses an envFile on a remote server of this library's format, and in parseConfig()", () => {
    const error = thrown(() =>
      parseConfig(
        [
          "servers:",
          "  - name: r",
          "    transport: sse",
          "    url: https://example.com/sse",
          "    envFile: .env",
          "  - name: s",
          "    transport: stdio",
          "    command: x",
          "    envFile: .env",
        ].join("\n"),
        "yaml",
      )
    );
    assert.deepEqual(error.problems.map((problem) => problem.message), [
      '<inline>:5:5: servers[0].envFile: is not used by the "sse" transport; remove it, or set transport to "stdio"',
      "<inline>:9:5: servers[1].envFile: is a file to read, and parseConfig() reads no files; use loadConfig(), which also takes { text, format }",
    ]);
  });
});

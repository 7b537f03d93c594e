/**
 * The command line as a new user meets it: inline servers, arguments read by
 * the schema, output that can go to a file, elicitation, --version,
 * --verbose, and messages that say what to do.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { main } from "@cleveragents/mcp-adapter/cli";
import { sdkStreamableServer } from "../_remote.ts";
import { cliCommand } from "./_run.ts";
import { exec, type Run, sdkServerCommand } from "../_helpers.ts";

const fixture = sdkServerCommand;
const TEST_TIMEOUT_MS = 90_000;

/** Captures what `main()` writes. */
function output(isTTY = false) {
  let text = "";
  return {
    stream: { write: (chunk: string) => text += chunk, isTTY },
    get text() {
      return text;
    },
  };
}

describe("mcp-adapter usage", () => {
  let dir: string;

  function cli(
    args: readonly string[],
    cwd = dir,
    env: Record<string, string> = {},
  ): Promise<Run> {
    const { command, args: base } = cliCommand();
    return exec(command, [...base, ...args], cwd, env);
  }

  /** The fixture server inline, after `--`. */
  const inline = ["--", fixture.command, ...fixture.args];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-cli-usage-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("runs a stdio server given after --, with --env, and no config file", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const name = "sdk_server";
    const tools = await cli(["tools", ...inline]);
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, new RegExp(`^${name}/add\\s`, "m"));
    const env = await cli([
      "call",
      `${name}/whoami`,
      "variable=GREETING",
      "--json",
      "--env",
      "GREETING=hello there",
      ...inline,
    ]);
    assert.equal(env.code, 0, env.stderr);
    assert.equal(
      JSON.parse(env.stdout).data.structuredContent.value,
      "hello there",
    );
    const named = await cli(["tools", "--name", "mine", ...inline]);
    assert.match(named.stdout, /^mine\/add\s/m);
  });

  it("runs a remote server given with --url and --header", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    let seen: string | undefined;
    const server = await sdkStreamableServer({
      intercept: (req) => {
        seen ??= req.headers["x-team"] as string | undefined;
        return false;
      },
    });
    try {
      const run = await cli([
        "call",
        "127.0.0.1/add",
        "a=1",
        "b=2",
        "--url",
        server.url,
        "--header",
        "X-Team: blue",
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "3\n");
      assert.equal(seen, "blue");
    } finally {
      await server.close();
    }
  });

  it(
    "reads key=value by the schema: a string stays a string, nested keys and arrays work, unknown keys get a did-you-mean",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const echo = await cli([
        "call",
        "sdk_server/echo",
        "message=123",
        ...inline,
      ]);
      assert.equal(echo.code, 0, echo.stderr);
      assert.equal(echo.stdout, "123\n", 'sent as the string "123"');
      const nested = await cli([
        "call",
        "sdk_server/nested",
        "label=007",
        "options.depth=2",
        `options.tags=["a","b"]`,
        ...inline,
      ]);
      assert.equal(nested.code, 0, nested.stderr);
      assert.deepEqual(JSON.parse(nested.stdout), {
        label: "007",
        options: { depth: 2, tags: ["a", "b"] },
      });
      const typo = await cli([
        "call",
        "sdk_server/echo",
        "mesage=hi",
        ...inline,
      ]);
      assert.equal(typo.code, 1);
      assert.match(
        typo.stderr,
        /unknown argument "mesage" \(did you mean "message"\?\) \(the tool takes: message\)/,
      );
    },
  );

  it("--raw writes the text exactly; --output saves images to files", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const raw = await cli([
      "call",
      "sdk_server/echo",
      "message=no newline",
      "--raw",
      ...inline,
    ]);
    assert.equal(raw.code, 0, raw.stderr);
    assert.equal(raw.stdout, "no newline");
    const out = join(dir, "out");
    const saved = await cli([
      "call",
      "sdk_server/picture",
      "--output",
      out,
      ...inline,
    ]);
    assert.equal(saved.code, 0, saved.stderr);
    const files = await readdir(out);
    assert.deepEqual(files, ["sdk_server_picture-2.png"]);
    const bytes = await readFile(join(out, files[0]!));
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
    assert.match(saved.stdout, /^a red dot\n\[image saved to .*\.png\]\n$/);
    const summary = await cli(["call", "sdk_server/picture", ...inline]);
    assert.match(
      summary.stdout,
      /\[image image\/png \d+ bytes; --output DIR saves it\]/,
    );
  });

  it("lists servers in config order, every time", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const config = join(dir, "two.json");
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          zeta: {
            command: fixture.command,
            args: [...fixture.args, "slow", "300"],
          },
          alpha: { command: fixture.command, args: fixture.args },
        },
      }),
    );
    for (let run = 0; run < 2; run++) {
      const tools = await cli(["tools", "--config", config]);
      assert.equal(tools.code, 0, tools.stderr);
      const servers = tools.stdout.split("\n").slice(1).filter(Boolean)
        .map((line) => line.split("/")[0]);
      assert.equal(servers[0], "zeta");
      assert.equal(servers.at(-1), "alpha");
    }
  });

  it(
    "--version, --verbose, --connect-timeout, and our own word on a bad option",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const version = await cli(["--version"]);
      assert.equal(version.code, 0);
      assert.match(version.stdout, /^mcp-adapter \d+\.\d+\.\d+\n$/);
      const verbose = await cli(["tools", "--verbose", ...inline]);
      assert.match(verbose.stderr, /\[server\] sdk test server: ready/);
      const quiet = await cli(["tools", ...inline]);
      assert.doesNotMatch(quiet.stderr, /sdk test server: ready/);
      const mute = await cli([
        "check",
        "--connect-timeout",
        "500",
        "--",
        fixture.command,
        ...fixture.args,
        "mute",
      ]);
      assert.equal(mute.code, 3);
      assert.match(mute.stderr + mute.stdout, /timed out after 500 ms/);
      const option = await cli(["tools", "--confg", "x.yaml"]);
      assert.equal(option.code, 2);
      assert.match(
        option.stderr,
        /^mcp-adapter: unknown option "--confg" \(did you mean "--config"\?\)/,
      );
      const tool = await cli(["call", "sdk_server/ad", ...inline]);
      assert.equal(tool.code, 2);
      assert.match(
        tool.stderr,
        /no tool "sdk_server\/ad" \(did you mean "sdk_server\/add"\?\)/,
      );
    },
  );

  it(
    "reads config files relative to INIT_CWD when run from its own folder, as under deno task",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const user = await mkdtemp(join(tmpdir(), "mcp-cli-user-"));
      try {
        await writeFile(
          join(user, "mcp.json"),
          JSON.stringify({
            mcpServers: {
              mine: { command: fixture.command, args: fixture.args },
            },
          }),
        );
        const { args } = cliCommand();
        const cliFile = args.find((arg) => /(?:cli|bin)\.[jt]s$/.test(arg))!;
        const run = await cli(["tools"], dirname(cliFile), { INIT_CWD: user });
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, /^mine\/add\s/m);
      } finally {
        await rm(user, { recursive: true, force: true });
      }
    },
  );

  it(
    "asks a server's question on a terminal, declines it elsewhere, and refuses sampling with a reason",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const questions: string[] = [];
      const answers = ["blue", "3", "y"];
      const stdout = output();
      const stderr = output(true);
      const asked = await main(["call", "sdk_server/ask", ...inline], {
        stdout: stdout.stream,
        stderr: stderr.stream,
        cwd: dir,
        ask: (question) => {
          questions.push(question);
          return Promise.resolve(answers.shift());
        },
      });
      assert.equal(asked, 0, stderr.text);
      assert.deepEqual(JSON.parse(stdout.text), {
        action: "accept",
        content: { colour: "blue", shades: 3 },
      });
      assert.match(stderr.text, /The server asks: Which colour\?/);
      assert.match(questions[0]!, /colour \[red\/blue\] \(default red\)/);
      const declined = await cli(["call", "sdk_server/ask", ...inline]);
      assert.equal(declined.code, 0, declined.stderr);
      assert.deepEqual(JSON.parse(declined.stdout), { action: "decline" });
    },
  );

  it(
    "asks for a VS Code ${input:id} on a terminal, hiding a password, and says what to do without one",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const config = join(dir, "inputs.json");
      await writeFile(
        config,
        JSON.stringify({
          inputs: [{
            id: "token",
            type: "promptString",
            description: "API token",
            password: true,
          }],
          servers: {
            sdk: {
              command: fixture.command,
              args: fixture.args,
              env: { API_TOKEN: "${input:token}" },
            },
          },
        }),
      );
      const asked: { question: string; hidden: boolean }[] = [];
      const stdout = output();
      const stderr = output(true);
      const code = await main(
        [
          "call",
          "sdk/whoami",
          "variable=API_TOKEN",
          "--json",
          "--config",
          config,
        ],
        {
          stdout: stdout.stream,
          stderr: stderr.stream,
          cwd: dir,
          ask: (question, options) => {
            asked.push({ question, hidden: options?.hidden ?? false });
            return Promise.resolve("tok-1234567890");
          },
        },
      );
      assert.equal(code, 0, stderr.text);
      assert.deepEqual(asked, [{ question: "API token: ", hidden: true }]);
      assert.equal(
        JSON.parse(stdout.text).data.structuredContent.value,
        "tok-1234567890",
      );
      const headless = await cli(["tools", "--config", config]);
      assert.equal(headless.code, 2);
      assert.match(
        headless.stderr,
        /\$\{input:token\}, which needs a value: run on a terminal/,
      );
    },
  );

  it(
    "refuses --config beside an inline server, and inline options without one",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const both = await cli(["tools", "--config", "x.yaml", ...inline]);
      assert.equal(both.code, 2);
      assert.match(
        both.stderr,
        /--config and an inline server exclude each other/,
      );
      const stray = await cli(["tools", "--header", "A:b"]);
      assert.equal(stray.code, 2);
      assert.match(stray.stderr, /--header describes an inline server/);
    },
  );
});

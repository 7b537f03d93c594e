/**
 * `mcp-adapter resources`, `read`, `prompts` and `prompt`, run as a
 * subprocess: against the SDK v2 modern-only server (stdio), whose lists
 * come in pages, against server-everything given inline, and against a
 * hostile server whose names and text carry terminal escapes.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliWorkspace } from "./_run.ts";
import { modernStdioCommand } from "../_modern.ts";
import { everythingCommand } from "../_everything.ts";
import { fixturePath, runtimeCommand } from "../_helpers.ts";
import { DOCUMENTS } from "../_modern_content.ts";

const TEST_TIMEOUT_MS = 90_000;
/** What a terminal acts on: ESC, C0 but newline and tab, C1, the bidi overrides. */
// deno-lint-ignore no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

describe("mcp-adapter (the command line): resources and prompts", () => {
  const ws = cliWorkspace();
  const { cli } = ws;
  const modernConfig = async () => {
    const config = join(ws.dir, "modern.json");
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { modern: modernStdioCommand("reject") } }),
    );
    return config;
  };

  it("resources lists every resource across pages, and the templates", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const config = await modernConfig();
    const run = await cli(["resources", "--config", config]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    for (let n = 1; n <= DOCUMENTS; n++) {
      assert.match(
        run.stdout,
        new RegExp(
          `^modern/fixture://doc/${n}\\s+modern\\s+text/plain\\s+document ${n}$`,
          "m",
        ),
      );
    }
    assert.match(run.stdout, /^TEMPLATE\s+SERVER\s+VARIABLES\s+NAME$/m);
    assert.match(
      run.stdout,
      /^modern\/fixture:\/\/items\/\{id\}\s+modern\s+id\s+items$/m,
    );
    const json = await cli(["resources", "--json", "--config", config]);
    assert.equal(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout);
    assert.equal(listed.resources.length, DOCUMENTS + 1);
    assert.deepEqual(
      { ...listed.templates[0], description: undefined },
      {
        uriTemplate: "fixture://items/{id}",
        name: "items",
        variables: ["id"],
        mimeType: "text/plain",
        description: undefined,
        id: "modern/fixture://items/{id}",
        server: "modern",
        namespace: "modern",
      },
    );
  });

  it(
    "read prints a resource, a template's with its variables, and fails clearly",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const config = await modernConfig();
      const doc = await cli([
        "read",
        "modern/fixture://doc/2",
        "--config",
        config,
      ]);
      assert.equal(doc.code, 0, doc.stderr);
      assert.equal(doc.stdout, "document 2\n");
      // One server: the namespace may be left out.
      const item = await cli([
        "read",
        "fixture://items/{id}",
        "id=3",
        "--config",
        config,
      ]);
      assert.equal(item.code, 0, item.stderr);
      assert.equal(item.stdout, "item 3\n");
      const blob = await cli([
        "read",
        "modern/fixture://blob/big",
        "--config",
        config,
      ]);
      assert.equal(blob.code, 0, blob.stderr);
      assert.match(
        blob.stdout,
        /^\[blob fixture:\/\/blob\/big application\/octet-stream 65536 bytes; --json prints it\]$/m,
      );
      const capped = await cli([
        "read",
        "modern/fixture://blob/big",
        "--max-bytes",
        "1000",
        "--config",
        config,
      ]);
      assert.equal(capped.code, 1);
      assert.match(capped.stderr, /larger than maxBytes \(1000 bytes\)/);
      const missing = await cli([
        "read",
        "modern/fixture://doc/999",
        "--config",
        config,
      ]);
      assert.equal(missing.code, 2, missing.stderr);
      const wrong = await cli([
        "read",
        "modern/fixture://items/{id}",
        "idd=3",
        "--config",
        config,
      ]);
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /no variable "idd"/);
    },
  );

  it(
    "prompts lists the prompts with their arguments; prompt prints the messages",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const config = await modernConfig();
      const list = await cli(["prompts", "--config", config]);
      assert.equal(list.code, 0, list.stderr);
      assert.match(
        list.stdout,
        /^modern\/greet\s+modern\s+name \[style\]\s+Greets someone$/m,
      );
      assert.match(list.stdout, /^modern\/plain_3\s+modern\s+-\s+Plain 3$/m);
      const got = await cli([
        "prompt",
        "modern/greet",
        "name=Ada",
        "--config",
        config,
      ]);
      assert.equal(got.code, 0, got.stderr);
      assert.equal(got.stdout, "user:\nHello, Ada!\n");
      const review = await cli([
        "prompt",
        "modern/review",
        "id=4",
        "--config",
        config,
      ]);
      assert.equal(review.code, 0, review.stderr);
      assert.equal(
        review.stdout,
        "user:\nReview item 4:\nuser:\nitem 4\nassistant:\n[image image/png 3 bytes; --output DIR saves it]\n",
      );
      const missing = await cli(["prompt", "modern/greet", "--config", config]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /needs the argument "name"/);
    },
  );

  it("works with server-everything given inline", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const everything = everythingCommand("stdio");
    // The server runs in the project: under Deno its lock file pins the
    // server's dependencies to those in the cache.
    const project = fileURLToPath(new URL("../..", import.meta.url));
    const inline = [
      "--cwd",
      project,
      "--",
      everything.command,
      ...everything.args,
    ];
    const list = await cli(["resources", ...inline]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(
      list.stdout,
      /^server-everything\/demo:\/\/resource\/static\/document\/architecture\.md\s+server-everything\s+text\/markdown\s+architecture\.md$/m,
    );
    const prompt = await cli([
      "prompt",
      "args-prompt",
      "city=Paris",
      ...inline,
    ]);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.equal(prompt.stdout, "user:\nWhat's weather in Paris?\n");
  });

  it("prints a hostile server's names and text escaped", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { command, args } = runtimeCommand(
      fixturePath(
        `cli_hostile_server.${import.meta.url.endsWith(".ts") ? "ts" : "js"}`,
      ),
    );
    const inline = ["--name", "evil", "--", command, ...args];
    for (
      const run of [
        await cli(["resources", ...inline]),
        await cli(["read", "file:///evil.txt", ...inline]),
        await cli(["prompts", ...inline]),
        await cli(["prompt", "evil", ...inline]),
      ]
    ) {
      assert.equal(run.code, 0, run.stderr);
      assert.ok(!RAW_CONTROL.test(run.stdout), JSON.stringify(run.stdout));
      assert.ok(!RAW_CONTROL.test(run.stderr), JSON.stringify(run.stderr));
    }
    const read = await cli(["read", "file:///evil.txt", ...inline]);
    assert.equal(
      read.stdout,
      "read\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\x0dfake\n",
    );
  });
});

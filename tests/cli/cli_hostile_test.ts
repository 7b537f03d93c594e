/**
 * The `mcp-adapter` command line against a hostile server, run as a
 * subprocess: tool names, titles, descriptions, results, errors, log
 * messages and stderr that carry terminal escapes (ESC, CSI, OSC 52, C1,
 * BEL, BS, CR, RLO) or characters a terminal does not show (zero-width
 * spaces, Unicode tags) are printed as visible escapes, while `--json` and
 * `--raw` stay exact; a failure cannot forge a line of `--trace`;
 * `key=value` paths never reach `Object.prototype`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cliWorkspace } from "./_run.ts";
import { cliHandlers } from "../../src/cli/_handlers.ts";
import { fixturePath, runtimeCommand } from "../_helpers.ts";

const TEST_TIMEOUT_MS = 90_000;
/** The hostile fixture as a command of this runtime (.ts on Deno, .js on Node). */
const hostile = runtimeCommand(
  fixturePath(
    `cli_hostile_server${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  ),
);
const inline = ["--name", "h", "--", hostile.command, ...hostile.args];
const OSC52 = "\x1b]52;c;cHduZWQ=\x07";
const RLO = "\u202e";

/**
 * Characters a terminal acts on: C0 (but the newline that ends each line),
 * DEL, C1, and the bidirectional controls; and those it does not show:
 * format characters (zero-width, tags) and default-ignorable ones.
 */
const RAW_CONTROL =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

function assertPrintable(text: string, what: string): void {
  const found = RAW_CONTROL.exec(text);
  assert.equal(
    found,
    null,
    `${what} has a raw U+${
      found?.[0].codePointAt(0)?.toString(16).padStart(4, "0")
    }: ${JSON.stringify(text)}`,
  );
}

describe("mcp-adapter (the command line): a server that sends terminal escapes", () => {
  const { cli } = cliWorkspace();

  it(
    "tools shows names and descriptions as visible escapes; --json stays exact",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const text = await cli(["tools", "--verbose", ...inline]);
      assert.equal(text.code, 0, text.stderr);
      assertPrintable(text.stdout, "tools");
      assertPrintable(text.stderr, "tools --verbose");
      // The CR cannot make "harmless" read "delete_everything: wipes the disk".
      assert.match(
        text.stdout,
        /h\/harmless\\x0ddelete_everything .* harmless\\x0ddelete_everything: wipes the disk/,
      );
      assert.ok(
        text.stdout.includes(
          "bell\\x07 back\\x08space \\x9b2J \\u202etxt.exe\\x1b]52;c;cHduZWQ=\\x07",
        ),
        text.stdout,
      );
      // A server's stderr line, passed through by --verbose.
      assert.ok(
        text.stderr.includes(
          "[server] starting\\x1b]52;c;cHduZWQ=\\x07\\x1b[31m red\n",
        ),
        text.stderr,
      );

      const json = await cli(["tools", "--json", ...inline]);
      assert.equal(json.code, 0, json.stderr);
      const tools = JSON.parse(json.stdout) as { description: string }[];
      assert.equal(
        tools[1]!.description,
        `bell\x07 back\x08space \u009b2J ${RLO}txt.exe${OSC52}`,
      );
    },
  );

  it(
    "call shows text, MIME types, links and --verbose logs escaped; --raw and --json stay exact",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const run = await cli(["call", "h/evil", "--verbose", ...inline]);
      assert.equal(run.code, 0, run.stderr);
      assertPrintable(run.stdout, "call");
      assertPrintable(run.stderr, "call --verbose");
      assert.equal(
        run.stdout,
        [
          "first\\x1b[2J\\x0dsecond\\x1b]52;c;cHduZWQ=\\x07",
          "line two", // newlines of a text block stay
          "[image image/png\\x1b]52;c;cHduZWQ=\\x07 3 bytes; --output DIR saves it]",
          "[resource link file:///x\\x1b]52;c;cHduZWQ=\\x07]",
          "",
        ].join("\n"),
      );
      assert.ok(
        run.stderr.includes(
          "[h] info log\\u202eger: log line\\x1b]52;c;cHduZWQ=\\x07\\x0dfake\n",
        ),
        run.stderr,
      );

      const raw = await cli(["call", "h/evil", "--raw", ...inline]);
      assert.equal(raw.code, 0, raw.stderr);
      assert.equal(raw.stdout, `first\x1b[2J\rsecond${OSC52}\nline two`);

      const json = await cli(["call", "h/evil", "--json", ...inline]);
      assert.equal(json.code, 0, json.stderr);
      const envelope = JSON.parse(json.stdout) as {
        data: { content: { text?: string; mimeType?: string }[] };
      };
      assert.equal(
        envelope.data.content[0]!.text,
        `first\x1b[2J\rsecond${OSC52}\nline two`,
      );
      assert.equal(envelope.data.content[1]!.mimeType, `image/png${OSC52}`);
    },
  );

  it("call shows a field that should be text and is not for what it is", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const odd = runtimeCommand(fixturePath("hostile.mjs"));
    const run = await cli([
      "call",
      "h/echo",
      "text=x",
      "--name",
      "h",
      "--",
      odd.command,
      ...odd.args,
      "odd-text",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      [
        "[image [an object] 3 bytes; --output DIR saves it]",
        "[resource link [an object]]",
        "[resource [a list]; --output DIR saves it]",
        '{"type":{"toString":1}}',
        "",
      ].join("\n"),
    );
  });

  it("failure messages, unknown-tool lists and schemas show escapes", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const failed = await cli(["call", "h/fail", ...inline]);
    assert.equal(failed.code, 1, failed.stderr);
    assertPrintable(failed.stderr, "a failed call");
    assert.match(failed.stderr, /boom\\x0dall good\\x1b\]52;c;cHduZWQ=\\x07\n/);

    const unknown = await cli(["call", "h/nope", ...inline]);
    assert.equal(unknown.code, 2, unknown.stderr);
    assertPrintable(unknown.stderr, "an unknown tool");
    assert.match(
      unknown.stderr,
      /available: h\/harmless\\x0ddelete_everything/,
    );

    const schema = await cli(["schema", "h/evil", ...inline]);
    assert.equal(schema.code, 0, schema.stderr);
    assertPrintable(schema.stdout, "schema");
    // Still JSON, and the same value: the escapes are JSON's own.
    assert.deepEqual(JSON.parse(schema.stdout), {
      type: "object",
      additionalProperties: true,
      description: `args${RLO}\u009dx`,
    });
  });

  it(
    "tools shows a zero-width space in a name and Unicode tags in a description",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const text = await cli(["tools", ...inline]);
      assert.equal(text.code, 0, text.stderr);
      assertPrintable(text.stdout, "tools");
      // Not "h/readfile": the space that is not there is shown.
      assert.match(text.stdout, /^h\/read\\u200bfile /m);
      assert.ok(
        text.stdout.includes(
          "Reads a file.\\u{e0049}\\u{e0047}\\u{e004e}\\u{e004f}\\u{e0052}\\u{e0045}\\u{e0020}\\u{e0041}\\u{e004c}\\u{e004c} soft\\xadhyphen\\u2060\\ufeff\\u3164",
        ),
        text.stdout,
      );

      const json = await cli(["tools", "--json", ...inline]);
      assert.equal(json.code, 0, json.stderr);
      const tools = JSON.parse(json.stdout) as { name: string }[];
      assert.ok(tools.some((tool) => tool.name === "h/read\u200bfile"));
    },
  );

  it("--trace prints one line per span, whatever a failure's text holds", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const run = await cli(["call", "h/forge", "--trace", ...inline]);
    assert.equal(run.code, 1, run.stderr);
    const trace = run.stderr.slice(run.stderr.indexOf("trace "));
    const lines = trace.trimEnd().split("\n").slice(1);
    assert.ok(lines.length >= 3, trace);
    // Every line is a span of this call: offset, duration, a method.
    for (const line of lines) {
      assert.match(
        line,
        /^ +\+\d+\.\d ms +\d+\.\d ms +(server\/discover|initialize|tools\/list|tools\/call forge) /,
        trace,
      );
    }
    assert.ok(
      trace.includes("denied\\x0a  +0.0 ms  0.1 ms  tools/call t [id 9]"),
      trace,
    );
  });

  it(
    "call echo_args __proto__.isError=true is an argument, not a failed call",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      const run = await cli([
        "call",
        "h/echo_args",
        "__proto__.isError=true",
        "constructor.prototype.polluted=yes",
        ...inline,
      ]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      // The SDK server drops a "__proto__" key when it parses the arguments.
      assert.equal(
        run.stdout,
        `${
          JSON.stringify({ constructor: { prototype: { polluted: "yes" } } })
        }\n`,
      );
    },
  );
});

describe("mcp-adapter (the command line): a server's data nested 100,000 levels deep", () => {
  const { cli } = cliWorkspace();
  const deep = runtimeCommand(fixturePath("hostile.mjs"));
  const server = (where: string) => [
    "--name",
    "h",
    "--",
    deep.command,
    ...deep.args,
    "deep-result",
    where,
  ];

  it("call prints a note in its place, and --json fails with a clear message", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    for (
      const [where, what] of [
        [
          "structured-only",
          "[structured content nests too many levels of objects and lists to be printed]",
        ],
        [
          "block",
          "[widget block nests too many levels of objects and lists to be printed]",
        ],
        ["link", "[resource link [a list]]"],
      ]
    ) {
      const text = await cli(["call", "h/loose", ...server(where!)]);
      assert.equal(text.code, 0, text.stderr);
      assert.ok(text.stdout.startsWith(what!), text.stdout.slice(0, 200));
    }
    for (const where of ["structured-only", "meta"]) {
      const json = await cli(["call", "h/loose", "--json", ...server(where)]);
      assert.equal(json.code, 1, json.stderr);
      assert.match(
        json.stderr,
        /nests too many levels of objects and lists to be printed as JSON; run the command without --json/,
      );
      assert.doesNotMatch(json.stderr, /call stack/);
    }
  });
});

describe("mcp-adapter (the command line): a server's question whose choices are not text", () => {
  it("shows each for what it is and takes an answer", async () => {
    const questions: string[] = [];
    const answers = ["red", "y"];
    const printed: string[] = [];
    const handlers = cliHandlers(
      (question) => {
        questions.push(question);
        return Promise.resolve(answers.shift());
      },
      { write: (text: string) => printed.push(text) },
    );
    // String() cannot call this toString.
    const odd = { toString: 1 } as unknown as string;
    const answer = await handlers.elicitation!({
      message: "Pick one",
      requestedSchema: {
        type: "object",
        properties: {
          colour: { type: "string", enum: [odd, "red"], default: odd },
        },
      },
    });
    assert.deepEqual(answer, {
      action: "accept",
      content: { colour: "red" },
    });
    assert.match(printed.join(""), /The server asks: Pick one/);
    assert.match(
      questions[0]!,
      /colour \[\[an object\]\/red\] \(default \[an object\]\)/,
    );
  });
});

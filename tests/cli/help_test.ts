/**
 * The command line's help texts and usage errors, byte for byte, as the
 * command table renders them: `help_golden.json` holds what `main()` printed
 * before the table existed (the three hand-kept lists it replaced). Every
 * case fails before a config is read or a server started.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { main } from "../../cli.ts";

interface Case {
  args: string[];
  code: number;
  stdout: string;
  stderr: string;
}

const cases = JSON.parse(
  await readFile(new URL("./help_golden.json", import.meta.url), "utf8"),
) as Case[];

describe("mcp-adapter help and usage errors (cli)", () => {
  it("has cases for every command's help and for each usage error", () => {
    const helps = cases.filter((run) => run.code === 0).map((run) => run.args);
    for (
      const command of [
        "tools",
        "call",
        "check",
        "schema",
        "search",
        "resources",
        "read",
        "prompts",
        "prompt",
        "tasks",
        "login",
      ]
    ) {
      assert.ok(helps.some((args) => args.includes(command)), command);
    }
    assert.ok(cases.filter((run) => run.code === 2).length >= 15);
  });

  for (const expected of cases) {
    it(`mcp-adapter ${expected.args.join(" ")} prints what it always did`, async () => {
      let stdout = "";
      let stderr = "";
      const code = await main(expected.args, {
        stdout: { write: (text: string) => void (stdout += text) },
        stderr: { write: (text: string) => void (stderr += text) },
        env: {},
      });
      assert.equal(stdout, expected.stdout);
      assert.equal(stderr, expected.stderr);
      assert.equal(code, expected.code);
    });
  }
});

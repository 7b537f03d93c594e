import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  MCPConfigError,
  type MCPToolResult,
  type RegisteredTool,
  type ToolCapability,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import {
  loadSkill,
  MCPConfigFileError,
  parseSkill,
  type Skill,
} from "@cleveragents/mcp-adapter/config";
import { fixturePath } from "../_helpers.ts";

const NEITHER: ToolCapability = { readOnly: false, writes: false };

function tool(
  name: string,
  capability: ToolCapability = NEITHER,
): RegisteredTool {
  return {
    name,
    description: `the ${name} tool`,
    inputSchema: { type: "object" },
    capability: { ...capability },
    checkpointable: false,
    source: "mcp",
    sourceMetadata: { server: name.slice(0, name.indexOf("/")) },
    invoke: (args) =>
      Promise.resolve({
        success: true,
        data: { called: name, args: args ?? {} },
        error: null,
        durationMs: 0,
      }),
  };
}

/** A registry in a deliberate order, across namespaces that share a prefix. */
function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  for (
    const name of [
      "github/get_issue",
      "git/status",
      "github/create_review_comment",
      "gitlab/get_issue",
      "git/commit",
      "github/delete_repo",
      "git/log",
    ]
  ) {
    tools.register(tool(name));
  }
  return tools;
}

function names(tools: readonly RegisteredTool[]): string[] {
  return tools.map((entry) => entry.name);
}

function skillError(
  text: string,
  message: string | RegExp,
): MCPConfigFileError {
  try {
    parseSkill(text, { source: "skill.yaml" });
  } catch (error) {
    assert.ok(error instanceof MCPConfigFileError, `got ${error}`);
    assert.ok(error instanceof MCPConfigError);
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    return error;
  }
  assert.fail("parseSkill() did not throw");
}

describe("parseSkill()", () => {
  it("reads name, description, tools and snake_case overrides", async () => {
    const skill = await loadSkill(fixturePath("configs/skill.yaml"));
    assert.equal(skill.name, "reviewer");
    assert.equal(
      skill.description,
      "Reads code and comments on pull requests.",
    );
    assert.deepEqual(skill.tools, [
      "git/*",
      "github/get_*",
      "github/create_review_comment",
    ]);
    assert.deepEqual(skill.overrides, {
      "git/*": { readOnly: true },
      "github/create_review_comment": { writes: true },
    });
  });

  it("defaults description to an empty string and overrides to none", () => {
    const skill = parseSkill("name: s\ntools: [git/status]\n");
    assert.equal(skill.description, "");
    assert.deepEqual(skill.overrides, {});
  });

  it("loads a .json skill file as JSON", async () => {
    const skill = await loadSkill(fixturePath("configs/skill.json"));
    assert.equal(skill.name, "json-skill");
    assert.deepEqual(skill.tools, ["git/status"]);
  });
});

describe("Skill.select()", () => {
  it("returns the registry's matching tools in registry order, for names and globs", () => {
    const skill = parseSkill(
      "name: s\ntools: [git/log, github/get_*, git/status]\n",
    );
    assert.deepEqual(names(skill.select(registry())), [
      "github/get_issue",
      "git/status",
      "git/log",
    ]);
  });

  it('matches "ns/*" within its namespace only, and "*/name" across namespaces', () => {
    const git = parseSkill("name: s\ntools: [git/*]\n");
    assert.deepEqual(names(git.select(registry())), [
      "git/status",
      "git/commit",
      "git/log",
    ]);
    const issues = parseSkill('name: s\ntools: ["*/get_issue"]\n');
    assert.deepEqual(names(issues.select(registry())), [
      "github/get_issue",
      "gitlab/get_issue",
    ]);
  });

  it("skips names the registry does not have", () => {
    const skill = parseSkill("name: s\ntools: [notes/missing, git/log]\n");
    assert.deepEqual(names(skill.select(registry())), ["git/log"]);
    assert.deepEqual(skill.select(new ToolRegistry()), []);
  });

  it("applies its overrides to copies: globs first, exact names last", () => {
    const skill = parseSkill(
      [
        "name: s",
        "tools: [git/*, github/*]",
        "overrides:",
        '  "git/*": { read_only: true }',
        "  git/commit: { writes: true }",
        '  "github/*": { writes: true }',
        "  github/get_issue: { read_only: true }",
      ].join("\n"),
    );
    const tools = registry();
    const selected = skill.select(tools);
    const capabilities = Object.fromEntries(
      selected.map((entry) => [entry.name, entry.capability]),
    );
    assert.deepEqual(capabilities, {
      "github/get_issue": { readOnly: true, writes: false },
      "git/status": { readOnly: true, writes: false },
      "github/create_review_comment": { readOnly: false, writes: true },
      "git/commit": { readOnly: false, writes: true },
      "github/delete_repo": { readOnly: false, writes: true },
      "git/log": { readOnly: true, writes: false },
    });
    for (const entry of tools.list()) {
      assert.deepEqual(entry.capability, NEITHER);
    }
  });

  it("keeps everything else of the tool, invoke included", async () => {
    const skill = parseSkill("name: s\ntools: [git/status]\n");
    const tools = registry();
    const [copy] = skill.select(tools);
    const original = tools.get("git/status")!;
    assert.ok(copy !== undefined && copy !== original);
    assert.equal(copy.description, original.description);
    assert.equal(copy.inputSchema, original.inputSchema);
    assert.deepEqual(copy.sourceMetadata, { server: "git" });
    assert.equal(copy.invoke, original.invoke);
    assert.deepEqual((await copy.invoke({ a: 1 })).data, {
      called: "git/status",
      args: { a: 1 },
    });
  });

  it("keeps the prototype of a tool built from a class", async () => {
    class ClassTool implements RegisteredTool {
      name = "git/blame";
      description = "";
      inputSchema = { type: "object" };
      capability = { readOnly: false, writes: true };
      checkpointable = false as const;
      source = "mcp" as const;
      sourceMetadata = { server: "git" };
      invoke(): Promise<MCPToolResult> {
        return Promise.resolve({
          success: true,
          data: { from: this.name },
          error: null,
          durationMs: 0,
        });
      }
    }
    const tools = new ToolRegistry();
    tools.register(new ClassTool());
    const skill = parseSkill(
      'name: s\ntools: [git/blame]\noverrides: { "git/blame": { read_only: true } }\n',
    );
    const [copy] = skill.select(tools);
    assert.ok(copy instanceof ClassTool);
    assert.deepEqual(copy.capability, { readOnly: true, writes: false });
    assert.deepEqual((await copy.invoke()).data, { from: "git/blame" });
  });
});

describe("skill file errors", () => {
  it("gives file:line:column for YAML syntax errors", async () => {
    const path = fixturePath("configs/broken_skill.yaml");
    try {
      await loadSkill(path);
      assert.fail("loadSkill() did not throw");
    } catch (error) {
      assert.ok(error instanceof MCPConfigFileError, `got ${error}`);
      assert.equal(
        error.message,
        `${path}:5:2: bad indentation of a mapping entry`,
      );
      assert.equal(error.file, path);
      assert.equal(error.line, 5);
      assert.equal(error.column, 2);
      assert.equal(error.path, "");
    }
  });

  it("names the path of a bad field and what to write", () => {
    const cases: Array<[string, string]> = [
      [
        "name: s\ntools: [git/status, notes]\n",
        'skill.yaml:2:21: tools[1]: expected "namespace/tool" or a glob such as "notes/*"',
      ],
      [
        "name: s\ntools: []\n",
        'skill.yaml:2:1: tools: expected at least 1 entry; write e.g. ["notes/*"]',
      ],
      [
        "tools: [git/status]\n",
        'skill.yaml:1:1: missing "name"; write e.g. name: "notes-reader"',
      ],
      [
        "name: s\n",
        'skill.yaml:1:1: missing "tools"; write e.g. tools: ["notes/*"]',
      ],
      [
        "name: s\ntool: [git/status]\n",
        'skill.yaml:2:1: tool: unknown field (did you mean "tools"?); the fields are $schema, name, description, tools, overrides',
      ],
      [
        "name: s\ntools: git/status\n",
        'skill.yaml:2:1: tools: expected a list of strings, got a string; write e.g. ["notes/*"]',
      ],
      [
        'name: s\ntools: [git/*]\noverrides:\n  "git/*": { read_only: yes }\n',
        'skill.yaml:4:14: overrides["git/*"].read_only: expected true or false, got a string; write e.g. true',
      ],
      [
        'name: s\ntools: [git/*]\noverrides:\n  "git/*": { read_only: true, writes: true }\n',
        'skill.yaml:4:3: overrides["git/*"]: sets both read_only and writes to true, but a tool that writes is not read-only; keep one of them',
      ],
      [
        "name: s\ntools: [git/*]\noverrides:\n  status: { writes: true }\n",
        'skill.yaml:4:3: overrides.status: expected "namespace/tool" or a glob such as "notes/*"',
      ],
      [
        "- name: s\n",
        "skill.yaml:1:1: expected an object (a mapping), got a list",
      ],
      [
        "# nothing yet\n",
        'skill.yaml: the file is empty; write e.g. name: "notes-reader" and tools: ["notes/*"]',
      ],
    ];
    for (const [text, message] of cases) skillError(text, message);
  });

  it("reports a missing file", async () => {
    const path = fixturePath("configs/no_such_skill.yaml");
    await assert.rejects(loadSkill(path), (error) => {
      assert.ok(error instanceof MCPConfigFileError);
      assert.equal(
        error.message,
        `${path}: cannot read the file: it does not exist; check the path`,
      );
      return true;
    });
  });
});

describe("examples/skill.yaml", () => {
  it("selects the read tools of the notes server", async () => {
    const file = fileURLToPath(
      new URL("../../examples/skill.yaml", import.meta.url),
    );
    const skill: Skill = await loadSkill(file);
    const tools = new ToolRegistry();
    for (
      const name of [
        "notes/list_notes",
        "notes/search_notes",
        "notes/get_note",
        "notes/create_note",
        "notes/delete_note",
        "notes/word_count",
      ]
    ) {
      tools.register(tool(name));
    }
    const selected = skill.select(tools);
    assert.deepEqual(names(selected), [
      "notes/list_notes",
      "notes/search_notes",
      "notes/get_note",
      "notes/word_count",
    ]);
    for (const entry of selected) {
      assert.deepEqual(entry.capability, { readOnly: true, writes: false });
    }
  });
});

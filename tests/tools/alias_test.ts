import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPConfigError,
  type RegisteredTool,
  TOOL_ALIAS_PATTERN,
  toolAlias,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";

function tool(name: string): RegisteredTool {
  return {
    name,
    description: "",
    inputSchema: { type: "object" },
    capability: { readOnly: true, writes: false },
    checkpointable: false,
    source: "mcp",
    sourceMetadata: { server: name.split("/")[0] ?? "" },
    invoke: () =>
      Promise.resolve({
        success: true,
        data: { name },
        error: null,
        durationMs: 0,
      }),
  };
}

const HASHED = /_[0-9a-f]{8}$/;

const SAMPLES = [
  "github/get_issue",
  "everything/get-sum",
  "a.b/x",
  "a_b/x",
  "a/b__c",
  "a__b/c",
  "a_/b",
  "a/_b",
  "files/read file",
  "files/dir/read",
  "ünïcödé/tööl",
  "emoji/😀",
  "ns/tool_deadbeef",
  "",
  "/",
  "no_namespace",
  "no__namespace",
  `${"n".repeat(30)}/${"t".repeat(32)}`,
  `${"n".repeat(30)}/${"t".repeat(33)}`,
  `${"n".repeat(40)}/${"t".repeat(40)}`,
  `${"n".repeat(40)}/${"t".repeat(40)}x`,
  "x".repeat(500),
];

describe("toolAlias()", () => {
  it("always matches ^[a-zA-Z0-9_-]{1,64}$", () => {
    for (const name of SAMPLES) {
      const alias = toolAlias(name);
      assert.match(
        alias,
        TOOL_ALIAS_PATTERN,
        `alias of ${JSON.stringify(name)}`,
      );
      assert.match(alias, /^[a-zA-Z0-9_-]{1,64}$/);
    }
  });

  it("maps ns/tool to ns__tool when nothing is lost", () => {
    assert.equal(toolAlias("github/get_issue"), "github__get_issue");
    assert.equal(toolAlias("everything/get-sum"), "everything__get-sum");
    assert.equal(toolAlias("Git-Hub2/List_PRs"), "Git-Hub2__List_PRs");
  });

  it("is stable: the same name gives the same alias, including the hash", () => {
    for (const name of SAMPLES) assert.equal(toolAlias(name), toolAlias(name));
    // FNV-1a 32 of the UTF-8 bytes of "a.b/x", fixed so the alias never drifts.
    assert.equal(toolAlias("a.b/x"), "a_b__x_e080aab3");
  });

  it("adds a hash when a character was replaced, so a.b/x and a_b/x differ", () => {
    assert.equal(toolAlias("a_b/x"), "a_b__x");
    assert.match(toolAlias("a.b/x"), /^a_b__x_[0-9a-f]{8}$/);
    assert.notEqual(toolAlias("a.b/x"), toolAlias("a_b/x"));
    assert.notEqual(toolAlias("files/read file"), toolAlias("files/read_file"));
    assert.notEqual(toolAlias("files/dir/read"), toolAlias("files/dir_read"));
  });

  it("adds a hash when the __ separator would be ambiguous", () => {
    assert.equal(toolAlias("a/b__c"), "a__b__c");
    assert.match(toolAlias("a__b/c"), HASHED);
    assert.notEqual(toolAlias("a__b/c"), toolAlias("a/b__c"));
    assert.notEqual(toolAlias("a_/b"), toolAlias("a/_b"));
    assert.notEqual(toolAlias("a__b"), toolAlias("a/b"));
  });

  it("gives a name that looks hashed a hash of its own", () => {
    const hashed = toolAlias("a.b/x");
    const lookalike = `a_b/${hashed.slice("a_b__".length)}`;
    assert.equal(toolAlias(lookalike).length, hashed.length + 9);
    assert.notEqual(toolAlias(lookalike), hashed);
  });

  it("caps long names at 64 characters with a hash, keeping them distinct", () => {
    const fits = `${"n".repeat(30)}/${"t".repeat(32)}`; // alias: 30 + 2 + 32 = 64
    assert.equal(toolAlias(fits), fits.replace("/", "__"));
    assert.equal(toolAlias(fits).length, 64);
    const long = `${"n".repeat(30)}/${"t".repeat(33)}`;
    assert.equal(toolAlias(long).length, 64);
    assert.match(toolAlias(long), HASHED);
    const a = `${"n".repeat(40)}/${"t".repeat(40)}`;
    const b = `${a}x`;
    assert.equal(toolAlias(a).slice(0, 55), toolAlias(b).slice(0, 55));
    assert.notEqual(toolAlias(a), toolAlias(b));
  });

  it("gives every sample a distinct alias", () => {
    const aliases = new Map<string, string>();
    for (const name of SAMPLES) {
      const alias = toolAlias(name);
      assert.equal(
        aliases.get(alias),
        undefined,
        `${JSON.stringify(name)} and ${
          JSON.stringify(aliases.get(alias))
        } share ${alias}`,
      );
      aliases.set(alias, name);
    }
  });
});

describe("ToolRegistry aliases", () => {
  it("resolve() takes a name or its alias; aliasOf() round-trips", () => {
    const registry = new ToolRegistry();
    for (
      const name of ["github/get_issue", "a.b/x", "a_b/x", "files/dir/read"]
    ) {
      registry.register(tool(name));
    }
    for (const entry of registry.list()) {
      const alias = registry.aliasOf(entry.name);
      assert.equal(alias, toolAlias(entry.name));
      assert.equal(registry.resolve(alias!), entry);
      assert.equal(registry.resolve(entry.name), entry);
    }
    assert.equal(
      registry.resolve("github__get_issue")?.name,
      "github/get_issue",
    );
    assert.equal(registry.resolve("a_b__x")?.name, "a_b/x");
    assert.equal(registry.resolve("nope__nothing"), undefined);
    assert.equal(registry.aliasOf("nope/nothing"), undefined);
  });

  it("unregister() drops the alias too", () => {
    const registry = new ToolRegistry();
    registry.register(tool("git/status"));
    assert.ok(registry.resolve("git__status"));
    assert.equal(registry.unregister("git/status"), true);
    assert.equal(registry.resolve("git__status"), undefined);
    assert.equal(registry.aliasOf("git/status"), undefined);
  });

  it("replaceNamespace() swaps the namespace's aliases and leaves others alone", () => {
    const registry = new ToolRegistry();
    registry.register(tool("git/status"));
    registry.register(tool("github/get_issue"));
    registry.replaceNamespace("git", [tool("git/log")]);
    assert.equal(registry.resolve("git__status"), undefined);
    assert.equal(registry.resolve("git__log")?.name, "git/log");
    assert.equal(
      registry.resolve("github__get_issue")?.name,
      "github/get_issue",
    );
    registry.replaceNamespace("git", []);
    assert.equal(registry.resolve("git__log"), undefined);
  });

  it("refuses a tool whose alias another tool has, changing nothing", () => {
    // Two names that sanitize alike and share an FNV-1a hash (found by search).
    const first = "ns/t~:#.~.";
    const second = "ns/t+::.?!";
    assert.equal(toolAlias(first), toolAlias(second));
    const registry = new ToolRegistry();
    registry.register(tool(first));
    assert.throws(() => registry.register(tool(second)), (error: unknown) => {
      assert.ok(error instanceof MCPConfigError);
      assert.equal(error.field, "name");
      assert.match(error.message, /alias/);
      return true;
    });
    assert.throws(
      () =>
        registry.replaceNamespace("ns", [
          tool("ns/other"),
          tool(first),
          tool(second),
        ]),
      MCPConfigError,
    );
    assert.deepEqual(registry.list().map((entry) => entry.name), [first]);
    assert.equal(registry.resolve(toolAlias(first))?.name, first);
    // Replacing the namespace frees its aliases for the new list.
    registry.replaceNamespace("ns", [tool(second)]);
    assert.equal(registry.resolve(toolAlias(second))?.name, second);
    assert.equal(registry.resolve(first), undefined);
    // The same tool registered again is not a conflict.
    registry.register(tool(second));
    assert.equal(registry.size, 1);
  });

  it("register() errors are MCPConfigError for bad names, as before", () => {
    assert.throws(
      () => new ToolRegistry().register(tool("no-slash")),
      MCPConfigError,
    );
  });
});

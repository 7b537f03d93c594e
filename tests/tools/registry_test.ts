import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPConfigError,
  type RegisteredTool,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";

function tool(name: string, description = ""): RegisteredTool {
  return {
    name,
    description,
    inputSchema: { type: "object" },
    capability: { readOnly: true, writes: false },
    checkpointable: false,
    source: "mcp",
    sourceMetadata: { server: name.split("/")[0] ?? "" },
    invoke: (args) =>
      Promise.resolve({
        success: true,
        data: { name, args: args ?? null },
        error: null,
        durationMs: 0,
      }),
  };
}

function names(tools: readonly RegisteredTool[]): string[] {
  return tools.map((entry) => entry.name);
}

function assertConfigError(
  fn: () => void,
  field: string,
  message: RegExp,
): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof MCPConfigError);
    assert.equal(error.field, field);
    assert.match(error.message, message);
    return true;
  });
}

describe("ToolRegistry", () => {
  it("starts empty", () => {
    const registry = new ToolRegistry();
    assert.equal(registry.size, 0);
    assert.deepEqual(registry.list(), []);
    assert.equal(registry.get("a/b"), undefined);
    assert.equal(registry.has("a/b"), false);
  });

  it("register() stores a tool that get() and has() find by name", async () => {
    const registry = new ToolRegistry();
    const echo = tool("everything/echo");
    registry.register(echo);
    assert.equal(registry.size, 1);
    assert.equal(registry.has("everything/echo"), true);
    assert.equal(registry.has("echo"), false);
    assert.equal(registry.get("everything/echo"), echo);
    const result = await registry.get("everything/echo")?.invoke({ x: 1 });
    assert.deepEqual(result?.data, { name: "everything/echo", args: { x: 1 } });
  });

  it("list() returns tools in registration order, as a new array", () => {
    const registry = new ToolRegistry();
    registry.register(tool("b/two"));
    registry.register(tool("a/one"));
    registry.register(tool("c/three"));
    const listed = registry.list();
    assert.deepEqual(names(listed), ["b/two", "a/one", "c/three"]);
    listed.pop();
    assert.equal(registry.size, 3);
  });

  it("register() replaces a tool with the same name in place", () => {
    const registry = new ToolRegistry();
    registry.register(tool("s/a", "old"));
    registry.register(tool("s/b"));
    registry.register(tool("s/a", "new"));
    assert.equal(registry.size, 2);
    assert.equal(registry.get("s/a")?.description, "new");
    assert.deepEqual(names(registry.list()), ["s/a", "s/b"]);
  });

  it("unregister() removes a tool and reports whether it existed", () => {
    const registry = new ToolRegistry();
    registry.register(tool("s/a"));
    registry.register(tool("s/b"));
    assert.equal(registry.unregister("s/a"), true);
    assert.equal(registry.unregister("s/a"), false);
    assert.equal(registry.unregister("s/missing"), false);
    assert.equal(registry.has("s/a"), false);
    assert.deepEqual(names(registry.list()), ["s/b"]);
    assert.equal(registry.size, 1);
  });

  it("listNamespace() lists only the tools under exactly that namespace", () => {
    const registry = new ToolRegistry();
    registry.register(tool("git/status"));
    registry.register(tool("github/get_issue"));
    registry.register(tool("git/log"));
    registry.register(tool("gitx/y"));
    assert.deepEqual(names(registry.listNamespace("git")), [
      "git/status",
      "git/log",
    ]);
    assert.deepEqual(names(registry.listNamespace("github")), [
      "github/get_issue",
    ]);
    assert.deepEqual(registry.listNamespace("gi"), []);
    assert.deepEqual(registry.listNamespace("nothing"), []);
  });

  it("replaceNamespace() swaps a namespace's tools and leaves others alone", () => {
    const registry = new ToolRegistry();
    registry.register(tool("git/status"));
    registry.register(tool("github/get_issue"));
    registry.register(tool("git/log"));
    registry.register(tool("gitx/y"));
    const fresh = tool("git/diff");
    registry.replaceNamespace("git", [fresh, tool("git/status", "new")]);
    assert.deepEqual(names(registry.list()), [
      "github/get_issue",
      "gitx/y",
      "git/diff",
      "git/status",
    ]);
    assert.equal(registry.has("git/log"), false);
    assert.equal(registry.get("git/diff"), fresh);
    assert.equal(registry.get("git/status")?.description, "new");
    assert.equal(registry.size, 4);
  });

  it("replaceNamespace() with an empty list removes the namespace", () => {
    const registry = new ToolRegistry();
    registry.register(tool("git/status"));
    registry.register(tool("github/get_issue"));
    registry.replaceNamespace("git", []);
    assert.deepEqual(names(registry.list()), ["github/get_issue"]);
  });

  it("replaceNamespace() rejects a tool from another namespace and changes nothing", () => {
    const registry = new ToolRegistry();
    registry.register(tool("git/status"));
    assertConfigError(
      () =>
        registry.replaceNamespace("git", [tool("git/log"), tool("github/x")]),
      "namespace",
      /^Tool "github\/x" is not in namespace "git"; name it "git\/x"$/,
    );
    assert.deepEqual(names(registry.list()), ["git/status"]);
  });

  it("replaceNamespace() rejects an empty namespace or one containing /", () => {
    const registry = new ToolRegistry();
    assertConfigError(
      () => registry.replaceNamespace("", [tool("a/b")]),
      "namespace",
      /^Namespace must be a non-empty string without "\/", got ""/,
    );
    assertConfigError(
      () => registry.replaceNamespace("a/b", [tool("a/b/c")]),
      "namespace",
      /got "a\/b"; use the server's name/,
    );
  });

  it("register() rejects names that are not {namespace}/{tool}", () => {
    const registry = new ToolRegistry();
    for (
      const [name, shown] of [
        ["echo", '"echo"'],
        ["", '""'],
        ["/echo", '"/echo"'],
        ["server/", '"server/"'],
        [42, "42"],
        [undefined, "undefined"],
      ] as const
    ) {
      assertConfigError(
        () =>
          registry.register(
            { ...tool("x/y"), name } as unknown as RegisteredTool,
          ),
        "name",
        new RegExp(
          `^Tool name must be "\\{namespace\\}/\\{tool\\}" with both parts non-empty, got ${
            shown.replace(/[/]/g, "\\/")
          }; prefix the server's tool name with a namespace, e\\.g\\. "github/get_issue"$`,
        ),
      );
    }
    assert.equal(registry.size, 0);
  });

  it("register() accepts a tool name that itself contains /", () => {
    const registry = new ToolRegistry();
    registry.register(tool("files/dir/list"));
    assert.deepEqual(names(registry.listNamespace("files")), [
      "files/dir/list",
    ]);
  });

  it("register() rejects a value that is not a tool", () => {
    const registry = new ToolRegistry();
    assertConfigError(
      () => registry.register(null as unknown as RegisteredTool),
      "name",
      /must be an object with a "\{namespace\}\/\{tool\}" name, got null/,
    );
    assertConfigError(
      () =>
        registry.register(
          { ...tool("a/b"), invoke: "run" } as unknown as RegisteredTool,
        ),
      "invoke",
      /^Tool "a\/b" has no invoke function, got "run"$/,
    );
  });

  it("register() shortens a long bad name in the message", () => {
    const registry = new ToolRegistry();
    assert.throws(
      () => registry.register(tool("x".repeat(1000))),
      (error: unknown) => {
        assert.ok(error instanceof MCPConfigError);
        assert.ok(error.message.length < 300, `${error.message.length}`);
        assert.match(error.message, /got "x+…;/);
        return true;
      },
    );
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  applyCapabilityOverrides,
  type CapabilityOverrides,
  inferCapabilities,
  MCPConfigError,
  resolveCapability,
  type ToolAnnotations,
  type ToolCapability,
} from "@cleveragents/mcp-adapter";

const READS: ToolCapability = { readOnly: true, writes: false };
const WRITES: ToolCapability = { readOnly: false, writes: true };
const NEITHER: ToolCapability = { readOnly: false, writes: false };

describe("inferCapabilities()", () => {
  for (const keyword of ["read", "get", "list", "search", "find"]) {
    it(`marks a name with "${keyword}" read-only`, () => {
      assert.deepEqual(inferCapabilities(`${keyword}_thing`), READS);
      assert.deepEqual(inferCapabilities(keyword), READS);
    });
  }

  for (const keyword of ["write", "create", "update", "delete", "set"]) {
    it(`marks a name with "${keyword}" as writing`, () => {
      assert.deepEqual(inferCapabilities(`${keyword}_thing`), WRITES);
      assert.deepEqual(inferCapabilities(keyword), WRITES);
    });
  }

  it("lets a write keyword win over a read keyword, in either order", () => {
    assert.deepEqual(inferCapabilities("read_then_write"), WRITES);
    assert.deepEqual(inferCapabilities("update_and_get"), WRITES);
    assert.deepEqual(inferCapabilities("getOrCreateUser"), WRITES);
  });

  it("marks a name with no keyword as neither read-only nor writing", () => {
    assert.deepEqual(inferCapabilities("echo"), NEITHER);
    assert.deepEqual(
      inferCapabilities("trigger-long-running-operation"),
      NEITHER,
    );
    assert.deepEqual(inferCapabilities(""), NEITHER);
    assert.deepEqual(inferCapabilities("__--..//"), NEITHER);
  });

  it("splits camelCase and PascalCase words", () => {
    assert.deepEqual(inferCapabilities("getUser"), READS);
    assert.deepEqual(inferCapabilities("userGet"), READS);
    assert.deepEqual(inferCapabilities("DeleteFile"), WRITES);
    assert.deepEqual(inferCapabilities("fileDelete"), WRITES);
  });

  it("splits an acronym from the capitalised word after it", () => {
    assert.deepEqual(inferCapabilities("HTTPGetRequest"), READS);
    assert.deepEqual(inferCapabilities("XMLSetter"), NEITHER);
    assert.deepEqual(inferCapabilities("APISet"), WRITES);
    assert.deepEqual(inferCapabilities("GET_USER"), READS);
    assert.deepEqual(inferCapabilities("SETTINGS"), NEITHER);
  });

  it("splits on kebab-case, dots, slashes and whitespace", () => {
    assert.deepEqual(inferCapabilities("get-sum"), READS);
    assert.deepEqual(inferCapabilities("files.delete"), WRITES);
    assert.deepEqual(inferCapabilities("repo/list"), READS);
    assert.deepEqual(inferCapabilities("search issues"), READS);
    assert.deepEqual(inferCapabilities("issues\tcreate"), WRITES);
  });

  it("splits letters from digits", () => {
    assert.deepEqual(inferCapabilities("get2fa"), READS);
    assert.deepEqual(inferCapabilities("v2set"), WRITES);
    assert.deepEqual(inferCapabilities("s3Read"), READS);
  });

  it("ignores keywords inside other words", () => {
    for (
      const name of [
        "settings",
        "reset",
        "target",
        "thread",
        "listing",
        "finder",
        "updater",
        "readme",
        "offset",
        "gadget",
        "researcher",
        "show_settings",
        "resetPassword",
        "targetInfo",
      ]
    ) {
      assert.deepEqual(inferCapabilities(name), NEITHER, name);
    }
  });

  it("compares words case-insensitively", () => {
    assert.deepEqual(inferCapabilities("LIST"), READS);
    assert.deepEqual(inferCapabilities("Create"), WRITES);
  });

  it("treats letters with accents as part of the word", () => {
    assert.deepEqual(inferCapabilities("réset"), NEITHER);
    assert.deepEqual(inferCapabilities("getÜbersicht"), READS);
  });

  it("returns a new object on every call", () => {
    const first = inferCapabilities("get_user");
    first.writes = true;
    assert.deepEqual(inferCapabilities("get_user"), READS);
  });
});

describe("resolveCapability()", () => {
  it("uses the name alone when there are no annotations or overrides", () => {
    assert.deepEqual(resolveCapability("get_user"), READS);
    assert.deepEqual(resolveCapability("echo"), NEITHER);
  });

  it("takes readOnlyHint: true when the name is silent", () => {
    assert.deepEqual(
      resolveCapability("echo", { annotations: { readOnlyHint: true } }),
      READS,
    );
  });

  it("takes readOnlyHint: false as writing when the name is silent", () => {
    assert.deepEqual(
      resolveCapability("echo", { annotations: { readOnlyHint: false } }),
      WRITES,
    );
  });

  it("ignores readOnlyHint when the name has a keyword", () => {
    assert.deepEqual(
      resolveCapability("delete_file", { annotations: { readOnlyHint: true } }),
      WRITES,
    );
    assert.deepEqual(
      resolveCapability("get_file", { annotations: { readOnlyHint: false } }),
      READS,
    );
  });

  it("ignores a readOnlyHint that is not a boolean", () => {
    const annotations = { readOnlyHint: "yes" } as unknown as ToolAnnotations;
    assert.deepEqual(resolveCapability("echo", { annotations }), NEITHER);
  });

  it("always takes destructiveHint: true as writing", () => {
    assert.deepEqual(
      resolveCapability("get_file", { annotations: { destructiveHint: true } }),
      WRITES,
    );
    assert.deepEqual(
      resolveCapability("echo", {
        annotations: { readOnlyHint: true, destructiveHint: true },
      }),
      WRITES,
    );
  });

  it("ignores destructiveHint: false", () => {
    assert.deepEqual(
      resolveCapability("get_file", {
        annotations: { destructiveHint: false },
      }),
      READS,
    );
  });

  it("applies overrides after the annotations", () => {
    assert.deepEqual(
      resolveCapability("echo", {
        annotations: { destructiveHint: true },
        overrides: { echo: { readOnly: true } },
      }),
      READS,
    );
    assert.deepEqual(
      resolveCapability("get_file", {
        overrides: { "get_*": { writes: true } },
      }),
      WRITES,
    );
  });
});

describe("applyCapabilityOverrides()", () => {
  it("applies an entry for the exact name", () => {
    assert.deepEqual(
      applyCapabilityOverrides("echo", NEITHER, { echo: { readOnly: true } }),
      READS,
    );
  });

  it("leaves the capability alone when no key matches", () => {
    assert.deepEqual(
      applyCapabilityOverrides("echo", READS, {
        other: { writes: true },
        "x*": { writes: true },
      }),
      READS,
    );
  });

  it("applies a matching glob", () => {
    const overrides: CapabilityOverrides = { "*_preview": { readOnly: true } };
    assert.deepEqual(
      applyCapabilityOverrides("set_preview", WRITES, overrides),
      READS,
    );
    assert.deepEqual(
      applyCapabilityOverrides("preview_set", WRITES, overrides),
      WRITES,
    );
  });

  it("lets the exact name win over a glob, whatever the key order", () => {
    const exactFirst: CapabilityOverrides = {
      set_preview: { writes: true },
      "*_preview": { readOnly: true },
    };
    const globFirst: CapabilityOverrides = {
      "*_preview": { readOnly: true },
      set_preview: { writes: true },
    };
    assert.deepEqual(
      applyCapabilityOverrides("set_preview", NEITHER, exactFirst),
      WRITES,
    );
    assert.deepEqual(
      applyCapabilityOverrides("set_preview", NEITHER, globFirst),
      WRITES,
    );
  });

  it("applies matching globs in insertion order, the later one winning", () => {
    assert.deepEqual(
      applyCapabilityOverrides("get_secret", NEITHER, {
        "get_*": { readOnly: true },
        "*_secret": { writes: true },
      }),
      WRITES,
    );
    assert.deepEqual(
      applyCapabilityOverrides("get_secret", NEITHER, {
        "*_secret": { writes: true },
        "get_*": { readOnly: true },
      }),
      READS,
    );
  });

  it("treats characters other than * in a glob literally", () => {
    assert.deepEqual(
      applyCapabilityOverrides("aXb", NEITHER, { "a.b*": { writes: true } }),
      NEITHER,
    );
    assert.deepEqual(
      applyCapabilityOverrides("a.b_c", NEITHER, { "a.b*": { writes: true } }),
      WRITES,
    );
  });

  it("makes readOnly: true imply writes: false", () => {
    assert.deepEqual(
      applyCapabilityOverrides("x", WRITES, { x: { readOnly: true } }),
      READS,
    );
  });

  it("makes writes: true imply readOnly: false", () => {
    assert.deepEqual(
      applyCapabilityOverrides("x", READS, { x: { writes: true } }),
      WRITES,
    );
  });

  it("changes only the given field when it is set to false", () => {
    assert.deepEqual(
      applyCapabilityOverrides("x", READS, { x: { readOnly: false } }),
      NEITHER,
    );
    assert.deepEqual(
      applyCapabilityOverrides("x", WRITES, { x: { writes: false } }),
      NEITHER,
    );
    assert.deepEqual(
      applyCapabilityOverrides("x", WRITES, { x: { readOnly: false } }),
      WRITES,
    );
  });

  it("uses both fields as given when an entry sets both", () => {
    assert.deepEqual(
      applyCapabilityOverrides("x", WRITES, {
        x: { readOnly: true, writes: false },
      }),
      READS,
    );
    assert.deepEqual(
      applyCapabilityOverrides("x", READS, {
        x: { readOnly: false, writes: false },
      }),
      NEITHER,
    );
  });

  it("returns a new object and never mutates its inputs", () => {
    const capability = { readOnly: false, writes: true };
    const overrides = { x: { readOnly: true } };
    const result = applyCapabilityOverrides("x", capability, overrides);
    assert.notEqual(result, capability);
    assert.deepEqual(capability, { readOnly: false, writes: true });
    assert.deepEqual(overrides, { x: { readOnly: true } });
    const untouched = applyCapabilityOverrides("y", capability, overrides);
    assert.notEqual(untouched, capability);
    assert.deepEqual(untouched, capability);
  });

  it("rejects an entry that sets both fields to true", () => {
    assert.throws(
      () =>
        applyCapabilityOverrides("x", NEITHER, {
          x: { readOnly: true, writes: true },
        }),
      (error: unknown) => {
        assert.ok(error instanceof MCPConfigError);
        assert.equal(error.field, "overrides");
        assert.match(
          error.message,
          /overrides\["x"\] sets both readOnly and writes/,
        );
        return true;
      },
    );
  });

  it("rejects a matching entry with a non-boolean value or an unknown key", () => {
    const stringValue = {
      x: { writes: "yes" },
    } as unknown as CapabilityOverrides;
    assert.throws(() => applyCapabilityOverrides("x", NEITHER, stringValue), {
      name: "MCPConfigError",
      message:
        'overrides["x"].writes must be true or false, got "yes"; write true or false without quotes',
    });
    const snakeCase = {
      "x*": { read_only: true },
    } as unknown as CapabilityOverrides;
    assert.throws(() => applyCapabilityOverrides("xy", NEITHER, snakeCase), {
      name: "MCPConfigError",
      message:
        'overrides["x*"] has an unknown key "read_only"; write readOnly and/or writes',
    });
    const notObject = { x: true } as unknown as CapabilityOverrides;
    assert.throws(() => applyCapabilityOverrides("x", NEITHER, notObject), {
      name: "MCPConfigError",
      message:
        'overrides["x"] must be an object, got true; write { readOnly: true } or { writes: true }',
    });
  });

  it("does not check entries that do not match the tool", () => {
    const broken = {
      other: { writes: "yes" },
    } as unknown as CapabilityOverrides;
    assert.deepEqual(applyCapabilityOverrides("x", READS, broken), READS);
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SDK_RANGE, sdkSpecifier } from "../../src/transports/_oauth/flow.ts";

describe("where the OAuth flow loads the MCP SDK from", () => {
  it("an npm: specifier of the range deno.json maps on Deno, the package elsewhere", () => {
    if ("Deno" in globalThis) {
      assert.equal(
        sdkSpecifier(),
        `npm:@modelcontextprotocol/sdk@${SDK_RANGE}/client/auth.js`,
      );
      const config = JSON.parse(
        readFileSync(
          fileURLToPath(new URL("../../deno.json", import.meta.url)),
          "utf8",
        ),
      );
      assert.equal(
        config.imports["@modelcontextprotocol/sdk/"],
        `npm:/@modelcontextprotocol/sdk@${SDK_RANGE}/`,
        "flow.ts's SDK_RANGE follows deno.json",
      );
    } else {
      assert.equal(sdkSpecifier(), "@modelcontextprotocol/sdk/client/auth.js");
    }
  });
});

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  loadBackend,
  UNAVAILABLE_MESSAGE,
} from "../../src/transports/_process/unavailable.ts";
import { loadBackend as loadRuntimeBackend } from "../../src/transports/_process/loader.ts";

describe("the stdio process backends", () => {
  it("the one edge and browser bundles get rejects, saying to use an HTTP transport", async () => {
    await assert.rejects(loadBackend(), (error: Error) => {
      assert.equal(error.message, UNAVAILABLE_MESSAGE);
      assert.match(error.message, /cannot start processes/);
      assert.match(error.message, /streamable HTTP or SSE/);
      return true;
    });
  });

  it("the loader gives Deno and Node.js their own backend", async () => {
    const backend = await loadRuntimeBackend();
    assert.equal(typeof backend.spawn, "function");
  });
});

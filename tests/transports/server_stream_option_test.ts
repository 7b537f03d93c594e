/**
 * `serverStream: false`: an adapter that lives for one request (a Worker's)
 * does not open the GET stream of a 2025-era session only to tear it down.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
import { sdkStreamableServer } from "../_remote.ts";
import { waitFor } from "../_helpers.ts";

describe("the serverStream option of streamable HTTP", () => {
  it("false: a session's requests go out, its GET stream does not; by default it does", async () => {
    const server = await sdkStreamableServer();
    try {
      const oneShot = new MCPToolAdapter(
        { name: "one", transport: "streamable-http", url: server.url },
        { serverStream: false },
      );
      await oneShot.connect();
      assert.equal(oneShot.serverInfo?.era, "legacy");
      const called = await oneShot.invoke("echo", { message: "hi" });
      assert.equal(called.success, true, called.error ?? "");
      await oneShot.disconnect();
      assert.deepEqual(
        server.requests.filter((request) => request.method === "GET"),
        [],
        "no GET stream was opened",
      );
      const lasting = new MCPToolAdapter({
        name: "two",
        transport: "streamable-http",
        url: server.url,
      });
      await lasting.connect();
      // The default: the stream for server messages opens after initialize.
      assert.ok(
        await waitFor(
          () => server.requests.some((request) => request.method === "GET"),
          10_000,
        ),
        "the default opens the GET stream",
      );
      await lasting.disconnect();
    } finally {
      await server.close();
    }
  });
});

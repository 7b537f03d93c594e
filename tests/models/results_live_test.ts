/**
 * What each model API is sent of real servers' results, over stdio:
 * server-everything's mixed-content tools and its large result (`get-env`
 * with 360 KB of environment), and the SDK test server's
 * `structuredContent` + `outputSchema` tools and a 10 MB text. Per
 * provider: the model's share is within the result budget and holds one
 * representation of each datum; `run()` gives the host the whole result.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPToolAdapter,
  type MCPToolResult,
  ToolRegistry,
} from "@cleveragents/mcp-adapter";
import { modelTools } from "@cleveragents/mcp-adapter/models";
import { everythingCommand } from "../_everything.ts";
import { sdkServerCommand } from "../_helpers.ts";
import {
  callOf,
  occurrences,
  PROVIDERS,
  shareOf,
  utf8Bytes,
} from "./_share.ts";

/** Six environment variables of 60,000 characters: `get-env` answers 360 KB. */
const BIG_ENV = Object.fromEntries(
  Array.from(
    { length: 6 },
    (_, index) => [`BIG_${index}`, `${index}`.repeat(60_000)],
  ),
);
const TEN_MB = 10 * 1024 * 1024;
/** The default budget: 25,000 tokens, 100,000 bytes. */
const BUDGET_BYTES = 100_000;

const textOf = (result: MCPToolResult | undefined) =>
  (result?.data.content ?? []).flatMap((block) =>
    block.type === "text" ? [block.text] : []
  ).join("");

describe("results of real servers, per provider", { timeout: 180_000 }, () => {
  const registry = new ToolRegistry();
  const adapters: MCPToolAdapter[] = [];

  before(async () => {
    const everything = everythingCommand("stdio");
    adapters.push(
      new MCPToolAdapter({
        name: "everything",
        transport: "stdio",
        ...everything,
        env: BIG_ENV,
      }),
      new MCPToolAdapter({
        name: "sdk",
        transport: "stdio",
        ...sdkServerCommand,
      }),
    );
    for (const adapter of adapters) {
      await adapter.connect({ timeoutMs: 60_000 });
      await adapter.registerTools(registry);
    }
  });
  after(async () => {
    for (const adapter of adapters) await adapter.disconnect();
  });

  for (const provider of PROVIDERS) {
    it(`${provider}: server-everything's mixed content, one representation each, images native`, async () => {
      const tools = modelTools(registry, provider);
      const share = async (name: string, args: Record<string, unknown>) => {
        const run = await tools.run(callOf(provider, name, args));
        assert.ok(utf8Bytes(run.text) <= BUDGET_BYTES);
        return { run, share: shareOf(provider, run.message) };
      };
      const annotated = await share("everything__get-annotated-message", {
        messageType: "error",
        includeImage: true,
      });
      // Chat Completions' tool messages take text only: the image follows.
      assert.equal(
        annotated.share.text,
        provider === "openai-chat"
          ? "Error: Operation failed\n\n(1 image(s) follow in the next user message.)"
          : "Error: Operation failed",
      );
      assert.deepEqual(annotated.share.images, ["image/png"]);

      const links = await share("everything__get-resource-links", { count: 3 });
      assert.equal(occurrences(links.share.text, "Resource link: "), 3);

      const blob = await share("everything__get-resource-reference", {
        resourceType: "Blob",
        resourceId: 2,
      });
      // A text/plain blob is read as text.
      assert.match(
        blob.share.text,
        /Resource <demo:\/\/resource\/dynamic\/blob\/2>:\nResource 2: This is a base64 blob created at /,
      );

      const gzip = await share("everything__gzip-file-as-resource", {
        name: "notes.gz",
        data: `data:text/plain;base64,${btoa("note ".repeat(50_000))}`,
        outputType: "resource",
      });
      const blockOf = gzip.run.result?.data.content?.[0];
      assert.equal(blockOf?.type, "resource");
      assert.match(
        gzip.share.text,
        /^\[resource <demo:\/\/resource\/session\/notes\.gz> omitted: application\/gzip, [\d,]+ bytes; the model cannot be given it here\]$/,
      );

      const weather = await share("everything__get-structured-content", {
        location: "Chicago",
      });
      assert.equal(occurrences(weather.share.text, "Light rain / drizzle"), 1);
      assert.deepEqual(
        weather.run.result?.data.structuredContent,
        { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 },
      );
      if (provider.startsWith("gemini")) {
        assert.deepEqual(
          weather.share.json,
          weather.run.result?.data.structuredContent,
        );
      }
    });

    it(`${provider}: server-everything's large result (get-env, 360 KB) is cut to the budget; the host keeps it whole`, async () => {
      const tools = modelTools(registry, provider);
      const run = await tools.run(callOf(provider, "everything__get-env", {}));
      const share = shareOf(provider, run.message);
      assert.ok(
        utf8Bytes(share.text) <= BUDGET_BYTES,
        `${utf8Bytes(share.text)} bytes`,
      );
      assert.match(share.text, /characters cut here to fit the context/);
      const whole = textOf(run.result);
      assert.ok(whole.length > 360_000);
      for (const value of Object.values(BIG_ENV)) {
        assert.ok(whole.includes(value));
      }
      assert.equal(run.cut?.totalChars, whole.length);
      assert.ok(share.text.startsWith(whole.slice(0, 1_000)));
      assert.ok(share.text.endsWith(whole.slice(-1_000)));
    });

    it(`${provider}: an SDK server's structuredContent + outputSchema is sent once; a 10 MB text within the budget`, async () => {
      const tools = modelTools(registry, provider);
      const add = await tools.run(callOf(provider, "sdk__add", { a: 2, b: 3 }));
      assert.deepEqual(add.result?.data.structuredContent, { sum: 5 });
      assert.equal(shareOf(provider, add.message).text, "5", "content wins");

      const stats = await tools.run(callOf(provider, "sdk__stats", {}));
      const statsShare = shareOf(provider, stats.message);
      assert.equal(statsShare.text, '{"count":2,"names":["alpha","beta"]}');
      if (provider.startsWith("gemini")) {
        assert.deepEqual(statsShare.json, {
          count: 2,
          names: ["alpha", "beta"],
        });
      }

      const long = await tools.run(
        callOf(provider, "sdk__long_text", { bytes: TEN_MB }),
      );
      const share = shareOf(provider, long.message);
      assert.ok(
        utf8Bytes(share.text) <= BUDGET_BYTES,
        `${utf8Bytes(share.text)} bytes`,
      );
      assert.ok(share.text.startsWith("FIRST LINE\nline 00000001: "));
      assert.ok(share.text.endsWith("LAST LINE"));
      assert.equal(occurrences(share.text, "characters cut here"), 1);
      const whole = textOf(long.result);
      assert.equal(
        whole.length,
        TEN_MB,
        "the host's share is the whole result",
      );
      assert.ok(
        whole.startsWith("FIRST LINE\n") && whole.endsWith("LAST LINE"),
      );
      assert.deepEqual(long.cut, {
        totalChars: TEN_MB,
        shownChars: long.cut!.shownChars,
        omittedImages: 0,
      });
      assert.ok(long.cut!.shownChars < BUDGET_BYTES);
    });
  }
});

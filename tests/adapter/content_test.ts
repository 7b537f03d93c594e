/**
 * Resources, templates, prompts, completion and change notices against
 * real servers of both eras: server-everything (2025-11-25) over stdio and
 * streamable HTTP, its listings checked against the official SDK client's,
 * and the SDK v2 modern-only server (2026-07-28, `tests/_modern.ts`) over
 * stdio and HTTP, which lists in pages.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type MCPListKind,
  type MCPServerConfig,
  MCPToolAdapter,
} from "@cleveragents/mcp-adapter";
import { everythingCommand } from "../_everything.ts";
import {
  type ModernHttpServer,
  modernStdioCommand,
  startModernHttp,
} from "../_modern.ts";
import { BIG_BLOB_BYTES, DOCUMENTS } from "../_modern_content.ts";
import { type EverythingServer, startEverything } from "../_remote.ts";

const TEST_MS = 60_000;

/** One server to test against. */
interface Peer {
  name: string;
  era: "legacy" | "modern";
  /** Starts the server (HTTP) and returns its config, and how to stop it. */
  start(): Promise<{ config: MCPServerConfig; stop(): Promise<void> }>;
  /** The official SDK client's own listing of it (2025-era servers). */
  oracle?: (config: MCPServerConfig) => Promise<SdkListing>;
}

interface SdkListing {
  resources: string[];
  prompts: string[];
}

/** What the SDK v1 client lists on a server: the oracle for our listing. */
async function sdkListing(config: MCPServerConfig): Promise<SdkListing> {
  const client = new Client({ name: "oracle", version: "1.0.0" });
  await client.connect(
    config.transport === "stdio"
      ? new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        stderr: "ignore",
      })
      : new StreamableHTTPClientTransport(new URL(config.url)),
  );
  try {
    return {
      resources: (await client.listResources()).resources.map((
        r: { uri: string },
      ) => r.uri),
      prompts: (await client.listPrompts()).prompts.map((p: { name: string }) =>
        p.name
      ),
    };
  } finally {
    await client.close();
  }
}

const PEERS: Peer[] = [
  {
    name: "server-everything over stdio",
    era: "legacy",
    start: () =>
      Promise.resolve({
        config: {
          name: "everything",
          transport: "stdio",
          ...everythingCommand("stdio"),
        },
        stop: () => Promise.resolve(),
      }),
    oracle: sdkListing,
  },
  {
    name: "server-everything over streamable HTTP",
    era: "legacy",
    start: async () => {
      const server: EverythingServer = await startEverything("streamableHttp");
      return {
        config: {
          name: "everything",
          transport: "streamable-http",
          url: `${server.origin}/mcp`,
        },
        stop: () => server.stop(),
      };
    },
    oracle: sdkListing,
  },
  {
    name: "the SDK v2 modern-only server over stdio",
    era: "modern",
    start: () =>
      Promise.resolve({
        config: {
          name: "modern",
          transport: "stdio",
          ...modernStdioCommand("reject"),
        },
        stop: () => Promise.resolve(),
      }),
  },
  {
    name: "the SDK v2 modern-only server over streamable HTTP",
    era: "modern",
    start: async () => {
      const server: ModernHttpServer = await startModernHttp("reject");
      return {
        config: {
          name: "modern",
          transport: "streamable-http",
          url: server.url,
        },
        stop: () => server.close(),
      };
    },
  },
];

/** What each kind of server offers, as these tests use it. */
const OFFER = {
  legacy: {
    template: "demo://resource/dynamic/text/{resourceId}",
    variables: { resourceId: "3" },
    read: /^Resource 3: This is a plaintext resource/,
    blobTemplate: "demo://resource/dynamic/blob/{resourceId}",
    prompt: {
      name: "args-prompt",
      args: { city: "Paris" },
      arguments: [["city", true], ["state", false]],
    },
    said: /What's weather in Paris\?/,
    completion: {
      ref: { type: "ref/prompt", name: "completable-prompt" } as const,
      argument: { name: "department", value: "En" },
      values: ["Engineering"],
    },
    templateCompletion: { name: "resourceId", value: "4", values: ["4"] },
  },
  modern: {
    template: "fixture://items/{id}",
    variables: { id: "3" },
    read: /^item 3$/,
    blobTemplate: undefined,
    prompt: {
      name: "greet",
      args: { name: "Ada", style: "formal" },
      arguments: [["name", true], ["style", false]],
    },
    said: /^Good day, Ada!$/,
    completion: {
      ref: { type: "ref/prompt", name: "greet" } as const,
      argument: { name: "name", value: "A" },
      values: ["Ada", "Alan"],
    },
    templateCompletion: { name: "id", value: "1", values: ["1", "10"] },
  },
};

for (const peer of PEERS) {
  describe(`resources and prompts: ${peer.name}`, () => {
    let stop: () => Promise<void> = () => Promise.resolve();
    let config: MCPServerConfig;
    let adapter: MCPToolAdapter;
    const errors: Error[] = [];
    const offer = OFFER[peer.era];
    before(async () => {
      ({ config, stop } = await peer.start());
      adapter = new MCPToolAdapter(config, {
        onError: (error) => void errors.push(error),
      });
      await adapter.connect({ timeoutMs: 45_000 });
      assert.equal(adapter.serverInfo?.era, peer.era);
    });
    after(async () => {
      await adapter?.disconnect();
      await stop();
    });

    it("lists every resource, across pages", { timeout: TEST_MS }, async () => {
      const uris = (await adapter.listResources()).map((r) => r.uri);
      if (peer.oracle) {
        const oracle = await peer.oracle(config);
        assert.deepEqual([...uris].sort(), [...oracle.resources].sort());
        assert.ok(uris.length >= 5, JSON.stringify(uris));
      } else {
        // Seven documents and a blob, served three to a page.
        assert.deepEqual(uris, [
          ...Array.from(
            { length: DOCUMENTS },
            (_, i) => `fixture://doc/${i + 1}`,
          ),
          "fixture://blob/big",
        ]);
      }
      for (const resource of await adapter.listResources()) {
        assert.equal(typeof resource.name, "string");
      }
    });

    it("lists the templates with their variables, and reads one expanded", {
      timeout: TEST_MS,
    }, async () => {
      const templates = await adapter.listResourceTemplates();
      const template = templates.find((t) => t.uriTemplate === offer.template);
      assert.ok(template, JSON.stringify(templates));
      assert.deepEqual(template.variables, Object.keys(offer.variables));
      const read = await adapter.readResource(offer.template, {
        variables: offer.variables,
      });
      assert.ok(read.success, read.error ?? "");
      assert.equal(
        read.data.uri,
        offer.template.replace(/\{\w+\}/, Object.values(offer.variables)[0]!),
      );
      assert.match(read.data.contents[0]?.text ?? "", offer.read);
      // The variables are checked before any request.
      const unknown = await adapter.readResource(offer.template, {
        variables: { ...offer.variables, page: "2" },
      });
      assert.equal(unknown.errorKind, "validation");
      assert.match(unknown.error ?? "", /no variable "page"/);
      const missing = await adapter.readResource(offer.template, {
        variables: {},
      });
      assert.equal(missing.errorKind, "validation");
      const notListed = await adapter.readResource("demo://nowhere/{x}", {
        variables: { x: "1" },
      });
      assert.equal(notListed.errorKind, "not_found");
    });

    it("reads a blob within its cap, and refuses it past the cap", {
      timeout: TEST_MS,
    }, async () => {
      const [uri, variables] = offer.blobTemplate
        ? [offer.blobTemplate, { resourceId: "7" }]
        : ["fixture://blob/big", undefined];
      const read = await adapter.readResource(uri, {
        ...(variables ? { variables } : {}),
      });
      assert.ok(read.success, read.error ?? "");
      const blob = read.data.contents[0]?.blob;
      assert.ok(blob !== undefined, JSON.stringify(read.data));
      const size = atob(blob).length;
      if (!offer.blobTemplate) assert.equal(size, BIG_BLOB_BYTES);
      const exact = await adapter.readResource(uri, {
        ...(variables ? { variables } : {}),
        maxBytes: size,
      });
      assert.ok(exact.success, exact.error ?? "");
      const refused = await adapter.readResource(uri, {
        ...(variables ? { variables } : {}),
        maxBytes: size - 1,
      });
      assert.equal(refused.success, false);
      assert.equal(refused.errorKind, "server_error");
      assert.match(refused.error ?? "", /larger than maxBytes \(\d+ bytes\)/);
    });

    it("a read of a resource it does not have is not_found", {
      timeout: TEST_MS,
    }, async () => {
      const read = await adapter.readResource(
        peer.era === "legacy"
          ? "demo://resource/static/document/nope.md"
          : "fixture://doc/999",
      );
      assert.equal(read.success, false);
      assert.equal(read.errorKind, "not_found", read.error ?? "");
    });

    it("a subscription sees the server's update", {
      timeout: TEST_MS,
    }, async () => {
      const uri = peer.era === "legacy"
        ? (await adapter.listResources())[0]!.uri
        : "fixture://doc/2";
      const updated = Promise.withResolvers<string>();
      const unsubscribe = await adapter.subscribeResource(
        uri,
        (changed) => updated.resolve(changed),
      );
      try {
        const poked = peer.era === "legacy"
          // Sends an update for every subscribed URI at once, then every 5 s.
          ? await adapter.invoke("toggle-subscriber-updates", {})
          : await adapter.invoke("touch", { uri });
        assert.ok(poked.success, poked.error ?? "");
        assert.equal(await updated.promise, uri);
      } finally {
        await unsubscribe();
      }
    });

    it("lists every prompt with its arguments and gets one", {
      timeout: TEST_MS,
    }, async () => {
      const prompts = await adapter.listPrompts();
      const names = prompts.map((p) => p.name);
      if (peer.oracle) {
        assert.deepEqual(names, (await peer.oracle(config)).prompts);
      } else {
        // Five prompts, served three to a page.
        assert.deepEqual(names, [
          "greet",
          "review",
          "plain_1",
          "plain_2",
          "plain_3",
        ]);
      }
      const prompt = prompts.find((p) => p.name === offer.prompt.name)!;
      assert.deepEqual(
        prompt.arguments.map((a) => [a.name, a.required]),
        offer.prompt.arguments,
      );
      const got = await adapter.getPrompt(offer.prompt.name, offer.prompt.args);
      assert.ok(got.success, got.error ?? "");
      const [message] = got.data.messages;
      assert.equal(message?.role, "user");
      assert.equal(message?.content.type, "text");
      assert.match(
        message?.content.type === "text" ? message.content.text : "",
        offer.said,
      );
    });

    it("gets every prompt, each with its required arguments", {
      timeout: TEST_MS,
    }, async () => {
      for (const prompt of await adapter.listPrompts()) {
        const args = Object.fromEntries(
          prompt.arguments.filter((a) => a.required).map((a) => [
            a.name,
            // Values every prompt of both servers accepts.
            a.name === "resourceType"
              ? "Text"
              : a.name === "department"
              ? "Sales"
              : "1",
          ]),
        );
        const got = await adapter.getPrompt(prompt.name, args);
        assert.ok(got.success, `${prompt.name}: ${got.error}`);
        assert.ok(got.data.messages.length > 0, prompt.name);
      }
    });

    it("checks a prompt's arguments before the call", {
      timeout: TEST_MS,
    }, async () => {
      const { name, args } = offer.prompt;
      const required = Object.keys(args)[0]!;
      const missing = await adapter.getPrompt(name, {});
      assert.equal(missing.errorKind, "validation");
      assert.match(
        missing.error ?? "",
        new RegExp(`needs the argument "${required}"`),
      );
      const unknown = await adapter.getPrompt(name, { ...args, mood: "x" });
      assert.equal(unknown.errorKind, "validation");
      assert.match(unknown.error ?? "", /has no argument "mood"/);
      const typed = await adapter.getPrompt(name, {
        ...args,
        [required]: 3 as unknown as string,
      });
      assert.equal(typed.errorKind, "validation");
      const none = await adapter.getPrompt("no-such-prompt");
      assert.equal(none.errorKind, "not_found");
    });

    it("completion answers for a prompt's argument and a template's variable", {
      timeout: TEST_MS,
    }, async () => {
      const { ref, argument, values } = offer.completion;
      const done = await adapter.complete(ref, argument);
      assert.ok(done.success, done.error ?? "");
      assert.deepEqual(done.data.values, values);
      const variable = offer.templateCompletion;
      const filled = await adapter.complete(
        { type: "ref/resource", uri: offer.template },
        { name: variable.name, value: variable.value },
      );
      assert.ok(filled.success, filled.error ?? "");
      assert.deepEqual(filled.data.values, variable.values);
      const wrong = await adapter.complete(ref, { name: "nope", value: "" });
      assert.equal(wrong.errorKind, "validation");
    });

    it("a change to the resource list is told, and the next listing has it", {
      timeout: TEST_MS,
    }, async () => {
      const before = await adapter.listResources();
      const told = Promise.withResolvers<MCPListKind>();
      const off = adapter.onListChanged((kind) => told.resolve(kind));
      try {
        const added = peer.era === "legacy"
          // Registers a session resource; the SDK announces the change.
          ? await adapter.invoke("gzip-file-as-resource", {
            name: "added.gz",
            data: "data:text/plain;base64,aGVsbG8=",
          })
          : await adapter.invoke("add_document", {
            name: `new-${peer.name.length}`,
          });
        assert.ok(added.success, added.error ?? "");
        assert.equal(await told.promise, "resources");
      } finally {
        off();
      }
      const after = await adapter.listResources();
      assert.equal(after.length, before.length + 1);
    });
  });
}

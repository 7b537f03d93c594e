/**
 * Telemetry as users read it, against hostile servers and healthy ones:
 * no secret a server echoes reaches any span, event or metric; arguments
 * that are not JSON still give the documented envelope and an ended span;
 * a server's message of several lines is one line in a span's status;
 * and what is not an error — the probe that finds a 2025-era server, a
 * cancel the client asked for — is not recorded as one, in spans, metrics
 * or `--trace`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import {
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";
import {
  type Cleanup,
  releaseAfterEach,
  sdkServerCommand,
} from "../_helpers.ts";
import { sdkStreamableServer } from "../_remote.ts";
import { modernStdioCommand, startModernHttp } from "../_modern.ts";
import { SpanRecorder } from "../../src/cli/_trace.ts";
import { modernPeer } from "../hostile/_modern_peer.ts";
import { recorder } from "./_otel.ts";

const STATUS_UNSET = 0;
const STATUS_ERROR = 2;
const SECRET = "s3cr3t-T0KEN-0123456789abcdef";
const OUTCOME = "mcp.adapter.outcome";

/** Everything a span exports as text: name, attributes, status, events. */
function exported(span: ReadableSpan): string {
  return JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    status: span.status,
    events: span.events.map((event) => [event.name, event.attributes]),
  });
}

function one(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  assert.equal(found.length, 1, spans.map((span) => span.name).join(", "));
  return found[0]!;
}

describe("telemetry against hostile servers", () => {
  const cleanups: Cleanup[] = releaseAfterEach();

  async function connected(
    url: string,
    options: MCPToolAdapterOptions,
  ): Promise<MCPToolAdapter> {
    const adapter = new MCPToolAdapter({
      name: "echoing",
      transport: "streamable-http",
      url,
      headers: { Authorization: `Bearer ${SECRET}` },
    }, options);
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    return adapter;
  }

  it("a secret a server echoes in its errors is in no span, event or metric", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const echo = `request refused for bearer ${SECRET.toUpperCase()}`;
    const peer = await modernPeer({
      capabilities: { tools: {}, resources: {} },
      tools: [
        { name: "ask", inputSchema: { type: "object" } },
        { name: "fail", inputSchema: { type: "object" } },
      ],
      answer: (method, params, count) => {
        if (method === "resources/read") {
          return { error: { code: -32002, message: echo } };
        }
        if (method !== "tools/call") return undefined;
        if (params.name === "fail" || count > 1) {
          // An MRTR round's own request fails too: a child span.
          return { error: { code: -32603, message: echo } };
        }
        return {
          resultType: "input_required",
          inputRequests: {
            who: {
              method: "elicitation/create",
              params: {
                mode: "form",
                message: "Name?",
                requestedSchema: { type: "object", properties: {} },
              },
            },
          },
        };
      },
    }, cleanups);
    const adapter = await connected(peer.url, {
      ...otel.options,
      handlers: { elicitation: () => ({ action: "accept", content: {} }) },
    });
    await assert.rejects(adapter.readUiResource("ui://echo/app.html"));
    const asked = await adapter.invoke("ask", {});
    assert.equal(asked.success, false);
    assert.equal((await adapter.invoke("fail", {})).success, false);
    const spans = otel.finished();
    assert.ok(
      spans.some((span) => span.name === "resources/read"),
      spans.map((span) => span.name).join(", "),
    );
    assert.ok(
      spans.filter((span) => span.name === "tools/call ask").length >= 2,
      "the round's own span",
    );
    const text = spans.map(exported).join("\n") +
      JSON.stringify(await otel.points("mcp.client.operation.duration")) +
      JSON.stringify(await otel.points("mcp.client.session.duration"));
    assert.match(text, /\[redacted\]/);
    assert.doesNotMatch(text, new RegExp(SECRET, "i"));
  });

  it("a server's error message of several lines is one line in the span's status", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const message = "denied\n  +0.0 ms  0.1 ms  tools/call t [id 9]";
    const peer = await modernPeer({
      capabilities: { tools: {} },
      tools: [{ name: "fail", inputSchema: { type: "object" } }],
      answer: (method) =>
        method === "tools/call"
          ? { error: { code: -32603, message } }
          : undefined,
    }, cleanups);
    const adapter = await connected(peer.url, otel.options);
    assert.equal((await adapter.invoke("fail", {})).success, false);
    const status = one(otel.finished(), "tools/call fail").status;
    assert.equal(status.code, STATUS_ERROR);
    assert.ok(
      status.message?.includes("denied\\x0a  +0.0 ms  0.1 ms  tools/call t"),
      status.message,
    );
    assert.doesNotMatch(status.message ?? "", /[\r\n]/);
  });

  it("a server that answers each call with a new error code adds no metric series per call; spans keep the code", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const peer = await modernPeer({
      capabilities: { tools: {} },
      tools: [{ name: "fail", inputSchema: { type: "object" } }],
      answer: (method, _params, count) =>
        method === "tools/call"
          ? { error: { code: 1000 + count, message: "no" } }
          : undefined,
    }, cleanups);
    const adapter = await connected(peer.url, otel.options);
    for (let i = 0; i < 20; i++) {
      assert.equal((await adapter.invoke("fail", {})).success, false);
    }
    const calls = (await otel.points("mcp.client.operation.duration"))
      .filter((point) => point.attributes["mcp.method.name"] === "tools/call");
    assert.equal(calls.length, 1, JSON.stringify(calls));
    assert.equal(calls[0]!.attributes["error.type"], "_OTHER");
    assert.equal(calls[0]!.attributes["rpc.response.status_code"], "_OTHER");
    assert.equal(calls[0]!.value.count, 20);
    const codes = new Set(
      otel.finished().filter((span) => span.name === "tools/call fail")
        .map((span) => span.attributes["rpc.response.status_code"]),
    );
    assert.equal(codes.size, 20, [...codes].join(", "));
  });

  it("arguments that are not JSON give the validation envelope, and the call's span ends", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const peer = await modernPeer({
      tools: [{ name: "echo", inputSchema: { type: "object" } }],
      answer: (method) => method === "tools/call" ? { content: [] } : undefined,
    }, cleanups);
    const adapter = await connected(peer.url, {
      telemetry: { ...otel.options.telemetry, recordArguments: true },
    });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const args of [{ n: 10n }, cycle]) {
      const result = await adapter.invoke("echo", args);
      assert.equal(result.success, false);
      assert.equal(result.errorKind, "validation", result.error ?? "");
    }
    const spans = otel.named("tools/call echo");
    assert.equal(spans.length, 2, "both spans ended");
    for (const span of spans) {
      assert.equal(span.attributes["error.type"], "validation");
      assert.equal(span.attributes["gen_ai.tool.call.arguments"], undefined);
    }
  });
});

describe("telemetry: what is not an error", () => {
  const cleanups: Cleanup[] = releaseAfterEach();

  /**
   * The probe's span and metric point, and --trace's line, after connecting
   * to a server of `config()` each (an HTTP endpoint found to be 2025-era
   * is not probed again).
   */
  async function probed(
    config: () => Promise<ConstructorParameters<typeof MCPToolAdapter>[0]>,
  ) {
    const otel = recorder();
    cleanups.push(otel.close);
    const trace = new SpanRecorder();
    for (const tracerProvider of [otel.tracerProvider, trace]) {
      const adapter = new MCPToolAdapter(await config(), {
        telemetry: {
          tracerProvider,
          meterProvider: otel.options.telemetry.meterProvider,
        },
      });
      cleanups.push(() => adapter.disconnect());
      await adapter.connect();
      assert.equal(adapter.serverInfo?.era, "legacy");
    }
    const [point] = (await otel.points("mcp.client.operation.duration"))
      .filter((point) =>
        point.attributes["mcp.method.name"] === "server/discover"
      );
    return {
      span: one(otel.finished(), "server/discover"),
      point: point!,
      line: trace.lines().find((line) => line.includes("server/discover"))!,
    };
  }

  for (
    const [transport, config] of [
      [
        "stdio",
        () => ({ name: "old", transport: "stdio", ...sdkServerCommand }),
      ],
      ["streamable HTTP", async () => {
        const server = await sdkStreamableServer();
        cleanups.push(() => server.close());
        return { name: "old", transport: "streamable-http", url: server.url };
      }],
    ] as const
  ) {
    it(`the probe that finds a 2025-era server over ${transport} is not an error`, async () => {
      const { span, point, line } = await probed(
        config as () => Promise<
          ConstructorParameters<typeof MCPToolAdapter>[0]
        >,
      );
      assert.equal(span.status.code, STATUS_UNSET, span.status.message);
      assert.equal(span.attributes["error.type"], undefined);
      assert.equal(span.attributes[OUTCOME], "era_probe");
      assert.equal(point.attributes["error.type"], undefined);
      assert.equal(point.attributes[OUTCOME], "era_probe");
      assert.doesNotMatch(line, /error\.type/);
      assert.match(line, /server\/discover \[id \d+\]\s+era_probe$/);
    });
  }

  it("disconnecting from a 2026 server, and a call the caller cancels, are not errors", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const server = await startModernHttp("serve");
    cleanups.push(() => server.close());
    for (
      const config of [
        {
          name: "modern",
          transport: "streamable-http" as const,
          url: server.url,
        },
        {
          name: "modern",
          transport: "stdio" as const,
          ...modernStdioCommand(),
        },
      ]
    ) {
      const adapter = new MCPToolAdapter(config, otel.options);
      await adapter.connect();
      const stop = new AbortController();
      const call = adapter.invoke("hang", {}, { signal: stop.signal });
      stop.abort(new Error("the user changed their mind"));
      assert.equal((await call).errorKind, "cancelled");
      await adapter.disconnect();
    }
    const listens = otel.named("subscriptions/listen");
    assert.equal(listens.length, 2);
    const calls = otel.named("tools/call hang");
    assert.equal(calls.length, 2);
    for (const span of [...listens, ...calls]) {
      assert.equal(span.status.code, STATUS_UNSET, span.name);
      assert.equal(span.attributes["error.type"], undefined, span.name);
      assert.equal(span.attributes[OUTCOME], "cancelled", span.name);
    }
    const points = await otel.points("mcp.client.operation.duration");
    for (const point of points) {
      const method = point.attributes["mcp.method.name"];
      if (method === "subscriptions/listen" || method === "tools/call") {
        assert.equal(point.attributes["error.type"], undefined, String(method));
      }
    }
    // A real failure still is one.
    assert.ok(
      otel.finished().every((span) => span.status.code !== STATUS_ERROR),
    );
  });
});

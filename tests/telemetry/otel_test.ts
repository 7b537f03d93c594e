/**
 * OpenTelemetry spans and metrics by the MCP semantic conventions, read
 * with the SDK's in-memory exporters, against real servers: the SDK's
 * McpServer over streamable HTTP (2025 era), its tasks, the SDK v2's
 * modern-era handler, and server-everything over stdio.
 *
 * @module
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Context,
  context,
  type ContextManager,
  propagation,
  ROOT_CONTEXT,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { McpServer as ModernServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import {
  MCPToolAdapter,
  type MCPToolAdapterOptions,
} from "@cleveragents/mcp-adapter";
import { type Cleanup, releaseAfterEach } from "../_helpers.ts";
import { SpanRecorder } from "../../src/cli/_trace.ts";
import { sdkStreamableServer } from "../_remote.ts";
import { connectedOverHttp } from "../_task_http.ts";
import { startModernHttp } from "../_modern.ts";
import { everythingStdioAdapter } from "../_everything.ts";
import { recorder } from "./_otel.ts";

const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

/** The active context, set for the synchronous part of `with()`: what `invoke()` reads. */
class StackContextManager implements ContextManager {
  #current: Context = ROOT_CONTEXT;
  active(): Context {
    return this.#current;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.#current;
    this.#current = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.#current = previous;
    }
  }
  bind<T>(_context: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#current = ROOT_CONTEXT;
    return this;
  }
}

function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  assert.equal(
    found.length,
    1,
    `one span "${name}" expected, got: ${spans.map((s) => s.name).join(", ")}`,
  );
  return found[0]!;
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** A traceparent naming `span`. */
function traceparentOf(span: ReadableSpan): string {
  const { traceId, spanId } = span.spanContext();
  return `00-${traceId}-${spanId}-01`;
}

describe("telemetry: the MCP semantic conventions", () => {
  const cleanups: Cleanup[] = releaseAfterEach();

  /** An SDK streamable-HTTP server with a tool that answers with the `_meta` it received. */
  async function httpAdapter(options: MCPToolAdapterOptions) {
    const server = await sdkStreamableServer({
      extend: (mcp) =>
        mcp.registerTool(
          "meta",
          { inputSchema: {} },
          (_args: unknown, extra: { _meta?: unknown }) => ({
            content: [{
              type: "text",
              text: JSON.stringify(extra._meta ?? {}),
            }],
          }),
        ),
    });
    cleanups.push(() => server.close());
    const adapter = new MCPToolAdapter({
      name: "remote",
      transport: "streamable-http",
      url: server.url,
      headers: { Authorization: "Bearer sekrit-token-123456" },
    }, options);
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    return { adapter, port: Number(new URL(server.url).port) };
  }

  it("a successful call: a CLIENT span with the conventions' attributes, and the server gets its traceparent", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter, port } = await httpAdapter(otel.options);
    const result = await adapter.invoke("meta", {});
    assert.equal(result.success, true);
    const call = only(otel.finished(), "tools/call meta");
    assert.equal(call.kind, SPAN_KIND_CLIENT);
    assert.equal(call.status.code, 0);
    const attributes = call.attributes;
    assert.equal(attributes["mcp.method.name"], "tools/call");
    assert.equal(attributes["gen_ai.tool.name"], "meta");
    assert.equal(attributes["gen_ai.operation.name"], "execute_tool");
    assert.equal(attributes["network.transport"], "tcp");
    assert.equal(attributes["network.protocol.name"], "http");
    assert.equal(attributes["server.address"], "127.0.0.1");
    assert.equal(attributes["server.port"], port);
    assert.equal(attributes["mcp.protocol.version"], "2025-11-25");
    assert.equal(typeof attributes["jsonrpc.request.id"], "string");
    assert.equal(typeof attributes["mcp.session.id"], "string");
    assert.equal(attributes["error.type"], undefined);
    assert.equal(attributes["gen_ai.tool.call.arguments"], undefined);
    // The server saw the client span as its remote parent.
    const meta = JSON.parse(
      (result.data.content as { text: string }[])[0]!.text,
    );
    assert.equal(meta.traceparent, traceparentOf(call));
    // The handshake and the listing are traced too.
    const initialize = only(otel.finished(), "initialize");
    assert.equal(initialize.attributes["mcp.protocol.version"], "2025-11-25");
    assert.equal(initialize.attributes["gen_ai.operation.name"], undefined);
    only(otel.finished(), "tools/list");
    const points = await otel.points("mcp.client.operation.duration");
    const calls = points.filter((p) =>
      p.attributes["mcp.method.name"] === "tools/call"
    );
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.value.count, 1);
    assert.deepEqual(
      calls[0]!.value.buckets.boundaries,
      [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    );
    assert.equal(calls[0]!.attributes["jsonrpc.request.id"], undefined);
  });

  it("an isError result is error.type tool_error; a wire error its JSON-RPC code", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter } = await httpAdapter(otel.options);
    const failed = await adapter.invoke("fail", {});
    assert.equal(failed.success, false);
    const span = only(otel.finished(), "tools/call fail");
    assert.equal(span.attributes["error.type"], "tool_error");
    assert.equal(span.status.code, STATUS_ERROR);
    const points = await otel.points("mcp.client.operation.duration");
    assert.ok(
      points.some((p) => p.attributes["error.type"] === "tool_error"),
    );
  });

  it("a validation failure ends the call's span with error.type validation and sends nothing", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter } = await httpAdapter(otel.options);
    const result = await adapter.invoke("echo", { message: 42 });
    assert.equal(result.errorKind, "validation");
    const span = only(otel.finished(), "tools/call echo");
    assert.equal(span.attributes["error.type"], "validation");
    assert.equal(span.status.code, STATUS_ERROR);
    assert.equal(span.attributes["jsonrpc.request.id"], undefined);
    const points = await otel.points("mcp.client.operation.duration");
    assert.ok(
      !points.some((p) => p.attributes["gen_ai.tool.name"] === "echo"),
      "no operation was sent, so none is measured",
    );
  });

  it("a timeout is error.type timeout", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter } = await httpAdapter(otel.options);
    const result = await adapter.invoke("sleep", { ms: 60_000 }, {
      timeoutMs: 50,
    });
    assert.equal(result.errorKind, "timeout");
    const span = only(otel.finished(), "tools/call sleep");
    assert.equal(span.attributes["error.type"], "timeout");
    assert.equal(span.status.code, STATUS_ERROR);
  });

  it("opt-in arguments and results are recorded with configured secrets masked", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter } = await httpAdapter({
      telemetry: {
        ...otel.options.telemetry,
        recordArguments: true,
        recordResults: true,
      },
    });
    await adapter.invoke("echo", { message: "key sekrit-token-123456" });
    const span = only(otel.finished(), "tools/call echo");
    const args = String(span.attributes["gen_ai.tool.call.arguments"]);
    const result = String(span.attributes["gen_ai.tool.call.result"]);
    assert.match(args, /\[redacted\]/);
    assert.doesNotMatch(args + result, /sekrit-token-123456/);
    assert.match(result, /"content"/);
  });

  it("a caller's execute_tool span gets the MCP attributes instead of a nested duplicate", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter } = await httpAdapter(otel.options);
    const tracer = otel.tracerProvider.getTracer("agent");
    const outer = tracer.startSpan("execute_tool meta", {
      attributes: { "gen_ai.operation.name": "execute_tool" },
    });
    // The caller's span is found in the active context: register a
    // context manager for this test.
    context.setGlobalContextManager(new StackContextManager());
    cleanups.push(() => Promise.resolve(context.disable()));
    const result = await context.with(
      trace.setSpan(context.active(), outer),
      () => adapter.invoke("meta", {}),
    );
    outer.end();
    assert.equal(result.success, true);
    assert.equal(otel.named("tools/call meta").length, 0);
    const span = only(otel.finished(), "execute_tool meta");
    assert.equal(span.attributes["mcp.method.name"], "tools/call");
    assert.equal(span.attributes["gen_ai.tool.name"], "meta");
    assert.equal(typeof span.attributes["jsonrpc.request.id"], "string");
    const meta = JSON.parse(
      (result.data.content as { text: string }[])[0]!.text,
    );
    assert.equal(meta.traceparent, traceparentOf(span));
  });

  it("with AsyncLocalStorageContextManager (Node and Deno), a caller's active span is the parent across awaits", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter } = await httpAdapter(otel.options);
    // The one line the documentation asks for.
    context.setGlobalContextManager(
      new AsyncLocalStorageContextManager().enable(),
    );
    cleanups.push(() => Promise.resolve(context.disable()));
    const tracer = otel.tracerProvider.getTracer("agent");
    await tracer.startActiveSpan("agent turn", async (turn) => {
      // Past an await, only a context manager that follows async work
      // still knows the active span.
      await new Promise((resolve) => setTimeout(resolve, 1));
      await adapter.invoke("meta", {});
      turn.end();
    });
    const turn = only(otel.finished(), "agent turn");
    const call = only(otel.finished(), "tools/call meta");
    assert.equal(parentOf(call), turn.spanContext().spanId);
    assert.equal(call.spanContext().traceId, turn.spanContext().traceId);
  });

  it("a task-based call: tools/call, then tasks/get and tasks/result as its children", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter } = await connectedOverHttp(cleanups, otel.options);
    const result = await adapter.invoke("poll_task", { polls: 2 });
    assert.equal(result.success, true, result.error ?? "");
    const call = only(otel.finished(), "tools/call poll_task");
    const children = otel.finished().filter((span) =>
      parentOf(span) === call.spanContext().spanId
    );
    const names = children.map((span) => span.name);
    assert.ok(names.includes("tasks/get"), names.join(", "));
    assert.ok(names.includes("tasks/result"), names.join(", "));
    for (const child of children) {
      assert.equal(child.kind, SPAN_KIND_CLIENT);
      assert.equal(child.spanContext().traceId, call.spanContext().traceId);
      assert.equal(typeof child.attributes["jsonrpc.request.id"], "string");
    }
    // A JSON-RPC error: error.type and rpc.response.status_code are its code.
    const failed = await adapter.invoke("failing_task", { mode: "rpcError" });
    assert.equal(failed.success, false);
    const span = only(otel.finished(), "tools/call failing_task");
    assert.match(String(span.attributes["error.type"]), /^-?\d+$/);
    assert.equal(span.status.code, STATUS_ERROR);
    const failedRequest = otel.finished().find((s) =>
      s.attributes["rpc.response.status_code"] !== undefined
    );
    assert.ok(failedRequest, "a request span carries the JSON-RPC code");
  });

  it("a reconnect: a new initialize, the old session's duration, calls traced on the new one", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter } = await httpAdapter(otel.options);
    await adapter.invoke("meta", {});
    const first = only(otel.finished(), "tools/call meta")
      .attributes["mcp.session.id"];
    await adapter.reconnect();
    await adapter.invoke("meta", {});
    assert.equal(otel.named("initialize").length, 2);
    const calls = otel.named("tools/call meta");
    assert.equal(calls.length, 2);
    assert.notEqual(calls[1]!.attributes["mcp.session.id"], first);
    const sessions = await otel.points("mcp.client.session.duration");
    assert.equal(sessions.reduce((n, p) => n + p.value.count, 0), 1);
    assert.equal(sessions[0]!.attributes["network.transport"], "tcp");
    assert.deepEqual(
      sessions[0]!.value.buckets.boundaries,
      [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    );
  });

  it("the modern era (2026-07-28) carries the trace context in the request's _meta too", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const server = await startModernHttp("serve", () => {
      const mcp = new ModernServer({ name: "modern-meta", version: "1.0.0" });
      mcp.registerTool("meta", {
        description: "Answers with the _meta it received",
        inputSchema: z.object({}),
      }, (_args, context) => ({
        content: [{
          type: "text",
          text: JSON.stringify(context.mcpReq._meta ?? {}),
        }],
      }));
      return mcp;
    });
    cleanups.push(() => server.close());
    const adapter = new MCPToolAdapter({
      name: "modern",
      transport: "streamable-http",
      url: server.url,
    }, otel.options);
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    const result = await adapter.invoke("meta", {});
    assert.equal(result.success, true, result.error ?? "");
    const call = only(otel.finished(), "tools/call meta");
    assert.equal(call.attributes["mcp.protocol.version"], "2026-07-28");
    assert.equal(call.attributes["mcp.session.id"], undefined);
    const meta = JSON.parse(
      (result.data.content as { text: string }[])[0]!.text,
    );
    assert.equal(meta.traceparent, traceparentOf(call));
  });

  it("registered globally: found without an option, over stdio (pipe), through the registered propagator", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    assert.equal(trace.setGlobalTracerProvider(otel.tracerProvider), true);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    cleanups.push(() => {
      trace.disable();
      propagation.disable();
      return Promise.resolve();
    });
    const adapter = everythingStdioAdapter();
    cleanups.push(() => adapter.disconnect());
    await adapter.connect();
    const result = await adapter.invoke("echo", { message: "hi" });
    assert.equal(result.success, true, result.error ?? "");
    const call = only(otel.finished(), "tools/call echo");
    assert.equal(call.attributes["network.transport"], "pipe");
    assert.equal(call.attributes["server.address"], undefined);
    assert.equal(call.attributes["mcp.session.id"], undefined);
  });

  it("--trace's recorder gets the same spans, nested, with timings and the server's traceparent", async () => {
    const recorder = new SpanRecorder();
    const { adapter } = await httpAdapter({
      telemetry: { tracerProvider: recorder },
    });
    const result = await adapter.invoke("meta", {});
    const meta = JSON.parse(
      (result.data.content as { text: string }[])[0]!.text,
    );
    assert.match(meta.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const lines = recorder.lines();
    assert.ok(lines.some((line) => /initialize \[id \d+\]$/.test(line)));
    assert.ok(
      lines.some((line) => /\d+\.\d ms\s+tools\/call meta \[id/.test(line)),
      lines.join("\n"),
    );
  });

  it("telemetry: false loads nothing even with a provider registered", async () => {
    const otel = recorder();
    cleanups.push(otel.close);
    const { adapter } = await httpAdapter({ telemetry: false });
    await adapter.invoke("meta", {});
    assert.equal(otel.finished().length, 0);
  });
});

/**
 * Spans and metrics by the OpenTelemetry semantic conventions for MCP
 * (`open-telemetry/semantic-conventions-genai`, `docs/gen-ai/mcp.md`), and
 * the trace context carried to the server in `params._meta`. Loaded by
 * `hook.ts` only when tracing is on; it implements `_contract.ts`. It
 * imports nothing of OpenTelemetry: it talks to the providers (given, or registered in the API's global
 * registry) through their interfaces, so bundles for any runtime stay the
 * same. Internal.
 *
 * @module
 */

import type { MCPServerConfig } from "../server_config.ts";
import { isRecord } from "../util/values.ts";
import { spanJson, spanText } from "./_span_text.ts";
import { VERSION } from "../version.ts";
import type {
  CallOutcome,
  ConnectionTelemetry,
  ExpectedFailure,
  SessionTelemetry,
  Telemetry,
  TracedRequest,
} from "./_contract.ts";
import { OTEL_API_KEY } from "./_contract.ts";
import type {
  MCPAttributes,
  MCPHistogram,
  MCPMeterProvider,
  MCPSpan,
  MCPTelemetryOptions,
  MCPTracer,
  MCPTracerProvider,
} from "./types.ts";

/** The instrumentation scope. */
const SCOPE = "@cleveragents/mcp-adapter";
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;
/**
 * What a failure that is not an error is recorded as, instead of
 * `error.type` and status ERROR: `cancelled` (the client asked for it),
 * `era_probe` (`server/discover` found a 2025-era server).
 */
export const OUTCOME_KEY = "mcp.adapter.outcome";
/** The API's context key of the active span (`createContextKey` is `Symbol.for`). */
export const SPAN_KEY: unique symbol = Symbol.for(
  "OpenTelemetry Context Key SPAN",
) as never;
/** The conventions' advice for both duration histograms, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [
  0.01,
  0.02,
  0.05,
  0.1,
  0.2,
  0.5,
  1,
  2,
  5,
  10,
  30,
  60,
  120,
  300,
];

/** An OpenTelemetry `Context`. */
interface Context {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): Context;
  deleteValue(key: symbol): Context;
}

/** The parts of the API's global registry read here. */
interface Registry {
  trace?: MCPTracerProvider;
  metrics?: MCPMeterProvider;
  context?: { active(): Context };
  propagation?: {
    inject(
      context: Context,
      carrier: Record<string, string>,
      setter: {
        set(carrier: Record<string, string>, key: string, value: string): void;
      },
    ): void;
  };
}

/** A context without a context manager (the API's `ROOT_CONTEXT`, in short). */
class BaseContext implements Context {
  readonly #values: Map<symbol, unknown>;
  constructor(values?: Map<symbol, unknown>) {
    this.#values = values ?? new Map();
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): Context {
    return new BaseContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): Context {
    const values = new Map(this.#values);
    values.delete(key);
    return new BaseContext(values);
  }
}

const ROOT = new BaseContext();
const SETTER = {
  set(carrier: Record<string, string>, key: string, value: string): void {
    carrier[key] = value;
  },
};

function registry(): Registry | undefined {
  return (globalThis as Record<symbol, Registry | undefined>)[OTEL_API_KEY];
}

function activeContext(): Context {
  return registry()?.context?.active() ?? ROOT;
}

/** `tools/call`'s span of one `invoke()`, handed down as the requests' `trace`. */
class CallTrace {
  /** The `tools/call` request has taken the span (retries get child spans). */
  claimed = false;
  /** The `error.type` of the call's last failed request. */
  errorType: string | undefined;
  constructor(readonly span: MCPSpan, readonly context: Context) {}
}

/** Names everything telemetry records from a server or a caller: masked, escaped, bounded. */
type Neutral = (text: string) => string;

/**
 * `error.type` for a failure: the JSON-RPC code of an error response, else
 * the adapter's error code (`timeout`, `not_connected`, …), `cancelled` for
 * an abort, `_OTHER` otherwise.
 */
export function errorType(error: unknown): string {
  if (!isRecord(error)) return "_OTHER";
  if (typeof error.rpcCode === "number") return String(error.rpcCode);
  if (error.name === "AbortError") return "cancelled";
  return typeof error.code === "string" ? error.code : "_OTHER";
}

/** An error code of JSON-RPC's own range (-32768 to -32000), as `errorType` writes it. */
const RESERVED_CODE = /^-3(?:2(?:[0-6]\d\d|7[0-5]\d|76[0-8]))$/;
/** An `errorType` that is an error code (its other values are words). */
const ANY_CODE = /^-?\d+$/;

/**
 * `type` (an `errorType`) for a metric's attributes: a server's own error
 * code, outside JSON-RPC's reserved range, is `_OTHER` there, so a server
 * that answers each call with a new code cannot add a series per call. A
 * span keeps the code.
 */
function metricType(type: string): string {
  return ANY_CODE.test(type) && !RESERVED_CODE.test(type) ? "_OTHER" : type;
}

/** A failure's `error.type`, code and status message, the message neutralised. */
function failureOf(error: unknown, neutral: Neutral): {
  type: string;
  message: string;
  code?: string;
} {
  const type = errorType(error);
  const message = neutral(
    error instanceof Error ? error.message : String(error),
  );
  return isRecord(error) && typeof error.rpcCode === "number"
    ? { type, message, code: type }
    : { type, message };
}

/** `server.address`, `server.port`, `network.*` of a configured server. */
export function serverAttributes(
  config: MCPServerConfig,
  kind: string,
): MCPAttributes {
  if (kind === "stdio") return { "network.transport": "pipe" };
  if (config.transport === "stdio") return {};
  const url = new URL(config.url);
  const port = url.port === ""
    ? url.protocol === "https:" ? 443 : 80
    : Number(url.port);
  return {
    "network.transport": "tcp",
    "network.protocol.name": "http",
    "server.address": url.hostname.replace(/^\[|\]$/g, ""),
    "server.port": port,
  };
}

/** Creates the telemetry of the adapters that share `options`. */
export function createTelemetry(options: MCPTelemetryOptions): Telemetry {
  return {
    connection: (config, secrets) =>
      new ConnectionSpans(config, options, secrets),
  };
}

/** The instruments, found once a provider is there. */
class Instruments {
  #tracer: MCPTracer | undefined;
  #operation: MCPHistogram | undefined;
  #session: MCPHistogram | undefined;
  constructor(readonly options: MCPTelemetryOptions) {}

  get tracer(): MCPTracer | undefined {
    return this.#tracer ??= (this.options.tracerProvider ?? registry()?.trace)
      ?.getTracer(
        SCOPE,
        VERSION,
      );
  }

  #histogram(name: string, description: string): MCPHistogram | undefined {
    return (this.options.meterProvider ?? registry()?.metrics)?.getMeter(
      SCOPE,
      VERSION,
    ).createHistogram(name, {
      description,
      unit: "s",
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    });
  }

  get operation(): MCPHistogram | undefined {
    return this.#operation ??= this.#histogram(
      "mcp.client.operation.duration",
      "The duration of the MCP request as observed on the sender from the time it was sent until the response is received.",
    );
  }

  get session(): MCPHistogram | undefined {
    return this.#session ??= this.#histogram(
      "mcp.client.session.duration",
      "The duration of the MCP session as observed on the MCP client.",
    );
  }
}

const shared = new WeakMap<MCPTelemetryOptions, Instruments>();

/** The spans and metrics of one server connection (not the protocol's `Connection`). */
class ConnectionSpans implements ConnectionTelemetry {
  readonly #config: MCPServerConfig;
  readonly #instruments: Instruments;
  readonly #options: MCPTelemetryOptions;
  readonly #secrets: () => readonly string[];
  readonly #neutral: Neutral = (text) => spanText(text, this.#secrets());
  /** The server attributes of the live session's transport. */
  server: MCPAttributes;

  constructor(
    config: MCPServerConfig,
    options: MCPTelemetryOptions,
    secrets: () => readonly string[],
  ) {
    this.#config = config;
    this.#options = options;
    this.#secrets = secrets;
    let instruments = shared.get(options);
    if (instruments === undefined) {
      shared.set(options, instruments = new Instruments(options));
    }
    this.#instruments = instruments;
    this.server = serverAttributes(config, config.transport);
  }

  session(kind: string, sessionId: () => string | undefined): SessionSpans {
    this.server = serverAttributes(this.#config, kind);
    return new SessionSpans(
      this.#instruments,
      this.server,
      sessionId,
      this.#neutral,
    );
  }

  async call<T extends CallOutcome>(
    name: string,
    run: (trace: unknown) => Promise<T>,
    options: { args: unknown; signal: AbortSignal | undefined },
  ): Promise<T> {
    const tracer = this.#instruments.tracer;
    if (tracer === undefined) return await run(undefined);
    const neutral = this.#neutral;
    const tool = neutral(name);
    const context = activeContext();
    const active = context.getValue(SPAN_KEY) as
      | (MCPSpan & { attributes?: MCPAttributes })
      | undefined;
    // An agent framework's own tool-execution span: the conventions say to
    // add the MCP attributes to it rather than nest a duplicate.
    const adopt = active?.isRecording?.() === true &&
      active.attributes?.["gen_ai.operation.name"] === "execute_tool";
    const attributes: MCPAttributes = {
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool,
      ...this.server,
    };
    let span: MCPSpan;
    if (adopt) {
      span = active;
      span.setAttributes(attributes);
    } else {
      span = tracer.startSpan(
        `tools/call ${tool}`,
        { kind: SPAN_KIND_CLIENT, attributes },
        context,
      );
    }
    const trace = new CallTrace(span, context.setValue(SPAN_KEY, span));
    // From here on the span always ends, whatever the arguments hold.
    try {
      if (this.#options.recordArguments === true) {
        // Arguments that are not JSON (a BigInt, a cycle) are not recorded;
        // invoke() tells the caller about them.
        const json = spanJson(options.args, this.#secrets());
        if (json !== undefined) {
          span.setAttribute("gen_ai.tool.call.arguments", json);
        }
      }
      const outcome = await run(trace);
      if (outcome.success) {
        if (this.#options.recordResults === true) {
          const json = spanJson(outcome.data, this.#secrets());
          if (json !== undefined) {
            span.setAttribute("gen_ai.tool.call.result", json);
          }
        }
      } else if (
        outcome.errorKind === "cancelled" && options.signal?.aborted
      ) {
        // Cancelled by the caller: not an error.
        span.setAttribute(OUTCOME_KEY, "cancelled");
      } else {
        // A request's failure (a JSON-RPC code, a timeout, `tool_error`)
        // names it; else it failed off the wire: validation, an unknown
        // tool, an output that breaks its schema.
        span.setAttribute(
          "error.type",
          trace.errorType ?? outcome.errorKind ?? "_OTHER",
        );
        span.setStatus({
          code: STATUS_ERROR,
          message: neutral(outcome.error ?? ""),
        });
      }
      return outcome;
    } catch (error) {
      const failure = failureOf(error, neutral);
      span.setAttribute("error.type", trace.errorType ?? failure.type);
      span.setStatus({ code: STATUS_ERROR, message: failure.message });
      throw error;
    } finally {
      if (!adopt) span.end();
    }
  }
}

/** A tool call's target: its name. */
function toolOf(
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  return method === "tools/call" && typeof params?.name === "string"
    ? params.name
    : undefined;
}

/** The spans and metrics of one session (not the protocol's `Session`). */
class SessionSpans implements SessionTelemetry {
  readonly #instruments: Instruments;
  readonly #server: MCPAttributes;
  readonly #sessionId: () => string | undefined;
  readonly #neutral: Neutral;
  readonly #started = performance.now();
  #version: string | undefined;
  #ended = false;

  constructor(
    instruments: Instruments,
    server: MCPAttributes,
    sessionId: () => string | undefined,
    neutral: Neutral,
  ) {
    this.#instruments = instruments;
    this.#server = server;
    this.#sessionId = sessionId;
    this.#neutral = neutral;
  }

  setProtocolVersion(version: string): void {
    this.#version = this.#neutral(version);
  }

  start(
    method: string,
    id: string | number,
    params: Record<string, unknown> | undefined,
    parent: unknown,
  ): TracedRequest | undefined {
    const instruments = this.#instruments;
    const tracer = instruments.tracer;
    const histogram = instruments.operation;
    if (tracer === undefined && histogram === undefined) return undefined;
    const neutral = this.#neutral;
    const named = toolOf(method, params);
    const tool = named === undefined ? undefined : neutral(named);
    const metric: MCPAttributes = {
      "mcp.method.name": method,
      ...this.#server,
    };
    if (tool !== undefined) {
      metric["gen_ai.tool.name"] = tool;
      metric["gen_ai.operation.name"] = "execute_tool";
    }
    if (this.#version !== undefined) {
      metric["mcp.protocol.version"] = this.#version;
    }
    const attributes: MCPAttributes = {
      ...metric,
      "jsonrpc.request.id": String(id),
    };
    const sessionId = this.#sessionId();
    if (sessionId !== undefined) {
      attributes["mcp.session.id"] = neutral(sessionId);
    }
    const call = parent instanceof CallTrace ? parent : undefined;
    let span: MCPSpan | undefined;
    let owned = true;
    if (call !== undefined && !call.claimed && method === "tools/call") {
      // The call's own span is this request's span.
      call.claimed = true;
      span = call.span;
      owned = false;
      span.setAttributes(attributes);
    } else if (tracer !== undefined) {
      span = tracer.startSpan(
        tool === undefined ? method : `${method} ${tool}`,
        { kind: SPAN_KIND_CLIENT, attributes },
        call?.context ?? activeContext(),
      );
    }
    const sending = params ?? {};
    if (span !== undefined) inject(sending, span);
    const started = performance.now();
    const finish = (
      result: unknown,
      error: unknown,
      failed: boolean,
      expected?: ExpectedFailure,
    ) => {
      let type: string | undefined;
      const outcome = failed ? expected?.(error) : undefined;
      if (outcome !== undefined) {
        // Not an error: the client cancelled it, or the probe found the era.
        metric[OUTCOME_KEY] = outcome;
        span?.setAttribute(OUTCOME_KEY, outcome);
      } else if (failed) {
        const failure = failureOf(error, neutral);
        type = failure.type;
        if (failure.code !== undefined) {
          metric["rpc.response.status_code"] = metricType(failure.code);
          span?.setAttribute("rpc.response.status_code", failure.code);
        }
        span?.setStatus({ code: STATUS_ERROR, message: failure.message });
      } else if (isRecord(result)) {
        if (result.isError === true) {
          type = "tool_error";
          span?.setStatus({ code: STATUS_ERROR, message: "tool_error" });
        }
        if (
          method === "initialize" && typeof result.protocolVersion === "string"
        ) {
          const version = neutral(result.protocolVersion);
          metric["mcp.protocol.version"] = version;
          span?.setAttribute("mcp.protocol.version", version);
        }
      }
      if (type !== undefined) {
        metric["error.type"] = metricType(type);
        span?.setAttribute("error.type", type);
        if (call !== undefined) call.errorType = type;
      }
      histogram?.record((performance.now() - started) / 1000, metric);
      if (owned) span?.end();
    };
    return {
      params: sending,
      watch: (sent, expected) =>
        sent.then((result) => {
          finish(result, undefined, false);
          return result;
        }, (error) => {
          finish(undefined, error, true, expected);
          throw error;
        }),
    };
  }

  end(error?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    const attributes: MCPAttributes = { ...this.#server };
    if (this.#version !== undefined) {
      attributes["mcp.protocol.version"] = this.#version;
    }
    if (error !== undefined) {
      attributes["error.type"] = metricType(errorType(error));
    }
    this.#instruments.session?.record(
      (performance.now() - this.#started) / 1000,
      attributes,
    );
  }
}

/**
 * Puts the span's context into `params._meta`: through the registered
 * propagator (`traceparent`, `tracestate`, `baggage`, …), else as W3C
 * Trace Context written here, so the server can continue the trace either way.
 */
function inject(params: Record<string, unknown>, span: MCPSpan): void {
  const carrier: Record<string, string> = {};
  const propagator = registry()?.propagation;
  if (propagator !== undefined) {
    propagator.inject(
      activeContext().setValue(SPAN_KEY, span),
      carrier,
      SETTER,
    );
  } else {
    const { traceId, spanId, traceFlags, traceState } = span.spanContext();
    if (/^[0-9a-f]{32}$/.test(traceId) && !/^0+$/.test(traceId)) {
      carrier.traceparent = `00-${traceId}-${spanId}-0${traceFlags & 1}`;
      const state = traceState?.serialize();
      if (state) carrier.tracestate = state;
    }
  }
  if (Object.keys(carrier).length === 0) return;
  const meta = params._meta;
  params._meta = isRecord(meta) ? { ...meta, ...carrier } : carrier;
}

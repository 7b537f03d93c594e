/**
 * Public data types shared across the adapter: tool descriptors, results,
 * capabilities and filters.
 *
 * @module
 */

/** A JSON Schema document, as sent by an MCP server in `inputSchema`/`outputSchema`. */
export type JsonSchema = { [key: string]: unknown };

/**
 * Hints a server may attach to a tool (MCP `ToolAnnotations`). They are hints,
 * not guarantees: a hostile server can claim anything.
 */
export interface ToolAnnotations {
  /** Human-readable title. */
  title?: string;
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** The tool may perform destructive updates. */
  destructiveHint?: boolean;
  /** Calling the tool twice with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool interacts with an open world of external entities. */
  openWorldHint?: boolean;
  /** Fields added by newer protocol revisions. */
  [key: string]: unknown;
}

/** What a tool may do to the world, inferred from its name (see `inferCapabilities`). */
export interface ToolCapability {
  /** The tool only reads. */
  readOnly: boolean;
  /** The tool changes state. */
  writes: boolean;
}

/** Which tools to expose: exact names or `*` globs. `exclude` wins over `include`. */
export interface MCPToolFilter {
  /** When given, only tools matching one of these patterns are kept. */
  include?: string[];
  /** Tools matching one of these patterns are dropped. */
  exclude?: string[];
}

/** A tool as discovered from an MCP server (`tools/list`). */
export interface MCPToolDescriptor {
  /** Tool name as exposed by the server. */
  name: string;
  /** Human-readable description; `""` when the server sent none. */
  description: string;
  /** JSON Schema for the tool's arguments. */
  inputSchema: JsonSchema;
  /** Display title, when the server sent one. */
  title?: string;
  /** JSON Schema of `structuredContent`, when the server declares one. */
  outputSchema?: JsonSchema;
  /** Behaviour hints sent by the server. */
  annotations?: ToolAnnotations;
  /** How the tool runs, when the server says: whether it is called as a task. */
  execution?: ToolExecution;
  /**
   * `"sha256:…"` of the tool's name, title, description, schemas and
   * annotations as canonical JSON (see `toolFingerprint` of
   * `@cleveragents/mcp-adapter/drift`), set when the tools are listed; absent
   * only where the runtime has no Web Crypto (`crypto.subtle`).
   */
  fingerprint?: string;
  /**
   * MCP Apps (`_meta.ui`): the tool's UI resource and who may call it;
   * absent when the server declared neither.
   */
  ui?: MCPToolUi;
  /** The tool's `_meta`, as the server sent it (not validated). */
  _meta?: Record<string, unknown>;
}

/** Who may call a tool under MCP Apps: the model (agent), the server's app (its UI), or both. */
export type MCPAppVisibility = "model" | "app";

/**
 * A tool's MCP Apps metadata (`_meta.ui`, extension
 * `io.modelcontextprotocol/ui`), validated.
 */
export interface MCPToolUi {
  /**
   * The `ui://` resource that renders the tool's results; read it with
   * `readUiResource()`. Absent when the server gave none, or one that is not
   * a `ui://` URI of at most 2048 characters.
   */
  resourceUri?: string;
  /**
   * Who may call the tool; `["model", "app"]` when the server said nothing.
   * A tool without `"model"` is never handed to a model
   * (`@cleveragents/mcp-adapter/models` leaves it out and refuses calls to
   * it); the host may still `invoke()` it for its app. A `visibility` that
   * is not a list of these names counts as `[]`.
   */
  visibility: readonly MCPAppVisibility[];
}

/** An MCP Apps UI resource read with `readUiResource()`: the HTML and how the host should sandbox it. */
export interface MCPUiResource {
  /** The `ui://` URI read. */
  uri: string;
  /** Always `"text/html;profile=mcp-app"`. */
  mimeType: "text/html;profile=mcp-app";
  /** The HTML document (a `blob` is decoded as UTF-8). Render it only in a sandboxed frame. */
  html: string;
  /**
   * Origins the app asks for, per CSP directive (`_meta.ui.csp`): each list
   * has at most 64 entries of the form `scheme://host[:port][/path]`
   * (`http(s)`/`ws(s)`, `*.` subdomain wildcards), others are dropped with
   * a note to `onError`. Absent: the spec's restrictive default applies.
   */
  csp?: {
    connectDomains?: string[];
    resourceDomains?: string[];
    frameDomains?: string[];
    baseUriDomains?: string[];
  };
  /** Browser permissions the app asks for (`_meta.ui.permissions`), known names only. */
  permissions?: ("camera" | "microphone" | "geolocation" | "clipboardWrite")[];
  /** A dedicated sandbox origin the app asks for (`_meta.ui.domain`), a host name of at most 253 characters. */
  domain?: string;
  /** Whether the app wants a visible border (`_meta.ui.prefersBorder`). */
  prefersBorder?: boolean;
}

/** Options of `readUiResource()`. */
export interface ReadUiResourceOptions {
  /**
   * The largest HTML accepted, in bytes (UTF-8). Default 8 MiB: the
   * official PDF app is 4.2 MiB. The message itself is also bounded by
   * `maxMessageBytes`.
   */
  maxBytes?: number;
  /** Deadline in ms. Default: the adapter's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Aborts the read. */
  signal?: AbortSignal;
}

/** How a tool runs (MCP `ToolExecution`, 2025-11-25). */
export interface ToolExecution {
  /**
   * Whether the tool is called as a task (MCP tasks, 2025-11-25,
   * experimental): `"required"` tools always are, `"optional"` ones when
   * `invoke()` is given `task: true`, `"forbidden"` ones (the default when
   * absent) never.
   */
  taskSupport?: "forbidden" | "optional" | "required";
  /** Fields added by newer protocol revisions. */
  [key: string]: unknown;
}

/** Where a task stands (MCP `TaskStatus`). */
export type MCPTaskState =
  | "working"
  | "input_required"
  | "completed"
  | "failed"
  | "cancelled";

/** A status report of a tool call running as a task. */
export interface MCPTaskStatus {
  /** The id the server gave the task (meaningful only in its session). */
  taskId: string;
  /** Where the task stands. */
  status: MCPTaskState;
  /** The server's description of the current state, when it sent one. */
  statusMessage?: string;
}

/** Why an invocation failed. */
export type MCPErrorKind =
  | "not_found"
  | "validation"
  | "timeout"
  | "server_error"
  | "cancelled"
  | "connection";

/** Text the tool returned. */
export interface MCPTextContent {
  /** Always `"text"`. */
  type: "text";
  /** The text. */
  text: string;
  /** Hints for the client (audience, priority). */
  annotations?: Record<string, unknown>;
  /** Metadata of the server's. */
  _meta?: Record<string, unknown>;
}

/** An image or audio clip, base64-encoded. */
export interface MCPMediaContent {
  /** `"image"` or `"audio"`. */
  type: "image" | "audio";
  /** Base64-encoded bytes. */
  data: string;
  /** E.g. `"image/png"`, `"audio/wav"`. */
  mimeType: string;
  /** Hints for the client (audience, priority). */
  annotations?: Record<string, unknown>;
  /** Metadata of the server's. */
  _meta?: Record<string, unknown>;
}

/** A link to a resource the client may read. */
export interface MCPResourceLink {
  /** Always `"resource_link"`. */
  type: "resource_link";
  /** Where the resource is. */
  uri: string;
  /** Its name. */
  name?: string;
  /** A display title. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its media type. */
  mimeType?: string;
  /** Hints for the client (audience, priority). */
  annotations?: Record<string, unknown>;
  /** Metadata of the server's. */
  _meta?: Record<string, unknown>;
}

/** A resource embedded in the result: text or a base64 blob. */
export interface MCPEmbeddedResource {
  /** Always `"resource"`. */
  type: "resource";
  /** The resource: its URI, and its text or bytes. */
  resource: {
    /** Where the resource is. */
    uri: string;
    /** Its media type. */
    mimeType?: string;
    /** The resource's text, for a text resource. */
    text?: string;
    /** Base64-encoded bytes, for a binary resource. */
    blob?: string;
    /** Metadata of the server's. */
    _meta?: Record<string, unknown>;
  };
  /** Hints for the client (audience, priority). */
  annotations?: Record<string, unknown>;
  /** Metadata of the server's. */
  _meta?: Record<string, unknown>;
}

/** One content block of a tool result (MCP `ContentBlock`). */
export type MCPContentBlock =
  | MCPTextContent
  | MCPMediaContent
  | MCPResourceLink
  | MCPEmbeddedResource;

/** What a server answered to `tools/call` (MCP `CallToolResult`). */
export interface MCPCallResult {
  /** The content blocks; servers that follow the specification always send them. */
  content?: MCPContentBlock[];
  /** A JSON object matching the tool's `outputSchema`, when it declares one. */
  structuredContent?: Record<string, unknown>;
  /** `true` when the tool reports its own failure. */
  isError?: boolean;
  /** Fields added by newer protocol revisions or by the server. */
  [key: string]: unknown;
}

/** A call that succeeded. */
export interface MCPToolSuccess {
  /** Always `true`. */
  success: true;
  /** The server's result. */
  data: MCPCallResult;
  /** Always `null`. */
  error: null;
  /** Absent on success. */
  errorKind?: undefined;
  /** Wall-clock time of the call in milliseconds. */
  durationMs: number;
}

/** A call that failed: before the server (not found, validation) or at it. */
export interface MCPToolFailure {
  /** Always `false`. */
  success: false;
  /** The server's payload when it sent one (an `isError` result), else `{}`. */
  data: MCPCallResult;
  /** What went wrong and what to do. */
  error: string;
  /** Machine-readable failure class. */
  errorKind: MCPErrorKind;
  /** Wall-clock time of the call in milliseconds. */
  durationMs: number;
}

/**
 * The outcome of {@linkcode MCPToolAdapter.invoke}: the spec's
 * `MCPToolResult`, as a union on `success`, so a check of `success` narrows
 * `error` to a string (or `null`) and `errorKind` to its kind.
 *
 * @example
 * ```ts
 * import type { MCPToolResult } from "@cleveragents/mcp-adapter";
 *
 * function show(result: MCPToolResult): string {
 *   if (!result.success) return `${result.errorKind}: ${result.error}`;
 *   const first = result.data.content?.[0];
 *   return first?.type === "text" ? first.text : "(no text)";
 * }
 * ```
 */
export type MCPToolResult = MCPToolSuccess | MCPToolFailure;

/** A progress report sent by the server while a tool runs. */
export interface MCPProgress {
  /** Progress so far; increases with every report. */
  progress: number;
  /** Total, when the server knows it. */
  total?: number;
  /** Human-readable status, when the server sent one. */
  message?: string;
}

/** The severity of a server log message (RFC 5424), least severe first. */
export type MCPLogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/**
 * Receives a server's log message (`notifications/message`): its level, the
 * logger it names (when it names one) and its data (any JSON value). The
 * connection's secrets are masked as `[redacted]` in the logger and in every
 * string and property name of the data, a copy of the same shape walked to 64
 * levels (deeper parts become `"[nested too deeply]"`).
 */
export type MCPLogHandler = (
  level: MCPLogLevel,
  logger: string | undefined,
  data: unknown,
) => void;

/** Options of `invoke()`. */
export interface InvokeOptions {
  /** Deadline in ms without a response or progress report. Default: `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Absolute deadline in ms, which progress does not push back. Default: none. */
  totalTimeoutMs?: number;
  /** Cancels the call; the server is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /**
   * Receives every progress report the server sends before the result (for
   * a task: until the task ends).
   */
  onProgress?: (progress: MCPProgress) => void;
  /**
   * Run a tool whose `execution.taskSupport` is `"optional"` as a task.
   * `"required"` tools always run as tasks. Default `false`.
   */
  task?: boolean;
  /** Receives the status of a call that runs as a task, when it changes. */
  onTaskStatus?: (status: MCPTaskStatus) => void;
}

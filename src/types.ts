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
}

/** Why an invocation failed. */
export type MCPErrorKind =
  | "not_found"
  | "validation"
  | "timeout"
  | "server_error"
  | "cancelled"
  | "connection";

/** The outcome of {@linkcode MCPToolAdapter.invoke}: the spec's `MCPToolResult`. */
export interface MCPToolResult {
  /** Whether the invocation succeeded. */
  success: boolean;
  /** The server's result (`content`, `structuredContent`, …); `{}` when there is none. */
  data: Record<string, unknown>;
  /** Error message on failure, `null` on success. */
  error: string | null;
  /** Machine-readable failure class; absent on success. */
  errorKind?: MCPErrorKind;
  /** Wall-clock time of the call in milliseconds. */
  durationMs: number;
}

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
 * logger it names (when it names one) and its data (any JSON value).
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
  /** Receives every progress report the server sends before the result. */
  onProgress?: (progress: MCPProgress) => void;
}

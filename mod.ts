/**
 * Bridge tools from Model Context Protocol (MCP) servers into an agent
 * runtime: connect over stdio, SSE or streamable HTTP, discover tools,
 * validate arguments before calling, invoke with deadlines and clear error
 * classes, infer read-only / writes capabilities, and register the tools into
 * a {@linkcode ToolRegistry} as `{namespace}/{tool}` with provenance.
 *
 * This entry uses only web standards at import time; the stdio transport
 * loads its process backend (`Deno.Command` or `node:child_process`) lazily.
 *
 * @example Connect, call a tool, register everything
 * ```ts ignore
 * import { MCPToolAdapter, ToolRegistry } from "@cleveragents/mcp-adapter";
 *
 * const adapter = new MCPToolAdapter({
 *   name: "files",
 *   transport: "stdio",
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-filesystem", "."],
 * });
 * await adapter.connect();
 * const result = await adapter.invoke("list_directory", { path: "." });
 * console.log(result.success, result.data);
 * const registry = new ToolRegistry();
 * await adapter.registerTools(registry);
 * await adapter.disconnect();
 * ```
 *
 * @module
 */

export { MCPToolAdapter } from "./src/adapter/adapter.ts";
export type {
  ConnectOptions,
  InvokeOptions,
  MCPServerInfo,
  MCPToolAdapterOptions,
  RegisterToolsOptions,
  ResumeTaskOptions,
  TransportFactory,
} from "./src/adapter/adapter.ts";
export type { TaskHandle, TaskStore } from "./src/tasks/store.ts";
export type { OAuthClientProviderLike } from "./src/auth/provider.ts";
export type { DPoPProofRequest, DPoPSessionLike } from "./src/auth/provider.ts";
export type {
  ClientHandlers,
  ElicitationRequest,
  ElicitationResult,
  Root,
  SamplingRequest,
  SamplingResult,
} from "./src/protocol/handlers.ts";
export { validateServerConfig } from "./src/server_config.ts";
export type {
  MCPProtocolChoice,
  MCPServerConfig,
  MCPTransportKind,
  RemoteServerConfig,
  StdioServerConfig,
} from "./src/server_config.ts";
export type { MCPProtocolEra } from "./src/protocol/era.ts";
export {
  MCPAdapterError,
  MCPAuthorizationRequiredError,
  MCPConfigError,
  MCPConnectionError,
  MCPInitializeStatusError,
  MCPNotConnectedError,
  MCPProtocolError,
  MCPRequestLostError,
  MCPSessionExpiredError,
  MCPTimeoutError,
} from "./src/errors.ts";
export type { MCPAdapterErrorOptions, MCPErrorCode } from "./src/errors.ts";
export {
  applyCapabilityOverrides,
  inferCapabilities,
  resolveCapability,
} from "./src/tools/capabilities.ts";
export type { CapabilityOverrides } from "./src/tools/capabilities.ts";
export { applyToolFilter, compileToolFilter } from "./src/tools/filter.ts";
export { ToolRegistry } from "./src/tools/registry.ts";
export type { RegisteredTool } from "./src/tools/registry.ts";
export { TOOL_ALIAS_PATTERN, toolAlias } from "./src/tools/alias.ts";
export { MCPToolHub } from "./src/hub.ts";
export type {
  MCPAttributes,
  MCPAttributeValue,
  MCPHistogram,
  MCPMeterProvider,
  MCPSpan,
  MCPSpanContext,
  MCPTelemetryOptions,
  MCPTracer,
  MCPTracerProvider,
} from "./src/telemetry/types.ts";
export type {
  HubServerStatus,
  HubStartOptions,
  MCPToolHubOptions,
  ServerAuth,
  ServerEntry,
} from "./src/hub.ts";
export type { HubList, MCPProvenance } from "./src/hub.ts";
export type {
  CompleteOptions,
  ListOptions,
  MCPAnnotations,
  MCPCompletion,
  MCPCompletionRef,
  MCPFailure,
  MCPListKind,
  MCPOutcome,
  MCPPrompt,
  MCPPromptArgument,
  MCPPromptMessage,
  MCPPromptMessages,
  MCPResource,
  MCPResourceContents,
  MCPResourceRead,
  MCPResourceTemplate,
  MCPSuccess,
  PromptOptions,
  ReadResourceOptions,
} from "./src/protocol/content_types.ts";
export type {
  EnterpriseManagedAuth,
  OAuthLoginAuth,
  WorkloadIdentityAuth,
} from "./src/config/types.ts";
export { StdioTransport } from "./src/transports/stdio.ts";
export type { StdioTransportOptions } from "./src/transports/stdio.ts";
export { StreamableHTTPTransport } from "./src/transports/streamable_http.ts";
export type {
  StreamableHTTPReconnectionOptions,
  StreamableHTTPTransportOptions,
} from "./src/transports/streamable_http.ts";
export { SSEClientTransport } from "./src/transports/sse.ts";
export type { SSEClientTransportOptions } from "./src/transports/sse.ts";
export type { RemoteTransportOptions } from "./src/transports/remote.ts";
export type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResultResponse,
  MCPAuthorizationCallback,
  MCPTransport,
  RequestId,
  TransportActivity,
  TransportSendOptions,
} from "./src/transports/transport.ts";
export type {
  JsonSchema,
  MCPAppVisibility,
  MCPCallResult,
  MCPContentBlock,
  MCPEmbeddedResource,
  MCPErrorKind,
  MCPLogHandler,
  MCPLogLevel,
  MCPMediaContent,
  MCPProgress,
  MCPResourceLink,
  MCPTaskState,
  MCPTaskStatus,
  MCPTextContent,
  MCPToolDescriptor,
  MCPToolFailure,
  MCPToolFilter,
  MCPToolResult,
  MCPToolSuccess,
  MCPToolUi,
  MCPUiResource,
  ReadUiResourceOptions,
  ToolAnnotations,
  ToolCapability,
  ToolExecution,
} from "./src/types.ts";

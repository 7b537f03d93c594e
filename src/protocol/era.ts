/**
 * The two protocol eras a server may speak, and the names both share: the
 * modern era (2026-07-28 and later: no handshake, every request carries its
 * protocol version, client capabilities and client info in `_meta`) and the
 * 2025 era (the `initialize` handshake). Internal; the probe that tells them
 * apart is `_discover.ts`, loaded with the first connect.
 *
 * @module
 */

import type { MCPProtocolChoice } from "../server_config.ts";
import type { MCPLogLevel } from "../types.ts";
import {
  isModernVersion,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
} from "../version.ts";
import { type ClientHandlers, elicitationCapability } from "./handlers.ts";

/** Which era a connection speaks. */
export type MCPProtocolEra = "modern" | "legacy";

/** What a server said about itself in `initialize` or `server/discover`. */
export interface MCPServerInfo {
  /** The negotiated protocol version. */
  protocolVersion: string;
  /**
   * `"modern"` (2026-07-28 and later: per-request protocol, no session) or
   * `"legacy"` (the 2025 era's `initialize` handshake).
   */
  era: MCPProtocolEra;
  /** The server's name and version. */
  serverInfo: { name: string; version: string };
  /** The server's capabilities. */
  capabilities: Record<string, unknown>;
  /** Usage hints for the model, when the server sent some. */
  instructions?: string;
}

/** The `_meta` key of a request's protocol version. */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
/** The `_meta` key of a request's client capabilities. */
export const META_CLIENT_CAPABILITIES =
  "io.modelcontextprotocol/clientCapabilities";
/** The `_meta` key of a request's client name and version. */
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
/** The `_meta` key of a request's log level (no key: no log messages). */
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
/** The `_meta` key of a result's server name and version. */
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
/** The `_meta` key naming the `subscriptions/listen` a notification belongs to. */
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** The tasks extension's id (in `capabilities.extensions`). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** `-32020`: the request's headers and body disagree (streamable HTTP). */
export const HEADER_MISMATCH = -32020;
/** `-32021`: the request needs a client capability it did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021;
/** `-32022`: the server does not speak the request's protocol version. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** What a connection may offer, from the server's `protocol` choice. */
export interface ProtocolPlan {
  /** Modern revisions to ask with, preferred first; empty: no probe. */
  modern: readonly string[];
  /** 2025-era revisions `initialize` may settle on; empty: no handshake. */
  legacy: readonly string[];
}

/**
 * The plan of a `protocol` choice (`"auto"` when none is given). The legacy
 * SSE transport (HTTP+SSE, 2024-11-05) has no modern form: it is never
 * probed.
 */
export function protocolPlan(
  choice: MCPProtocolChoice | undefined,
  transport: string,
): ProtocolPlan {
  const chosen = choice ?? "auto";
  switch (chosen === "auto" && transport === "sse" ? "legacy" : chosen) {
    case "auto":
      return {
        modern: MODERN_PROTOCOL_VERSIONS,
        legacy: LEGACY_PROTOCOL_VERSIONS,
      };
    case "modern":
      return { modern: MODERN_PROTOCOL_VERSIONS, legacy: [] };
    case "legacy":
      return { modern: [], legacy: LEGACY_PROTOCOL_VERSIONS };
    default:
      return isModernVersion(chosen)
        ? { modern: [chosen], legacy: [] }
        : { modern: [], legacy: [chosen] };
  }
}

/** The client capabilities of a modern request, for these handlers. */
export function modernCapabilities(
  handlers: ClientHandlers | undefined,
  extensions?: Record<string, unknown>,
): Record<string, unknown> {
  // Tasks are accepted on every request: a tool call the server runs as a
  // task is followed to its end (`_task_ext.ts`).
  const capabilities: Record<string, unknown> = {
    extensions: { ...extensions, [TASKS_EXTENSION]: {} },
  };
  const elicitation = elicitationCapability(handlers);
  if (elicitation) capabilities.elicitation = elicitation;
  if (handlers?.sampling) capabilities.sampling = {};
  if (handlers?.roots) capabilities.roots = {};
  return capabilities;
}

/** The `_meta` every modern request carries. */
export function envelope(
  version: string,
  capabilities: Record<string, unknown>,
  clientInfo: { name: string; version: string },
  logLevel: MCPLogLevel | undefined,
): Readonly<Record<string, unknown>> {
  const meta: Record<string, unknown> = {
    [META_PROTOCOL_VERSION]: version,
    [META_CLIENT_INFO]: clientInfo,
    [META_CLIENT_CAPABILITIES]: capabilities,
  };
  if (logLevel !== undefined) meta[META_LOG_LEVEL] = logLevel;
  return Object.freeze(meta);
}

/**
 * Era detection as the transport bindings of MCP 2026-07-28 describe it:
 * ask `server/discover` with the preferred modern revision; a discover
 * result or an `UnsupportedProtocolVersionError` naming a revision both
 * speak means modern; anything else means the 2025 era, whose `initialize`
 * handshake follows. Never keyed to one error code: legacy servers answer
 * `-32601`, `-32602`, a 400 without a JSON-RPC body, or nothing — and some
 * fumble an unknown first request outright (a 500 with a JSON-RPC error, a
 * body that is not JSON, a stream that stalls or closes). The probe never
 * costs a connection `initialize` would make: every such answer falls back
 * to `initialize` once, and when that fails too, the error quotes both.
 * What `initialize` would meet as well ends the connect here: a login the
 * server asks for or that failed, a server out of reach, a server that
 * speaks only modern revisions this client does not.
 * Loaded by the connection with the first connect. Internal.
 *
 * @module
 */

import {
  MCPAuthorizationRequiredError,
  MCPConfigError,
  MCPConnectionError,
  MCPInitializeStatusError,
  MCPNotConnectedError,
  MCPProtocolError,
  MCPRequestLostError,
  MCPTimeoutError,
  MCPUnusableAnswerError,
} from "../errors.ts";
import { errorMessage } from "../util/caught.ts";
import { isRecord } from "../util/values.ts";
import { excerpt } from "../util/redact.ts";
import { isModernVersion, LEGACY_PROTOCOL_VERSIONS } from "../version.ts";
import {
  type MCPServerInfo,
  META_SERVER_INFO,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "./era.ts";
import type { Result, Session } from "./session.ts";
import type { MCPServerConfig } from "../server_config.ts";

/** What the probe found out. */
export type Verdict =
  /** The server speaks `version` of the modern era; `result` is its discover answer. */
  | { era: "modern"; version: string; result: Result }
  /**
   * The server speaks the 2025 era, or fumbled the probe: run `initialize`.
   * `why` says what showed it; `failed` when the probe failed rather than
   * being refused (then a failing `initialize` quotes it too).
   */
  | { era: "legacy"; why: string; failed?: boolean }
  /** A stdio server exited on the probe: start it again for `initialize`. */
  | { era: "restart"; why: string };

/** How to probe. */
export interface ProbeOptions {
  /** Modern revisions to offer, preferred first (not empty). */
  versions: readonly string[];
  /** The request `_meta` for a revision. */
  envelope: (version: string) => Readonly<Record<string, unknown>>;
  /**
   * How long to wait for the answer. A server silent for this long is
   * taken for a 2025-era one.
   */
  timeoutMs: number;
  /** Whether the server is a local process (stdio). */
  stdio: boolean;
  /** Names the server in messages. */
  label: string;
}

/** The most revisions a server's list may name; a longer list is cut. */
const MAX_VERSIONS = 64;

/**
 * Sends `server/discover` and classifies the answer. An
 * `UnsupportedProtocolVersionError` whose `supported` list names a modern
 * revision we speak is followed once, with that revision.
 *
 * @throws {MCPConnectionError} When the server speaks only modern revisions
 * this client does not, or (HTTP) cannot be reached or fails.
 * @throws {MCPAuthorizationRequiredError} When the server wants a login.
 */
export async function probe(
  session: Session,
  options: ProbeOptions,
): Promise<Verdict> {
  const { versions, label } = options;
  let version = versions[0]!;
  let corrected = false;
  for (;;) {
    session.setProtocolVersion(version);
    let result: Result;
    try {
      result = await session.request(
        "server/discover",
        { _meta: options.envelope(version) },
        {
          timeoutMs: options.timeoutMs,
          quiet: true,
          expectedFailure: (error) => eraAnswer(error, options.stdio),
        },
      );
    } catch (error) {
      if (error instanceof MCPProtocolError) {
        const supported = error.rpcCode === UNSUPPORTED_PROTOCOL_VERSION
          ? versionList(error.data, "supported")
          : undefined;
        if (supported === undefined) {
          return {
            era: "legacy",
            why: `it answered "server/discover" with error ${error.rpcCode} (${
              excerpt(error.message, [])
            })`,
          };
        }
        const mutual = versions.find((v) => supported.includes(v));
        if (mutual !== undefined && !corrected) {
          corrected = true;
          version = mutual;
          continue;
        }
        if (supported.some((v) => !isModernVersion(v))) {
          return {
            era: "legacy",
            why: `it speaks ${supported.join(", ")}`,
          };
        }
        throw noCommonVersion(label, supported, versions);
      }
      if (error instanceof MCPInitializeStatusError) {
        return { era: "legacy", why: error.message };
      }
      if (error instanceof MCPTimeoutError) {
        return {
          era: "legacy",
          why:
            `it did not answer "server/discover" within ${options.timeoutMs} ms`,
          failed: !options.stdio,
        };
      }
      if (options.stdio && error instanceof MCPNotConnectedError) {
        return {
          era: "restart",
          why: 'it exited on "server/discover" before "initialize"',
        };
      }
      // An answer, but no usable one (a 5xx, a body that is not JSON, a
      // stream that closed before the response): `initialize` may still
      // work, on a server that routes only what it knows. A login that
      // failed, a server out of reach, a connect given up: it would not.
      if (
        (error instanceof MCPUnusableAnswerError ||
          error instanceof MCPRequestLostError) && !session.closed
      ) return { era: "legacy", why: errorMessage(error), failed: true };
      throw error;
    }
    const supported = versionList(result, "supportedVersions");
    if (supported === undefined || !isRecord(result.capabilities)) {
      return {
        era: "legacy",
        why:
          'its answer to "server/discover" is not a discover result (no supportedVersions or capabilities)',
      };
    }
    const mutual = versions.find((v) => supported.includes(v));
    if (mutual !== undefined) return { era: "modern", version: mutual, result };
    if (supported.some((v) => LEGACY_PROTOCOL_VERSIONS.includes(v))) {
      return { era: "legacy", why: `it speaks ${supported.join(", ")}` };
    }
    throw noCommonVersion(label, supported, versions);
  }
}

/**
 * The error of an `initialize` that failed after the probe failed: both
 * answers quoted, the class kept where a caller acts on it (a 400, 404 or
 * 405 to `initialize` tries the legacy SSE transport; a login stays a
 * login).
 *
 * @param label Names the server.
 * @param probeWhy What the probe got.
 * @param error What `initialize` got.
 */
export function bothFailed(
  label: string,
  probeWhy: string,
  error: unknown,
): unknown {
  if (
    error instanceof MCPAuthorizationRequiredError ||
    error instanceof MCPConfigError || error instanceof MCPTimeoutError
  ) return error;
  const clip = (text: string) => text.replace(/\.\s*$/, "");
  const message =
    `MCP server "${label}" failed both handshakes. "server/discover" (the 2026-07-28 probe) got: ${
      clip(probeWhy)
    }. "initialize" (the 2025 handshake) got: ${errorMessage(error)}`;
  return error instanceof MCPInitializeStatusError
    ? Object.assign(new MCPInitializeStatusError(message, error.status), {
      cause: error,
    })
    : new MCPConnectionError(message, { cause: error });
}

/** The error of a server pinned to the modern era that does not speak it. */
export function notModern(
  config: MCPServerConfig,
  offered: readonly string[],
  why: string,
): MCPConnectionError {
  return new MCPConnectionError(
    `MCP server "${config.name}" does not speak the modern protocol (${
      offered.join(", ")
    }): ${why}. Remove "protocol": "${config.protocol}" (or set "legacy") to use the 2025 era's initialize handshake.`,
  );
}

/** What a modern server said about itself in its discover result. */
export function discoveredInfo(version: string, result: Result): MCPServerInfo {
  const meta = isRecord(result._meta) ? result._meta : {};
  const server = meta[META_SERVER_INFO];
  const info: MCPServerInfo = {
    protocolVersion: version,
    era: "modern",
    serverInfo: isRecord(server) && typeof server.name === "string" &&
        typeof server.version === "string"
      ? { name: server.name, version: server.version }
      : { name: "unknown", version: "unknown" },
    capabilities: isRecord(result.capabilities) ? result.capabilities : {},
  };
  if (typeof result.instructions === "string") {
    info.instructions = result.instructions;
  }
  return info;
}

/** A list of revision strings at `key` of `value`, or `undefined` if there is none. */
function versionList(value: unknown, key: string): string[] | undefined {
  if (!isRecord(value)) return undefined;
  const list = value[key];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const versions = list.slice(0, MAX_VERSIONS).filter((v): v is string =>
    typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v)
  );
  return versions.length === 0 ? undefined : versions;
}

function noCommonVersion(
  label: string,
  supported: readonly string[],
  ours: readonly string[],
): MCPConnectionError {
  return new MCPConnectionError(
    `MCP server "${label}" speaks protocol revisions ${
      supported.join(", ")
    }, and this client offered ${
      ours.join(", ")
    }; upgrade this library, or set "protocol" to a revision both speak`,
  );
}

/**
 * For telemetry: whether a failed probe is an answer that decides the era
 * (a refusal, an HTTP status, a silent or exiting stdio server), which is
 * recorded as `era_probe`, not as an error; a failure of the connection
 * itself stays an error.
 */
function eraAnswer(error: unknown, stdio: boolean): string | undefined {
  return error instanceof MCPProtocolError ||
      error instanceof MCPInitializeStatusError ||
      (stdio &&
        (error instanceof MCPTimeoutError ||
          error instanceof MCPNotConnectedError))
    ? "era_probe"
    : undefined;
}

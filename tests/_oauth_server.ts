/**
 * An OAuth 2.1 authorization server and an MCP server it protects, for the
 * OAuth tests: `node:http` on 127.0.0.1 (ephemeral ports) like
 * `_remote.ts`, whose SDK streamable-HTTP (or legacy SSE) server serves the
 * MCP side; the authorization server itself is `_oauth_authorization.ts`.
 *
 * The authorization server approves every valid authorization request at
 * once (302 to the redirect URI with `code` and `state`), so a client logs
 * in by fetching the authorization URL without following redirects. It
 * checks what a strict server checks — PKCE S256, the `resource` parameter,
 * the client's token endpoint auth method, redirect URIs, single-use codes,
 * refresh-token rotation — and answers with standard OAuth errors.
 * Discovery comes in the shapes clients meet: RFC 9728 protected resource
 * metadata, RFC 8414 or OpenID metadata (also at a path-based issuer), and
 * the 2025-03-26 fallbacks (metadata at the MCP server's origin, or no
 * metadata and the default `/authorize`, `/token`, `/register` there).
 * Everything a client sent is recorded for assertions.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  listen,
  sdkSseServer,
  sdkStreamableServer,
  type TestHttpServer,
} from "./_remote.ts";
import {
  authorizationServer,
  type AuthorizationServerOptions,
  json,
  type OAuthEvent,
  type RegisteredClient,
  TOKEN_AUTH_METHODS,
  type TokenAuthMethod,
} from "./_oauth_authorization.ts";
import type { Cleanup } from "./_helpers.ts";
import { REDIRECT_URL } from "./_oauth_client.ts";

export type { OAuthEvent, RegisteredClient, TokenAuthMethod };
export { TOKEN_AUTH_METHODS };

/**
 * Options of {@linkcode startOAuthServer}, those of the authorization server
 * and those of the MCP side; every one has a default.
 */
export interface OAuthServerOptions extends AuthorizationServerOptions {
  /**
   * Where the protected resource metadata is served on the MCP origin:
   * `"path"` (`/.well-known/oauth-protected-resource/mcp`, the default),
   * `"root"` (`/.well-known/oauth-protected-resource`), or `"none"` (a
   * 2025-03-26 server).
   */
  resourceMetadata?: "path" | "root" | "none";
  /** Put `resource_metadata` in the 401's `WWW-Authenticate`. Default true. */
  resourceMetadataInChallenge?: boolean;
  /** The `scope` of the 401's `WWW-Authenticate`. Default: none. */
  challengeScope?: string;
  /** `scopes_supported` of the protected resource metadata. Default: none. */
  resourceScopes?: string[];
  /** Serve the authorization server on the MCP server's origin (2025-03-26). Default false. */
  authServerOnMcpOrigin?: boolean;
  /** Require the `resource` parameter (RFC 8707) in authorization and token requests. Default: when resource metadata is served. */
  requireResource?: boolean;
  /** Scopes every MCP request needs (else 403 `insufficient_scope`). Default none. */
  requiredScopes?: string[];
  /** Extra scopes `tools/call` of a tool needs, by tool name. */
  toolScopes?: Record<string, string[]>;
  /** Adds tools to each new McpServer. */
  extend?: (server: McpServer) => void;
  /** The protected MCP server's transport: at `/mcp`, or legacy SSE at `/sse`. Default streamable HTTP. */
  transport?: "streamable-http" | "sse";
}

/** One request to the MCP endpoint and how the guard answered it. */
export interface McpExchange {
  rpcMethod: string | undefined;
  tool: string | undefined;
  token: string;
  status: 401 | 403 | "passed";
}

/** A running authorization server and protected MCP server. */
export interface OAuthTestServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp` (`…/sse` for SSE). */
  url: string;
  /** The MCP server, with its recorded requests. */
  mcp: TestHttpServer;
  /** The authorization server (the MCP server itself when `authServerOnMcpOrigin`). */
  authServer: TestHttpServer;
  /** The issuer URL. */
  issuer: string;
  /** The resource indicator clients must send (`url`). */
  resource: string;
  /** What clients asked of the authorization server, in order. */
  events: OAuthEvent[];
  /** Requests to the MCP endpoint, in order. */
  exchanges: McpExchange[];
  /** Every client, registered or pre-registered, by ID. */
  clients: Map<string, RegisteredClient>;
  /** The scopes of a live access token, or undefined. */
  scopesOf(accessToken: string): string[] | undefined;
  /** Makes every access token issued so far expire now. */
  expireAccessTokens(): void;
  /** Stops both servers. */
  close(): Promise<void>;
}

/**
 * Starts the two servers (one, on the MCP origin, for a 2025-03-26 setup).
 *
 * @param options What to serve and check; see {@linkcode OAuthServerOptions}.
 * @returns The running servers and what they recorded.
 */
export async function startOAuthServer(
  options: OAuthServerOptions = {},
): Promise<OAuthTestServer> {
  const prm = options.resourceMetadata ?? "path";
  const sse = options.transport === "sse";
  /** The MCP endpoint's path: the resource, and the suffix of path-based metadata. */
  const mcpPath = sse ? "/sse" : "/mcp";
  const exchanges: McpExchange[] = [];
  let mcpOrigin = "";
  let asOrigin = "";
  const resource = () => `${mcpOrigin}${mcpPath}`;
  const prmUrl = () =>
    `${mcpOrigin}/.well-known/oauth-protected-resource${
      prm === "path" ? mcpPath : ""
    }`;
  const as = authorizationServer(options, {
    origin: () => asOrigin,
    resource,
    requireResource: options.requireResource ?? prm !== "none",
  });
  const { accessTokens, issuer } = as;

  /** Guards the MCP endpoint; true when it answered (401/403). */
  const guard = (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): boolean => {
    const rpc = body as
      | { method?: string; params?: { name?: string } }
      | undefined;
    const header = req.headers.authorization ?? "";
    const bearer = header.startsWith("Bearer ") ? header.slice(7) : "";
    const exchange: McpExchange = {
      rpcMethod: rpc?.method,
      tool: rpc?.method === "tools/call" ? rpc.params?.name : undefined,
      token: bearer,
      status: "passed",
    };
    exchanges.push(exchange);
    const metadata =
      prm !== "none" && options.resourceMetadataInChallenge !== false
        ? `, resource_metadata="${prmUrl()}"`
        : "";
    const grant = accessTokens.get(bearer);
    const live = grant !== undefined && grant.expiresAt > Date.now() &&
      (grant.resource === undefined || grant.resource === resource());
    if (!live) {
      exchange.status = 401;
      const error = bearer === "" ? "" : `error="invalid_token", `;
      const scope = options.challengeScope
        ? `, scope="${options.challengeScope}"`
        : "";
      res.writeHead(401, {
        "www-authenticate": `Bearer ${error}realm="mcp"${scope}${metadata}`,
        "content-type": "application/json",
      }).end(JSON.stringify({ error: "invalid_token" }));
      return true;
    }
    const needed = [
      ...(options.requiredScopes ?? []),
      ...(exchange.tool === undefined
        ? []
        : options.toolScopes?.[exchange.tool] ?? []),
    ];
    if (needed.every((scope) => grant.scopes.includes(scope))) return false;
    exchange.status = 403;
    // Only what this request needs: keeping the scopes it already has is the client's job.
    res.writeHead(403, {
      "www-authenticate": `Bearer error="insufficient_scope", scope="${
        needed.join(" ")
      }"${metadata}`,
      "content-type": "application/json",
    }).end(JSON.stringify({ error: "insufficient_scope" }));
    return true;
  };

  const intercept = (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): boolean => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (
      prm !== "none" && req.method === "GET" &&
      path === new URL(prmUrl()).pathname
    ) {
      json(res, 200, {
        resource: resource(),
        authorization_servers: [issuer()],
        bearer_methods_supported: ["header"],
        ...(options.resourceScopes === undefined
          ? {}
          : { scopes_supported: options.resourceScopes }),
      });
      return true;
    }
    if (options.authServerOnMcpOrigin && as.serve(req, res, body)) return true;
    if (path.startsWith("/.well-known/")) {
      json(res, 404, { error: "not_found" });
      return true;
    }
    const guarded = sse
      ? path === "/sse" || path === "/messages"
      : path === "/mcp";
    return guarded && guard(req, res, body);
  };
  const mcp = sse
    ? await sdkSseServer({ extend: options.extend, intercept })
    : await sdkStreamableServer({ extend: options.extend, intercept });
  mcpOrigin = mcp.origin;
  let authServer: TestHttpServer = mcp;
  if (options.authServerOnMcpOrigin) asOrigin = mcp.origin;
  else {
    authServer = await listen((req, res, body) => {
      if (!as.serve(req, res, body)) json(res, 404, { error: "not_found" });
    });
    asOrigin = authServer.origin;
  }
  return {
    url: mcp.url,
    mcp,
    authServer,
    issuer: issuer(),
    resource: resource(),
    events: as.events,
    exchanges,
    clients: as.clients,
    scopesOf: (accessToken) => accessTokens.get(accessToken)?.scopes,
    expireAccessTokens: () => {
      for (const grant of accessTokens.values()) grant.expiresAt = 0;
    },
    close: async () => {
      if (authServer !== mcp) await authServer.close();
      await mcp.close();
    },
  };
}

/** Makes {@linkcode startOAuthServer}s whose close() is pushed to `cleanups`. */
export function oauthServers(
  cleanups: Cleanup[],
): (options?: OAuthServerOptions) => Promise<OAuthTestServer> {
  return async (options = {}) => {
    const server = await startOAuthServer(options);
    cleanups.push(() => server.close());
    return server;
  };
}

/** What clients asked of `server`'s authorization server, of one kind, in order. */
export function eventsOf<K extends OAuthEvent["kind"]>(
  server: OAuthTestServer,
  kind: K,
): Extract<OAuthEvent, { kind: K }>[] {
  return server.events.filter((e): e is Extract<OAuthEvent, { kind: K }> =>
    e.kind === kind
  );
}

/** The metadata paths clients fetched from `server`, each once, in first-fetch order. */
export function metadataPaths(server: OAuthTestServer): string[] {
  return [...new Set(eventsOf(server, "metadata").map((e) => e.path))];
}

/**
 * Asserts the client registered with {@linkcode REDIRECT_URL}, then asked for
 * authorization with PKCE S256, the resource and the client id it was given.
 */
export function assertRegisteredAndAuthorized(server: OAuthTestServer): void {
  const [registration] = eventsOf(server, "register");
  assert.deepEqual(registration?.body.redirect_uris, [REDIRECT_URL]);
  const [authorization] = eventsOf(server, "authorize");
  assert.equal(authorization?.error, undefined);
  assert.equal(authorization?.query.code_challenge_method, "S256");
  assert.equal(authorization?.query.resource, server.resource);
  assert.equal(authorization?.query.client_id, registration?.clientId);
}

/**
 * An OAuth 2.1 authorization server and an MCP server it protects, for the
 * OAuth tests: `node:http` on 127.0.0.1 (ephemeral ports) like
 * `_remote.ts`, whose SDK streamable-HTTP server serves the MCP side.
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

import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  listen,
  type SdkStreamableServer,
  sdkStreamableServer,
  type TestHttpServer,
} from "./_remote.ts";

/** Client authentication at the token endpoint. */
export type TokenAuthMethod =
  | "client_secret_basic"
  | "client_secret_post"
  | "none";

/** A client the authorization server knows. */
export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: TokenAuthMethod;
}

/** Options of {@linkcode startOAuthServer}; every one has a default. */
export interface OAuthServerOptions {
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
  /** The issuer's path, e.g. `"/tenant1"`. Default `""`. */
  issuerPath?: string;
  /** The path the endpoints live under, e.g. `"/oauth"`. Default: `issuerPath`. */
  endpointPath?: string;
  /**
   * Authorization server metadata: `"oauth"` (RFC 8414, the default),
   * `"oidc"` (OpenID discovery), or `"none"` (clients fall back to
   * `/authorize`, `/token`, `/register`).
   */
  metadata?: "oauth" | "oidc" | "none";
  /** `scopes_supported` of the authorization server metadata. Default: none. */
  scopesSupported?: string[];
  /** `token_endpoint_auth_methods_supported`. Default: all three. */
  tokenEndpointAuthMethods?: TokenAuthMethod[];
  /** Offer dynamic client registration. Default true. */
  dynamicRegistration?: boolean;
  /** The method dynamic registration assigns. Default: the client's ask, else the first supported. */
  registrationAuthMethod?: TokenAuthMethod;
  /** Pre-registered clients. */
  clients?: RegisteredClient[];
  /** Require the `resource` parameter (RFC 8707) in authorization and token requests. Default: when resource metadata is served. */
  requireResource?: boolean;
  /** Scopes every MCP request needs (else 403 `insufficient_scope`). Default none. */
  requiredScopes?: string[];
  /** Extra scopes `tools/call` of a tool needs, by tool name. */
  toolScopes?: Record<string, string[]>;
  /** Access token lifetime in ms. Default one hour. */
  accessTokenTtlMs?: number;
  /** When refresh tokens are issued. Default `"always"`. */
  refreshTokens?: "always" | "offline_access" | "never";
  /** Adds tools to each new McpServer. */
  extend?: (server: McpServer) => void;
}

/** One thing a client asked of the authorization server. */
export type OAuthEvent =
  | { kind: "metadata"; path: string }
  | { kind: "register"; body: Record<string, unknown>; clientId: string }
  | { kind: "authorize"; query: Record<string, string>; error?: string }
  | {
    kind: "token";
    params: Record<string, string>;
    authMethod: TokenAuthMethod;
    error?: string;
    accessToken?: string;
  };

/** One request to the MCP endpoint and how the guard answered it. */
export interface McpExchange {
  rpcMethod: string | undefined;
  tool: string | undefined;
  token: string;
  status: 401 | 403 | "passed";
}

interface IssuedToken {
  clientId: string;
  scopes: string[];
  resource: string | undefined;
  expiresAt: number;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scopes: string[];
  resource: string | undefined;
}

/** A running authorization server and protected MCP server. */
export interface OAuthTestServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The MCP server, with its recorded requests. */
  mcp: SdkStreamableServer;
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

const HOUR_MS = 3_600_000;
const ALL_METHODS: TokenAuthMethod[] = [
  "client_secret_basic",
  "client_secret_post",
  "none",
];

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, {
    "content-type": "application/json",
    "cache-control": "no-store",
  }).end(JSON.stringify(value));
}

function oauthError(
  res: ServerResponse,
  status: number,
  error: string,
  description: string,
): string {
  json(res, status, { error, error_description: description });
  return error;
}

function scopesOf(text: string | null | undefined): string[] {
  return (text ?? "").split(" ").filter((scope) => scope !== "");
}

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
  );
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-")
    .replace(/\//g, "_").replace(/=+$/, "");
}

function randomToken(prefix: string): string {
  return `${prefix}-${crypto.randomUUID()}`;
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
  const issuerPath = options.issuerPath ?? "";
  const endpointPath = options.endpointPath ?? issuerPath;
  const metadataKind = options.metadata ?? "oauth";
  const methods = options.tokenEndpointAuthMethods ?? ALL_METHODS;
  const requireResource = options.requireResource ?? prm !== "none";
  const ttl = options.accessTokenTtlMs ?? HOUR_MS;
  const events: OAuthEvent[] = [];
  const exchanges: McpExchange[] = [];
  const clients = new Map<string, RegisteredClient>(
    (options.clients ?? []).map((client) => [client.client_id, client]),
  );
  const codes = new Map<string, PendingCode>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, Omit<IssuedToken, "expiresAt">>();
  let mcpOrigin = "";
  let asOrigin = "";
  const issuer = () => `${asOrigin}${issuerPath}`;
  const resource = () => `${mcpOrigin}/mcp`;
  const prmUrl = () =>
    `${mcpOrigin}/.well-known/oauth-protected-resource${
      prm === "path" ? "/mcp" : ""
    }`;

  const metadataDocument = () => ({
    issuer: issuer(),
    authorization_endpoint: `${asOrigin}${endpointPath}/authorize`,
    token_endpoint: `${asOrigin}${endpointPath}/token`,
    ...(options.dynamicRegistration === false
      ? {}
      : { registration_endpoint: `${asOrigin}${endpointPath}/register` }),
    response_types_supported: ["code"],
    grant_types_supported: [
      "authorization_code",
      "refresh_token",
      "client_credentials",
    ],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: methods,
    ...(options.scopesSupported === undefined
      ? {}
      : { scopes_supported: options.scopesSupported }),
    ...(metadataKind === "oidc"
      ? {
        jwks_uri: `${issuer()}/jwks`,
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
      }
      : {}),
  });
  const metadataPaths = metadataKind === "oauth"
    ? [`/.well-known/oauth-authorization-server${issuerPath}`]
    : metadataKind === "oidc"
    ? [
      `/.well-known/openid-configuration${issuerPath}`,
      `${issuerPath}/.well-known/openid-configuration`,
    ]
    : [];

  /** Which client the token request authenticates as, and how; or an error. */
  const authenticate = (
    req: IncomingMessage,
    params: URLSearchParams,
  ): { client: RegisteredClient; method: TokenAuthMethod } | string => {
    const header = req.headers.authorization ?? "";
    let method: TokenAuthMethod = "none";
    let id = params.get("client_id") ?? "";
    let secret = params.get("client_secret") ?? undefined;
    if (header.startsWith("Basic ")) {
      method = "client_secret_basic";
      const [user = "", pass = ""] = atob(header.slice(6)).split(":");
      id = decodeURIComponent(user);
      secret = decodeURIComponent(pass);
    } else if (secret !== undefined) method = "client_secret_post";
    const client = clients.get(id);
    if (client === undefined) return "unknown client";
    if (!methods.includes(method)) return `${method} is not supported`;
    if (method !== client.token_endpoint_auth_method) {
      return `client registered for ${client.token_endpoint_auth_method}, used ${method}`;
    }
    if (method !== "none" && secret !== client.client_secret) {
      return "wrong client secret";
    }
    return { client, method };
  };

  const issue = (
    res: ServerResponse,
    grant: Omit<IssuedToken, "expiresAt">,
  ): string => {
    const accessToken = randomToken("at");
    accessTokens.set(accessToken, { ...grant, expiresAt: Date.now() + ttl });
    const policy = options.refreshTokens ?? "always";
    const withRefresh = policy === "always" ||
      (policy === "offline_access" && grant.scopes.includes("offline_access"));
    let refreshToken: string | undefined;
    if (withRefresh) {
      refreshToken = randomToken("rt");
      refreshTokens.set(refreshToken, grant);
    }
    json(res, 200, {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: Math.max(1, Math.round(ttl / 1000)),
      ...(grant.scopes.length > 0 ? { scope: grant.scopes.join(" ") } : {}),
      ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    });
    return accessToken;
  };

  const register = (res: ServerResponse, body: unknown) => {
    const asked = (body ?? {}) as Record<string, unknown>;
    const redirectUris = asked.redirect_uris;
    if (
      !Array.isArray(redirectUris) || redirectUris.length === 0 ||
      !redirectUris.every((uri) => typeof uri === "string")
    ) {
      oauthError(res, 400, "invalid_redirect_uri", "redirect_uris required");
      return;
    }
    const askedMethod = asked.token_endpoint_auth_method as TokenAuthMethod;
    const method = options.registrationAuthMethod ??
      (methods.includes(askedMethod) ? askedMethod : methods[0]!);
    const client: RegisteredClient = {
      client_id: randomToken("client"),
      ...(method === "none" ? {} : { client_secret: randomToken("secret") }),
      redirect_uris: redirectUris,
      token_endpoint_auth_method: method,
    };
    clients.set(client.client_id, client);
    events.push({ kind: "register", body: asked, clientId: client.client_id });
    json(res, 201, { ...asked, ...client });
  };

  const authorize = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    const query = Object.fromEntries(url.searchParams);
    const event: OAuthEvent = { kind: "authorize", query };
    events.push(event);
    const client = clients.get(query.client_id ?? "");
    if (
      client === undefined ||
      !client.redirect_uris.includes(query.redirect_uri ?? "")
    ) {
      // Never redirect to an unverified URI (RFC 6749 §4.1.2.1).
      event.error = oauthError(
        res,
        400,
        "invalid_request",
        "unknown client or redirect_uri",
      );
      return;
    }
    const back = new URL(query.redirect_uri!);
    const fail = (error: string) => {
      event.error = error;
      back.searchParams.set("error", error);
      if (query.state) back.searchParams.set("state", query.state);
      res.writeHead(302, { location: back.href }).end();
    };
    if (query.response_type !== "code") {
      return fail("unsupported_response_type");
    }
    if (!query.code_challenge || query.code_challenge_method !== "S256") {
      return fail("invalid_request");
    }
    if (requireResource && query.resource !== resource()) {
      return fail("invalid_target");
    }
    const scopes = scopesOf(query.scope);
    const supported = options.scopesSupported;
    if (supported && !scopes.every((scope) => supported.includes(scope))) {
      return fail("invalid_scope");
    }
    const code = randomToken("code");
    codes.set(code, {
      clientId: client.client_id,
      redirectUri: query.redirect_uri!,
      challenge: query.code_challenge,
      scopes,
      resource: query.resource,
    });
    back.searchParams.set("code", code);
    if (query.state) back.searchParams.set("state", query.state);
    back.searchParams.set("iss", issuer());
    res.writeHead(302, { location: back.href }).end();
  };

  const token = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ) => {
    const params = new URLSearchParams(typeof body === "string" ? body : "");
    const event: Extract<OAuthEvent, { kind: "token" }> = {
      kind: "token",
      params: Object.fromEntries(params),
      authMethod: "none",
    };
    events.push(event);
    const who = authenticate(req, params);
    if (typeof who === "string") {
      event.error = oauthError(res, 401, "invalid_client", who);
      return;
    }
    event.authMethod = who.method;
    const clientId = who.client.client_id;
    const asked = params.get("resource") ?? undefined;
    if (requireResource && asked !== resource()) {
      event.error = oauthError(
        res,
        400,
        "invalid_target",
        "resource must be the MCP server URL",
      );
      return;
    }
    const grantType = params.get("grant_type");
    if (grantType === "authorization_code") {
      const pending = codes.get(params.get("code") ?? "");
      codes.delete(params.get("code") ?? "");
      if (
        pending === undefined || pending.clientId !== clientId ||
        pending.redirectUri !== params.get("redirect_uri") ||
        (pending.resource !== undefined && pending.resource !== asked)
      ) {
        event.error = oauthError(
          res,
          400,
          "invalid_grant",
          "unknown, used or mismatched code",
        );
        return;
      }
      if (await s256(params.get("code_verifier") ?? "") !== pending.challenge) {
        event.error = oauthError(
          res,
          400,
          "invalid_grant",
          "PKCE verification failed",
        );
        return;
      }
      event.accessToken = issue(res, {
        clientId,
        scopes: pending.scopes,
        resource: asked,
      });
    } else if (grantType === "refresh_token") {
      const refresh = params.get("refresh_token") ?? "";
      const grant = refreshTokens.get(refresh);
      if (grant === undefined || grant.clientId !== clientId) {
        event.error = oauthError(
          res,
          400,
          "invalid_grant",
          "unknown or used refresh token",
        );
        return;
      }
      refreshTokens.delete(refresh); // rotation: each refresh token works once
      const narrowed = scopesOf(params.get("scope"));
      const scopes = narrowed.length > 0 ? narrowed : grant.scopes;
      if (!scopes.every((scope) => grant.scopes.includes(scope))) {
        event.error = oauthError(
          res,
          400,
          "invalid_scope",
          "scope wider than the grant",
        );
        return;
      }
      event.accessToken = issue(res, {
        clientId,
        scopes,
        resource: asked ?? grant.resource,
      });
    } else if (grantType === "client_credentials") {
      event.accessToken = issue(res, {
        clientId,
        scopes: scopesOf(params.get("scope")),
        resource: asked,
      });
    } else {
      event.error = oauthError(
        res,
        400,
        "unsupported_grant_type",
        String(grantType),
      );
    }
  };

  /** Serves the authorization server's paths; true when it answered. */
  const serveAuthServer = (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): boolean => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (req.method === "GET" && metadataPaths.includes(path)) {
      events.push({ kind: "metadata", path });
      json(res, 200, metadataDocument());
    } else if (req.method === "GET" && path === `${endpointPath}/authorize`) {
      authorize(req, res);
    } else if (req.method === "POST" && path === `${endpointPath}/token`) {
      token(req, res, body).catch((error) => {
        if (!res.headersSent) {
          oauthError(res, 500, "server_error", String(error));
        }
      });
    } else if (
      req.method === "POST" && path === `${endpointPath}/register` &&
      options.dynamicRegistration !== false
    ) {
      register(res, body);
    } else return false;
    return true;
  };

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

  const mcp = await sdkStreamableServer({
    extend: options.extend,
    intercept: (req, res, body) => {
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
      if (options.authServerOnMcpOrigin && serveAuthServer(req, res, body)) {
        return true;
      }
      if (path.startsWith("/.well-known/")) {
        json(res, 404, { error: "not_found" });
        return true;
      }
      return path === "/mcp" && guard(req, res, body);
    },
  });
  mcpOrigin = mcp.origin;
  let authServer: TestHttpServer = mcp;
  if (options.authServerOnMcpOrigin) asOrigin = mcp.origin;
  else {
    authServer = await listen((req, res, body) => {
      if (!serveAuthServer(req, res, body)) {
        json(res, 404, { error: "not_found" });
      }
    });
    asOrigin = authServer.origin;
  }
  return {
    url: mcp.url,
    mcp,
    authServer,
    issuer: issuer(),
    resource: resource(),
    events,
    exchanges,
    clients,
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

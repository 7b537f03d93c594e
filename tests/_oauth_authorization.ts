/**
 * The authorization server of the OAuth tests (`_oauth_server.ts` puts it
 * beside a protected MCP server): RFC 8414 / OpenID metadata, dynamic
 * client registration, an authorization endpoint that approves every valid
 * request at once (302 to the redirect URI with `code` and `state`), and a
 * token endpoint for the authorization-code, refresh-token and
 * client-credentials grants. It checks what a strict server checks — PKCE
 * S256, the `resource` parameter, the client's token endpoint auth method,
 * redirect URIs, single-use codes, refresh-token rotation — answers with
 * standard OAuth errors, and records what clients asked.
 *
 * @module
 */

import type { IncomingMessage, ServerResponse } from "node:http";

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

/** How the authorization server behaves; every option has a default. */
export interface AuthorizationServerOptions {
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
  /** Access token lifetime in ms. Default one hour. */
  accessTokenTtlMs?: number;
  /** When refresh tokens are issued. Default `"always"`. */
  refreshTokens?: "always" | "offline_access" | "never";
  /** Scopes never granted, even when asked for (a grant the user cannot get). */
  withheldScopes?: string[];
  /**
   * Reuse detection (Auth0, Okta, Keycloak): a refresh token presented a
   * second time revokes its whole family, every access and refresh token
   * issued from the same login. Default false (the reuse is only refused).
   */
  revokeFamilyOnReuse?: boolean;
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
    /** The token family of what was issued, or of the reused token. */
    family?: string;
    /** A spent refresh token was presented again. */
    reused?: boolean;
  };

/** An access token the server issued. */
export interface IssuedToken {
  clientId: string;
  scopes: string[];
  resource: string | undefined;
  expiresAt: number;
  /** Every token issued from one login (its code) and its refreshes. */
  family?: string;
}

export interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scopes: string[];
  resource: string | undefined;
}

/** Where the authorization server lives; known once the servers listen. */
export interface AuthorizationServerPlace {
  /** Its origin, e.g. `http://127.0.0.1:1234`. */
  origin(): string;
  /** The resource indicator clients must send. */
  resource(): string;
  /** Whether `resource` is required in authorization and token requests. */
  requireResource: boolean;
}

/** A running authorization server's handler and state. */
export interface AuthorizationServer {
  /** Serves its paths; true when it answered. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown): boolean;
  /** The token family of an access or refresh token it issued (and has not revoked). */
  familyOf(token: string): string | undefined;
  /** The issuer URL. */
  issuer(): string;
  events: OAuthEvent[];
  clients: Map<string, RegisteredClient>;
  accessTokens: Map<string, IssuedToken>;
}

const HOUR_MS = 3_600_000;
/** Every token endpoint auth method, the server's default order of preference. */
export const TOKEN_AUTH_METHODS: readonly TokenAuthMethod[] = [
  "client_secret_basic",
  "client_secret_post",
  "none",
];

export function json(
  res: ServerResponse,
  status: number,
  value: unknown,
): void {
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
 * The authorization server's handler.
 *
 * @param options What to serve and check.
 * @param place Its origin and the resource it issues tokens for.
 */
export function authorizationServer(
  options: AuthorizationServerOptions,
  place: AuthorizationServerPlace,
): AuthorizationServer {
  const issuerPath = options.issuerPath ?? "";
  const endpointPath = options.endpointPath ?? issuerPath;
  const metadataKind = options.metadata ?? "oauth";
  const methods = options.tokenEndpointAuthMethods ?? TOKEN_AUTH_METHODS;
  const requireResource = place.requireResource;
  const ttl = options.accessTokenTtlMs ?? HOUR_MS;
  const events: OAuthEvent[] = [];
  const clients = new Map<string, RegisteredClient>(
    (options.clients ?? []).map((client) => [client.client_id, client]),
  );
  const codes = new Map<string, PendingCode>();
  const accessTokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, Omit<IssuedToken, "expiresAt">>();
  /** Refresh tokens already used, with their family. */
  const spent = new Map<string, string | undefined>();
  const revoke = (family: string | undefined) => {
    if (family === undefined) return;
    for (const tokens of [accessTokens, refreshTokens]) {
      for (const [token, grant] of tokens) {
        if (grant.family === family) tokens.delete(token);
      }
    }
  };
  const issuer = () => `${place.origin()}${issuerPath}`;
  const resource = place.resource;

  const metadataDocument = () => ({
    issuer: issuer(),
    authorization_endpoint: `${place.origin()}${endpointPath}/authorize`,
    token_endpoint: `${place.origin()}${endpointPath}/token`,
    ...(options.dynamicRegistration === false
      ? {}
      : { registration_endpoint: `${place.origin()}${endpointPath}/register` }),
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
      scopes: scopes.filter((scope) =>
        !(options.withheldScopes ?? []).includes(scope)
      ),
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
      event.family = randomToken("family");
      event.accessToken = issue(res, {
        clientId,
        scopes: pending.scopes,
        resource: asked,
        family: event.family,
      });
    } else if (grantType === "refresh_token") {
      const refresh = params.get("refresh_token") ?? "";
      const grant = refreshTokens.get(refresh);
      if (grant === undefined && spent.has(refresh)) {
        event.reused = true;
        event.family = spent.get(refresh);
        if (options.revokeFamilyOnReuse) revoke(event.family);
      }
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
      spent.set(refresh, grant.family);
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
      event.family = grant.family;
      event.accessToken = issue(res, {
        clientId,
        scopes,
        resource: asked ?? grant.resource,
        ...(grant.family === undefined ? {} : { family: grant.family }),
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

  const familyOf = (token: string) =>
    (accessTokens.get(token) ?? refreshTokens.get(token))?.family;
  return {
    serve: serveAuthServer,
    familyOf,
    issuer,
    events,
    clients,
    accessTokens,
  };
}

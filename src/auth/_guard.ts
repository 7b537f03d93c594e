/**
 * The checks this library makes around the OAuth engine (the MCP SDK's
 * `auth()`), whatever the engine checks itself: every value an
 * authorization server or resource server sends is bounded and checked
 * before it is used.
 *
 * - Every request of the flow goes to an `https:` URL (`http:` only on this
 *   machine), never to a link-local or cloud-metadata address; its answer is
 *   read with a size cap and a deadline, and the flow's signal aborts it.
 * - Protected-resource metadata may only name such authorization servers;
 *   authorization-server metadata must say it is the issuer it was fetched
 *   for (RFC 8414 §3.3, the mix-up defence), and its endpoints must pass the
 *   same rule.
 * - Before an authorization code is exchanged, the redirect's `iss` must be
 *   that issuer (RFC 9207), and it must be there when the server says it
 *   sends one.
 *
 * Loaded with the flow. Internal.
 *
 * @module
 */

import { MCPConnectionError } from "../errors.ts";
import { displayUrl, redact, secretsOf } from "../util/redact.ts";
import { asText, isRecord } from "../util/values.ts";
import { webUrlProblem } from "../util/url_policy.ts";
import { readCapped } from "../util/read_body.ts";

/** The largest answer of an OAuth endpoint read: metadata and tokens are small. */
export const MAX_OAUTH_BODY_BYTES = 256 * 1024;
/** The deadline of one OAuth request. */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;

/** The endpoint fields of authorization-server metadata this client may use. */
const ENDPOINTS = [
  "authorization_endpoint",
  "token_endpoint",
  "registration_endpoint",
] as const;

/** What the guard learned in one flow, and what `finishAuth()` was given. */
export interface GuardState {
  /** The authorization-server metadata accepted last. */
  metadata?: Record<string, unknown> | undefined;
  /** Which field of which document named a URL (for error messages). */
  fields: Map<string, string>;
  /** Whether this flow accepted protected-resource metadata. */
  resourceMetadata?: boolean;
  /** That metadata's `resource`. */
  resource?: string | undefined;
  /** That metadata's `scopes_supported`, space-separated. */
  resourceScopes?: string | undefined;
  /**
   * What the authorization server said when it refused the last token
   * request (`HTTP 400 "invalid_grant" ("…")`), for grants that report it
   * rather than retry.
   */
  tokenError?: string | undefined;
  /**
   * The redirect that brought the authorization code: its `iss`, or
   * `undefined` when there was none; `null` when only the bare code was
   * given (it cannot be checked).
   */
  callbackIss?: string | undefined | null;
}

/** A fresh state for one provider and server. */
export function guardState(): GuardState {
  return { fields: new Map() };
}

/**
 * The error of a refused URL: which field named it, which URL, and why.
 *
 * @param field E.g. `"token_endpoint"`; what named the URL.
 */
export function refusedUrl(
  field: string,
  url: URL | string,
  why: string,
): MCPConnectionError {
  // Origin and path only (no query, no credentials); a scheme without an
  // origin (file:, a custom one) is shown as it is.
  const shown = typeof url === "string"
    ? JSON.stringify(url.slice(0, 200))
    : url.origin === "null"
    ? JSON.stringify(
      `${url.protocol}//${url.host}${url.pathname}`.slice(0, 200),
    )
    : displayUrl(url);
  return new MCPConnectionError(
    `OAuth: the ${field} ${shown} is refused: ${why}. Nothing was sent to it; report this to the server's maintainers.`,
  );
}

/** `url` parsed and checked against the URL rule, naming `field` when refused. */
export function checkedUrl(field: string, value: unknown): URL {
  let url: URL;
  try {
    url = value instanceof URL ? value : new URL(asText(value));
  } catch {
    throw refusedUrl(field, asText(value), "it is not an absolute URL");
  }
  const problem = webUrlProblem(url);
  if (problem !== undefined) throw refusedUrl(field, url, problem);
  return url;
}

/**
 * `fetch` for the OAuth engine, with the checks above. `signal` is the
 * flow's: aborting it (its callers gave up) aborts the request in flight.
 */
export function guardedFetch(
  base: typeof fetch,
  state: GuardState,
  signal: AbortSignal,
  serverUrl: string,
): typeof fetch {
  const serverOrigin = new URL(serverUrl).origin;
  // A refusal ends the flow: the engine may swallow an error of its
  // discovery and fall back, but every later request fails the same way.
  let refused: unknown;
  const refuse = (error: unknown): never => {
    refused ??= error;
    throw error;
  };
  return async (input, init) => {
    if (refused !== undefined) throw refused;
    const url = new URL(input instanceof Request ? input.url : String(input));
    let checked: URL;
    try {
      checked = checkedUrl(state.fields.get(url.href) ?? "OAuth URL", url);
      if (isCodeExchange(init?.body)) checkIssuer(state);
    } catch (error) {
      return refuse(error);
    }
    const signals = [signal, AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS)];
    if (init?.signal) signals.push(init.signal);
    let response: Response;
    try {
      response = await base(
        input instanceof Request ? input : checked,
        { ...init, signal: AbortSignal.any(signals) },
      );
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw error;
    }
    // A browser's opaque redirect has no body, and no status to rebuild.
    if (response.type === "opaqueredirect" || response.status === 0) {
      return response;
    }
    let text: string;
    try {
      text = await readCapped(response, {
        limit: MAX_OAUTH_BODY_BYTES,
        tooLarge: () =>
          new MCPConnectionError(
            `OAuth: the answer of ${
              displayUrl(checked)
            } is larger than ${MAX_OAUTH_BODY_BYTES} bytes; refused (OAuth metadata and tokens are small)`,
          ),
      });
      if (response.ok) inspect(checked, text, state, serverOrigin);
    } catch (error) {
      return refuse(error);
    }
    if (!response.ok && grantType(init?.body) !== null) {
      state.tokenError = `HTTP ${response.status}${
        oauthErrorText(parseJson(text), requestSecrets(init))
      }`;
    }
    return new Response(
      response.status === 204 || response.status === 304 ? null : text,
      {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      },
    );
  };
}

/**
 * Checks the metadata documents the flow fetches, before the engine reads
 * them. `serverOrigin` is the MCP server's: without resource metadata (a
 * 2025-03-26 server), its own origin stands for the authorization server.
 */
function inspect(
  url: URL,
  text: string,
  state: GuardState,
  serverOrigin: string,
): void {
  const path = url.pathname;
  const resource = path.includes("/.well-known/oauth-protected-resource");
  const issuer = resource ? undefined : expectedIssuer(url);
  if (!resource && issuer === undefined) return;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return; // the engine reports what it cannot parse
  }
  if (!isRecord(document)) return;
  if (resource) {
    state.resourceMetadata = true;
    const { resource: named, scopes_supported: scopes } = document;
    if (typeof named === "string") state.resource = named;
    if (Array.isArray(scopes) && scopes.every((s) => typeof s === "string")) {
      state.resourceScopes = scopes.join(" ") || undefined;
    }
    const servers = document.authorization_servers;
    if (!Array.isArray(servers)) return;
    for (const server of servers) {
      const checked = checkedUrl(
        "authorization server (authorization_servers in the resource metadata)",
        server,
      );
      state.fields.set(checked.href, "authorization server");
    }
    return;
  }
  const said = document.issuer;
  if (
    typeof said !== "string" ||
    !(sameIssuer(said, issuer!) ||
      legacyFallback(url, said, state, serverOrigin))
  ) {
    throw new MCPConnectionError(
      `OAuth: the authorization-server metadata at ${
        displayUrl(url)
      } says its issuer is ${JSON.stringify(asText(said).slice(0, 200))}, not ${
        JSON.stringify(issuer)
      }, where it was fetched from; refused before any use (RFC 8414 §3.3: a mix-up attack, or a misconfigured server)`,
    );
  }
  for (const field of ENDPOINTS) {
    const value = document[field];
    if (value === undefined) continue;
    const checked = checkedUrl(field, value);
    state.fields.set(checked.href, field);
  }
  state.metadata = document;
}

/**
 * The issuer a metadata URL stands for (RFC 8414 §3.1, and OpenID
 * Connect's path-appended and path-inserted forms), or `undefined` for
 * other URLs.
 */
function expectedIssuer(url: URL): string | undefined {
  const path = url.pathname;
  for (
    const known of [
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
    ]
  ) {
    if (path.startsWith(known)) {
      return url.origin + path.slice(known.length);
    }
    if (path.endsWith(known)) {
      return url.origin + path.slice(0, -known.length);
    }
  }
  return undefined;
}

/**
 * The one mismatch taken: a 2025-03-26 server (no resource metadata) whose
 * own origin serves, at the root well-known path, metadata of an issuer on
 * that same origin under a path. No other authorization server is in play,
 * so there is nothing to mix up; any other origin is refused.
 */
function legacyFallback(
  url: URL,
  said: string,
  state: GuardState,
  serverOrigin: string,
): boolean {
  if (state.resourceMetadata || url.origin !== serverOrigin) return false;
  if (url.pathname !== "/.well-known/oauth-authorization-server") return false;
  try {
    return new URL(said).origin === serverOrigin;
  } catch {
    return false;
  }
}

/** Issuers compared as RFC 8414 says, one trailing slash aside. */
function sameIssuer(said: string, expected: string): boolean {
  const strip = (value: string) =>
    value.endsWith("/") ? value.slice(0, -1) : value;
  return strip(said) === strip(expected);
}

/** Whether a token request body is an authorization-code exchange. */
function isCodeExchange(body: BodyInit | null | undefined): boolean {
  return grantType(body) === "authorization_code";
}

/** The `grant_type` of a token request's form body; `null` for other bodies. */
function grantType(body: BodyInit | null | undefined): string | null {
  if (body instanceof URLSearchParams) return body.get("grant_type");
  return typeof body === "string"
    ? new URLSearchParams(body).get("grant_type")
    : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The fields of a token request whose values are secret (RFC 6749, 7523, 7636, 8693). */
const SECRET_FIELDS = [
  "actor_token",
  "assertion",
  "client_assertion",
  "client_secret",
  "code",
  "code_verifier",
  "password",
  "refresh_token",
  "subject_token",
];

/**
 * The secrets a token request carries: its secret form fields and the
 * client secret of HTTP Basic authentication. An authorization server's
 * error text is masked of them before it is cut, so that one echoed
 * across the cut cannot leave its head behind.
 */
function requestSecrets(init: RequestInit | undefined): string[] {
  const body = init?.body;
  const form = body instanceof URLSearchParams
    ? body
    : typeof body === "string"
    ? new URLSearchParams(body)
    : undefined;
  const named: [string, string][] = [];
  for (const field of SECRET_FIELDS) {
    for (const value of form?.getAll(field) ?? []) named.push([field, value]);
  }
  const authorization = new Headers(init?.headers).get("authorization");
  const basic = authorization?.match(/^\s*basic\s+(\S+)/i)?.[1];
  if (basic !== undefined) {
    try {
      const credentials = atob(basic);
      const colon = credentials.indexOf(":");
      const secret = credentials.slice(colon + 1);
      named.push(["client_secret", secret]);
      // RFC 6749 §2.3.1 form-encodes both parts before joining them.
      named.push(["client_secret", decodeURIComponent(secret)]);
    } catch {
      // Not base64 or not URL-encoded: nothing more to mask.
    }
  }
  return secretsOf(named);
}

/**
 * ` "error" ("description")` of an OAuth error body, masked of `secrets`
 * (what the refused request carried), then bounded and quoted; `""` when
 * it has no `error`.
 */
export function oauthErrorText(
  body: unknown,
  secrets: readonly string[],
): string {
  if (!isRecord(body) || typeof body.error !== "string") return "";
  const description = body.error_description;
  return ` ${JSON.stringify(redact(body.error, secrets).slice(0, 60))}${
    typeof description === "string"
      ? ` (${JSON.stringify(redact(description, secrets).slice(0, 200))})`
      : ""
  }`;
}

/**
 * RFC 9207, before the code goes out: the redirect's `iss` is the issuer
 * of the metadata this flow accepted; it may be missing only when the
 * server does not say it sends one.
 *
 * @throws {MCPConnectionError} Naming what was expected and what came.
 */
function checkIssuer(state: GuardState): void {
  const metadata = state.metadata;
  if (metadata === undefined) return; // no metadata (2025-03-26 defaults): nothing to check against
  const issuer = metadata.issuer as string;
  const sends = metadata.authorization_response_iss_parameter_supported ===
    true;
  const iss = state.callbackIss;
  if (iss === null) {
    if (!sends) return;
    throw new MCPConnectionError(
      `OAuth: the authorization server ${
        JSON.stringify(issuer)
      } puts its issuer in the redirect (RFC 9207), but finishAuth() got only the code: pass it the whole redirect URL (or its query), so the issuer can be checked before the code is exchanged`,
    );
  }
  if (iss === undefined) {
    if (!sends) return;
    throw new MCPConnectionError(
      `OAuth: the redirect carries no "iss", though the authorization server ${
        JSON.stringify(issuer)
      } says it sends one (RFC 9207); the code was not exchanged: the redirect may come from another server (a mix-up attack)`,
    );
  }
  if (iss !== issuer) {
    throw new MCPConnectionError(
      `OAuth: the redirect's "iss" is ${
        JSON.stringify(iss.slice(0, 200))
      }, not the authorization server ${
        JSON.stringify(issuer)
      } (RFC 9207); the code was not exchanged: the redirect may come from another server (a mix-up attack)`,
    );
  }
}

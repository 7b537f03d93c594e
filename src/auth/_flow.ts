/**
 * The OAuth flow behind the remote transports' hooks, on the MCP SDK's
 * `auth()` (imported here, lazily, so users without OAuth never load it):
 * authorize on 401 (a refresh when a refresh token is at hand, else a new
 * authorization), step up on 403 `insufficient_scope` with the union of the
 * scopes (always a new authorization: a refresh cannot widen a grant), stop
 * after a bounded number of authorizations that did not help, and finish an
 * authorization-code login with the state the challenge left. Loaded by
 * `../oauth.ts` on first use. Internal.
 *
 * @module
 */

import {
  MCPAdapterError,
  MCPAuthorizationRequiredError,
  MCPConfigError,
  MCPConnectionError,
} from "../errors.ts";
import { errorMessage } from "../util/caught.ts";
import {
  displayUrl,
  mergeSecrets,
  redact,
  redactError,
  secretsOf,
} from "../util/redact.ts";
import type { OAuthState } from "./provider.ts";
import type { MCPAuthorizationCallback } from "./provider.ts";
import {
  checkedUrl,
  guardedFetch,
  type GuardState,
  guardState,
  OAUTH_REQUEST_TIMEOUT_MS,
} from "./_guard.ts";
import { tokenRequestFetch } from "./dpop.ts";
import { grantOf } from "./_grant.ts";
import { isLoopbackHost } from "../util/url_policy.ts";
import { race } from "../util/time.ts";

/**
 * Authorizations in a row (401 or 403, until a request with credentials
 * gets through) before giving up: a server that keeps refusing will not be
 * satisfied by a fourth.
 */
export const MAX_AUTHORIZATIONS = 3;

/**
 * The part of the SDK's `client/auth.js` this flow calls, typed here: a
 * type import would put the SDK into every program's module graph, and
 * Deno fetches the whole graph before a program runs.
 */
interface Sdk {
  auth(provider: Provider, options: {
    serverUrl: string | URL;
    authorizationCode?: string;
    scope?: string | undefined;
    resourceMetadataUrl?: URL | undefined;
    fetchFn?: typeof fetch;
  }): Promise<"AUTHORIZED" | "REDIRECT">;
  extractWWWAuthenticateParams(response: Response): {
    resourceMetadataUrl?: URL;
    scope?: string;
    error?: string;
  };
}

/** The SDK's `OAuthClientProvider`, as far as this flow reads and wraps it. */
interface Provider {
  tokens():
    | { access_token?: string; refresh_token?: string }
    | undefined
    | Promise<{ access_token?: string; refresh_token?: string } | undefined>;
  saveTokens(tokens: unknown): void | Promise<void>;
  clientMetadata?: unknown;
  clientInformation?(): unknown;
  codeVerifier?(): unknown;
  redirectToAuthorization?(url: URL): void | Promise<void>;
  [key: string]: unknown;
}

/** The SDK range this flow is written against (`deno.json` says the same). */
export const SDK_RANGE = "^1.32.2";

/**
 * Where the SDK's OAuth flow comes from: an `npm:` specifier on Deno, the
 * package elsewhere (an optional peer of the npm package). Built at run
 * time, not a literal: Deno fetches every literal import of a program's
 * graph before it runs, so a program that never uses OAuth would download
 * the SDK and its ~100 packages; a bundler leaves it to run time too.
 */
export function sdkSpecifier(): string {
  const path = ["@modelcontextprotocol/sdk", "client/auth.js"];
  return "Deno" in globalThis
    ? `npm:${path[0]}@${SDK_RANGE}/${path[1]}`
    : path.join("/");
}

async function sdk(): Promise<Sdk> {
  // The .catch also tells bundlers the import may be missing: edge bundles
  // of users without OAuth build without the SDK installed.
  return await (import(sdkSpecifier()) as Promise<Sdk>).catch(
    (cause) => {
      throw new MCPConfigError(
        "authProvider",
        `OAuth needs the MCP SDK, which is not installed: run npm install @modelcontextprotocol/sdk (with npx: npx -p @cleveragents/mcp-adapter -p @modelcontextprotocol/sdk mcp-adapter …), or map "@modelcontextprotocol/sdk/" in your import map`,
        { cause },
      );
    },
  );
}

/**
 * Handles a 401, or a 403 `insufficient_scope`: resolves `true` once new
 * tokens are saved in the provider. Concurrent calls share one run.
 *
 * @throws {MCPAuthorizationRequiredError} When the user must approve in a
 * browser; `finishAuth()` completes it.
 * @throws {MCPConnectionError} When the flow fails, or the server refused
 * {@linkcode MAX_AUTHORIZATIONS} authorizations in a row.
 */
export function authorize(
  state: OAuthState,
  response: Response,
  signal?: AbortSignal,
): Promise<boolean> {
  let flow = state.running;
  if (flow === undefined) {
    const abort = new AbortController();
    const promise = run(state, response, abort.signal).finally(() => {
      if (state.running === flow) state.running = undefined;
    });
    flow = state.running = { promise, abort, waiting: 0 };
  }
  return follow(state, flow, signal);
}

/**
 * Waits for a shared flow on behalf of one caller. When every caller has
 * given up (their deadline passed, their connection closed), the flow is
 * aborted, its requests in flight too, and the next attempt starts fresh.
 */
async function follow(
  state: OAuthState,
  flow: NonNullable<OAuthState["running"]>,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (signal === undefined) return await flow.promise;
  flow.waiting++;
  try {
    return await race(flow.promise, { signal });
  } finally {
    if (--flow.waiting === 0 && signal.aborted) {
      flow.abort.abort(signal.reason);
      if (state.running === flow) state.running = undefined;
    }
  }
}

async function run(
  state: OAuthState,
  response: Response,
  signal: AbortSignal,
): Promise<boolean> {
  const { auth, extractWWWAuthenticateParams } = await sdk();
  const challenge = extractWWWAuthenticateParams(asBearer(response));
  const stepUp = response.status === 403;
  const where = displayUrl(new URL(state.serverUrl));
  if (challenge.resourceMetadataUrl) {
    state.resourceMetadataUrl = challenge.resourceMetadataUrl;
  }
  if (challenge.error === "use_dpop_nonce") {
    // The transport retried once with the nonce it sent; a new token would not help.
    throw new MCPConnectionError(
      `MCP server at ${where} still asks for a DPoP nonce (use_dpop_nonce) after a retry with the nonce it sent; check its DPoP nonce handling`,
    );
  }
  if (state.rounds >= MAX_AUTHORIZATIONS) {
    state.rounds = 0; // a later attempt (after fixing the grant) starts afresh
    throw new MCPConnectionError(
      `MCP server at ${where} still answers HTTP ${response.status}${
        stepUp ? ` insufficient_scope (wants ${quote(challenge.scope)})` : ""
      } after ${MAX_AUTHORIZATIONS} authorizations in a row; stopped asking. Check that the authorization server grants what the server needs to this client and user.`,
    );
  }
  state.rounds++;
  // Keep what was granted: a challenge may name only what this request needs.
  const granted = stepUp
    ? (await state.provider.tokens() as { scope?: string } | undefined)?.scope
    : undefined;
  state.scope = union(state.scope, granted, challenge.scope);
  let authorizationUrl: URL | undefined;
  let result: string | undefined;
  const guard = state.guard ??= guardState();
  const attempt = async () => {
    const fetches = await engineFetch(state, guard, signal);
    return await auth(
      watched(state, stepUp, (url) => authorizationUrl = url, fetches.plain),
      {
        serverUrl: state.serverUrl,
        resourceMetadataUrl: state.resourceMetadataUrl,
        scope: state.scope,
        fetchFn: fetches.engine,
      },
    );
  };
  try {
    const { provider } = state;
    if (!stepUp && provider.refreshExclusive) {
      // A store shared by many processes: one refresh at a time, and none
      // when another process has refreshed since these tokens were refused
      // (a rotating refresh token works once).
      const stale = state.sent ?? await provider.tokens();
      const tokens = await provider.refreshExclusive(async () => {
        result = await attempt();
      }, { stale, signal });
      if (result === undefined && tokens !== undefined) result = "AUTHORIZED";
    }
    result ??= await attempt();
  } catch (error) {
    throw await failure(state, refusal(state, error), "authorization");
  }
  await remember(state);
  if (result === "AUTHORIZED") return true;
  throw new MCPAuthorizationRequiredError(
    `MCP server at ${where} needs the user to authorize this client${
      stepUp ? ` for the scope ${quote(state.scope)}` : ""
    }: open the authorization URL (on ${
      authorizationUrl?.origin ?? "the authorization server"
    }) in a browser, then pass the code it redirects with to finishAuth()`,
    authorizationUrl ?? new URL(state.serverUrl),
  );
}

/**
 * Exchanges an authorization code with what the last challenge left: its
 * resource metadata URL and the scope asked for (the PKCE verifier and the
 * client registration are in the provider).
 *
 * @throws {MCPConnectionError} When the exchange fails.
 */
export async function finishAuth(
  state: OAuthState,
  callback: MCPAuthorizationCallback,
): Promise<void> {
  const { auth } = await sdk();
  const { code, iss } = callbackParams(callback);
  state.secrets = mergeSecrets(state.secrets, secretsOf([["code", code]]));
  const guard = state.guard ??= guardState();
  // Checked against the issuer before the code goes out (guard.ts).
  guard.callbackIss = iss;
  try {
    const fetches = await engineFetch(
      state,
      guard,
      AbortSignal.timeout(2 * OAUTH_REQUEST_TIMEOUT_MS),
    );
    await auth(watched(state, false, () => {}, fetches.plain), {
      serverUrl: state.serverUrl,
      authorizationCode: code,
      resourceMetadataUrl: state.resourceMetadataUrl,
      scope: state.scope,
      fetchFn: fetches.engine,
    });
  } catch (error) {
    throw await failure(state, error, "the authorization code exchange");
  } finally {
    guard.callbackIss = null;
  }
  await remember(state);
}

/**
 * The code and `iss` of what the redirect brought (`null` for a bare code:
 * no `iss` to check). A string is read as what a host's HTTP handler or a
 * user's paste gives: a URL (`http://127.0.0.1:9/callback?code=…&iss=…`,
 * `myapp:/callback?code=…`), a query (`?code=…&iss=…`, `code=…&iss=…`),
 * else a bare code.
 *
 * @throws {MCPConfigError} When there is no code, or the server sent an error instead.
 */
function callbackParams(
  callback: MCPAuthorizationCallback,
): { code: string; iss: string | undefined | null } {
  if (typeof callback === "string") {
    const text = callback.trim();
    const query = redirectQuery(text);
    if (query === undefined) return { code: callback, iss: null };
    callback = query;
  }
  const params = callback instanceof URL ? callback.searchParams : callback;
  const code = params.get("code");
  if (code === null || code === "") {
    const error = params.get("error");
    throw new MCPConfigError(
      "authorizationCode",
      error === null
        ? "The redirect passed to finishAuth() has no code: pass the URL (or query) the authorization server redirected the browser to"
        : `The authorization server redirected with error ${
          JSON.stringify(error.slice(0, 100))
        }${
          params.get("error_description")
            ? `: ${
              JSON.stringify(params.get("error_description")!.slice(0, 300))
            }`
            : ""
        }; nothing was exchanged`,
    );
  }
  return { code, iss: params.get("iss") ?? undefined };
}

/**
 * The query of a redirect given as a string, or `undefined` for a bare
 * code: a URL (a scheme, then `/` or a query), a string starting with `?`, or
 * `name=value` pairs that name `code` or `error` (a code such as `abc==`,
 * base64 padding and all, names neither).
 */
function redirectQuery(text: string): URLSearchParams | undefined {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:(?:\/|[^?\s]*\?)/.test(text)) {
    try {
      return new URL(text).searchParams;
    } catch {
      return undefined;
    }
  }
  if (text.startsWith("?")) return new URLSearchParams(text);
  if (!/^[\w.~-]+=/.test(text)) return undefined;
  const params = new URLSearchParams(text);
  return params.has("code") || params.has("error") ? params : undefined;
}

/**
 * `fetch` for the engine (`engine`: with the guard's checks, and for a
 * DPoP provider a proof on each token request) and for a grant's own
 * requests (`plain`: the checks only; an identity provider gets no proof).
 */
async function engineFetch(
  state: OAuthState,
  guard: GuardState,
  signal: AbortSignal,
): Promise<{ engine: typeof fetch; plain: typeof fetch }> {
  const plain = guardedFetch(
    state.fetchFn ?? fetch,
    guard,
    signal,
    state.serverUrl,
  );
  guard.tokenError = undefined;
  const session = await state.provider.dpop?.();
  return {
    plain,
    engine: session === undefined ? plain : tokenRequestFetch(session, plain),
  };
}

/**
 * The provider, seen through: the authorization URL it is sent to is
 * recorded, and for a step-up its refresh token is hidden, so `auth()`
 * starts a new authorization instead of refreshing the old grant. A grant
 * provider (`grant.ts`) builds its token request from what was discovered,
 * and is not asked again once the authorization server refused it.
 */
function watched(
  state: OAuthState,
  hideRefreshToken: boolean,
  onRedirect: (url: URL) => void,
  grantFetch: typeof fetch,
): Provider {
  const target = state.provider as Provider;
  const guard = state.guard!;
  const grant = grantOf(target);
  const discovered: { issuer?: string } = {};
  return new Proxy(target, {
    get(_, key) {
      if (grant && key === "prepareTokenRequest") {
        return (scope?: string) =>
          grant.request({
            scope: state.scope ?? guard.resourceScopes ?? scope,
            issuer: guard.metadata?.issuer as string | undefined,
            resource: guard.resource,
            serverUrl: state.serverUrl,
            fetch: grantFetch,
            secret: (...values) => {
              const named = values.flatMap((value) =>
                value === undefined ? [] : [["token", value] as const]
              );
              state.secrets = mergeSecrets(state.secrets, secretsOf(named));
            },
          });
      }
      if (grant && key === "invalidateCredentials") {
        // The engine retries after invalid_grant / unauthorized_client; a
        // refused assertion is not presented again (SEP-1933).
        return () => {
          throw refusal(state, undefined) ??
            new MCPConnectionError(
              `OAuth: the authorization server refused the ${grant.name} grant; not retried`,
            );
        };
      }
      if (key === "redirectToAuthorization") {
        return (url: URL) => {
          checkAuthorizationUrl(url, guard);
          onRedirect(url);
          return target.redirectToAuthorization?.(url);
        };
      }
      if (key === "tokens") {
        return async () => {
          const tokens = await target.tokens();
          if (hideRefreshToken) {
            return tokens && { ...tokens, refresh_token: undefined };
          }
          return unstamped(tokens)
            ? stamped(state, tokens, discovered.issuer)
            : tokens;
        };
      }
      // Where discovery led (restored or found): the issuer tokens bind to.
      if (key === "discoveryState" && target.discoveryState) {
        return async () => {
          const saved = await (target.discoveryState as () => unknown)();
          const url = (saved as { authorizationServerUrl?: unknown })
            ?.authorizationServerUrl;
          if (typeof url === "string") discovered.issuer ??= url;
          return saved;
        };
      }
      if (key === "saveDiscoveryState") {
        return (saved: { authorizationServerUrl?: unknown }) => {
          if (typeof saved?.authorizationServerUrl === "string") {
            discovered.issuer = saved.authorizationServerUrl;
          }
          return (target.saveDiscoveryState as
            | ((saved: unknown) => unknown)
            | undefined)?.call(target, saved);
        };
      }
      if (key === "saveTokens") {
        return (tokens: { token_type?: unknown }) => {
          checkTokenType(tokens.token_type, typeof target.dpop === "function");
          return target.saveTokens(tokens as never);
        };
      }
      if (key === "clientMetadata") {
        const metadata = target.clientMetadata as
          | { redirect_uris?: unknown; application_type?: unknown }
          | undefined;
        if (!metadata || metadata.application_type !== undefined) {
          return metadata;
        }
        return { ...metadata, application_type: applicationType(metadata) };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Providers already told that their stored tokens have no `issuer`. */
const toldUnstamped = new WeakSet<object>();

/** Stored tokens with a refresh token and no `issuer` (an earlier version, or a provider that drops it). */
function unstamped(tokens: unknown): tokens is Record<string, unknown> {
  const record = tokens as { refresh_token?: unknown; issuer?: unknown };
  return typeof record?.refresh_token === "string" && record.issuer == null;
}

/**
 * Unstamped tokens, stamped with the authorization server discovery led to:
 * the SDK would use them as they are there anyway, and print a warning to
 * the host's console; the warning goes to the transport's `onerror` instead,
 * once per provider. Without a known issuer they are left as they are.
 */
function stamped(
  state: OAuthState,
  tokens: Record<string, unknown>,
  issuer: string | undefined,
): unknown {
  if (issuer === undefined) return tokens;
  if (!toldUnstamped.has(state.provider)) {
    toldUnstamped.add(state.provider);
    state.note?.(
      new MCPAdapterError(
        "oauth_issuer_missing",
        `OAuth: the tokens the authProvider returned have no "issuer" (saved by an earlier version, or by a provider that drops it); they are used with the authorization server ${
          JSON.stringify(issuer.slice(0, 200))
        }. Make the provider store what saveTokens() and saveClientInformation() receive unchanged, so tokens stay bound to their issuer.`,
      ),
    );
  }
  return { ...tokens, issuer };
}

/**
 * The authorization URL a user is sent to, checked: `https:` (or `http:` on
 * this machine), and an authorization server that advertises PKCE S256
 * when it publishes metadata at all.
 *
 * @throws {MCPConnectionError} Naming the offending URL or field.
 */
function checkAuthorizationUrl(url: URL, guard: GuardState): void {
  checkedUrl("authorization_endpoint", url);
  const metadata = guard.metadata;
  if (metadata === undefined) return; // 2025-03-26 default endpoints: no metadata to check
  const methods = metadata.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes("S256")) {
    throw new MCPConnectionError(
      `OAuth: the authorization server ${
        JSON.stringify(metadata.issuer)
      } does not advertise PKCE S256 (code_challenge_methods_supported is ${
        JSON.stringify(methods ?? null)?.slice(0, 100)
      }); the MCP authorization rules forbid authorizing without it, so the user was not sent there`,
    );
  }
}

/**
 * Only Bearer tokens are sent as `Authorization: Bearer` (RFC 6749 §7.1),
 * and DPoP tokens as `Authorization: DPoP`, by a DPoP provider only.
 *
 * @throws {MCPConnectionError} For any other token type.
 */
function checkTokenType(type: unknown, dpop: boolean): void {
  const name = String(type).toLowerCase();
  if (type === undefined || name === "bearer" || (dpop && name === "dpop")) {
    return;
  }
  throw new MCPConnectionError(
    `OAuth: the authorization server issued a token of type ${
      JSON.stringify(String(type).slice(0, 40))
    }; this client sends only Bearer tokens${
      dpop ? " and DPoP tokens (RFC 9449)" : ""
    } (RFC 6749 §7.1), so it was not used${
      name === "dpop" && !dpop
        ? "; to use DPoP, give the provider a DPoP session (withDPoP())"
        : ""
    }`,
  );
}

/**
 * The error of a grant provider's token request that the authorization
 * server refused, naming what it said (`guard.tokenError`): reported as it
 * is, never retried. Other errors are returned unchanged.
 */
function refusal(state: OAuthState, error: unknown): unknown {
  const grant = grantOf(state.provider);
  const said = state.guard?.tokenError;
  if (
    grant === undefined || said === undefined ||
    error instanceof MCPAdapterError
  ) return error;
  return new MCPConnectionError(
    `OAuth: the authorization server refused the ${grant.name} grant for MCP server at ${
      displayUrl(new URL(state.serverUrl))
    }: ${said}; not retried. Check the client ID, the assertion (its audience, expiry and subject) and the scopes this client may ask for`,
    error === undefined ? undefined : { cause: error },
  );
}

/**
 * A DPoP challenge as the engine's parser reads challenges (it knows only
 * `Bearer`): same parameters, so `resource_metadata`, `scope` and `error`
 * are read from either.
 */
function asBearer(response: Response): Response {
  const header = response.headers.get("www-authenticate") ?? "";
  if (!/^\s*dpop\s/i.test(header)) return response;
  return new Response(null, {
    status: response.status,
    headers: { "www-authenticate": header.replace(/^\s*dpop\s/i, "Bearer ") },
  });
}

/**
 * `native` for a client whose redirects stay on this machine (loopback or a
 * custom scheme), else `web`: dynamic registration says which (SEP-837).
 */
function applicationType(metadata: { redirect_uris?: unknown }): string {
  const uris = Array.isArray(metadata.redirect_uris)
    ? metadata.redirect_uris
    : [];
  const native = uris.length > 0 && uris.every((uri) => {
    try {
      const url = new URL(String(uri));
      return url.protocol !== "https:" &&
        (url.protocol !== "http:" || isLoopbackHost(url.hostname));
    } catch {
      return false;
    }
  });
  return native ? "native" : "web";
}

/** Adds the provider's current tokens, client secret and verifier to the secrets. */
async function remember(state: OAuthState): Promise<void> {
  const provider = state.provider as Partial<Provider>;
  const values: unknown[] = [];
  const read = async (get: () => unknown) => {
    try {
      values.push(await get());
    } catch {
      // Nothing stored (a provider may throw for a missing verifier).
    }
  };
  await read(async () => {
    const tokens = await provider.tokens?.();
    values.push(tokens?.refresh_token);
    return tokens?.access_token;
  });
  await read(async () =>
    (await provider.clientInformation?.() as { client_secret?: string })
      ?.client_secret
  );
  await read(() => provider.codeVerifier?.());
  state.secrets = mergeSecrets(
    state.secrets,
    secretsOf(
      values.filter((value): value is string => typeof value === "string")
        .map((value) => ["token", value]),
    ),
  );
}

/** The error to throw for a failed flow, without a token, code, secret or verifier in it. */
async function failure(
  state: OAuthState,
  error: unknown,
  what: string,
): Promise<Error> {
  await remember(state);
  if (error instanceof MCPAdapterError) {
    error.message = redact(error.message, state.secrets);
    return error;
  }
  return new MCPConnectionError(
    `OAuth ${what} for MCP server at ${
      displayUrl(new URL(state.serverUrl))
    } failed: ${
      redact(errorMessage(error), state.secrets)
    }; check the client registration and the authorization server, then connect again`,
    { cause: redactError(error, state.secrets) },
  );
}

/** The union of space-separated scope lists, or undefined when empty. */
function union(...lists: (string | undefined)[]): string | undefined {
  const scopes = new Set(
    lists.flatMap((list) => list?.split(" ") ?? []).filter(Boolean),
  );
  return scopes.size === 0 ? undefined : [...scopes].join(" ");
}

function quote(scope: string | undefined): string {
  return JSON.stringify(scope ?? "");
}

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
} from "../../errors.ts";
import { errorMessage } from "../../_util/errors.ts";
import {
  displayUrl,
  mergeSecrets,
  redact,
  redactError,
  secretsOf,
} from "../../_util/redact.ts";
import type { OAuthState } from "./state.ts";

/**
 * Authorizations in a row (401 or 403, until a request with credentials
 * gets through) before giving up: a server that keeps refusing will not be
 * satisfied by a fourth.
 */
export const MAX_AUTHORIZATIONS = 3;

type Sdk = typeof import("@modelcontextprotocol/sdk/client/auth.js");
type Provider = Parameters<Sdk["auth"]>[0];

async function sdk(): Promise<Sdk> {
  // The .catch also tells bundlers the import may be missing: edge bundles
  // of users without OAuth build without the SDK installed.
  return await import("@modelcontextprotocol/sdk/client/auth.js").catch(
    (cause) => {
      throw new MCPConfigError(
        "authProvider",
        'OAuth needs the MCP SDK: install "@modelcontextprotocol/sdk" (npm) or map it in your import map',
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
): Promise<boolean> {
  state.running ??= run(state, response).finally(() =>
    state.running = undefined
  );
  return state.running;
}

async function run(state: OAuthState, response: Response): Promise<boolean> {
  const { auth, extractWWWAuthenticateParams } = await sdk();
  const challenge = extractWWWAuthenticateParams(response);
  const stepUp = response.status === 403;
  const where = displayUrl(new URL(state.serverUrl));
  if (challenge.resourceMetadataUrl) {
    state.resourceMetadataUrl = challenge.resourceMetadataUrl;
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
  let result: string;
  try {
    result = await auth(
      watched(state, stepUp, (url) => authorizationUrl = url),
      {
        serverUrl: state.serverUrl,
        resourceMetadataUrl: state.resourceMetadataUrl,
        scope: state.scope,
        fetchFn: state.fetchFn,
      },
    );
  } catch (error) {
    throw await failure(state, error, "authorization");
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
  code: string,
): Promise<void> {
  const { auth } = await sdk();
  state.secrets = mergeSecrets(state.secrets, secretsOf([["code", code]]));
  try {
    await auth(state.provider as Provider, {
      serverUrl: state.serverUrl,
      authorizationCode: code,
      resourceMetadataUrl: state.resourceMetadataUrl,
      scope: state.scope,
      fetchFn: state.fetchFn,
    });
  } catch (error) {
    throw await failure(state, error, "the authorization code exchange");
  }
  await remember(state);
}

/**
 * The provider, seen through: the authorization URL it is sent to is
 * recorded, and for a step-up its refresh token is hidden, so `auth()`
 * starts a new authorization instead of refreshing the old grant.
 */
function watched(
  state: OAuthState,
  hideRefreshToken: boolean,
  onRedirect: (url: URL) => void,
): Provider {
  const target = state.provider as Provider;
  return new Proxy(target, {
    get(_, key) {
      if (key === "redirectToAuthorization") {
        return (url: URL) => {
          onRedirect(url);
          return target.redirectToAuthorization?.(url);
        };
      }
      if (key === "tokens" && hideRefreshToken) {
        return async () => {
          const tokens = await target.tokens();
          return tokens && { ...tokens, refresh_token: undefined };
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
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

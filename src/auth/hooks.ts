/**
 * The one thing the remote transports ask of OAuth: hooks over an OAuth
 * client provider (the MCP SDK's `OAuthClientProvider`) for the server at
 * a URL: the token of every request, and the calls that authorize on 401
 * / 403 and finish an authorization-code login. This part is loaded with
 * the transports and stays small; the flow itself (`_flow.ts`, and through
 * it the SDK's `auth()`) is imported on the first 401, so users without
 * OAuth never load it. A DPoP provider's requests go through `dpop.ts` (a
 * proof each), loaded on the first one. Internal.
 *
 * @module
 */

import { lazy } from "../util/lazy.ts";
import { mergeSecrets, secretsOf } from "../util/redact.ts";
import type { OAuthClientProviderLike, OAuthState } from "./provider.ts";
import type { MCPAuthorizationCallback } from "./provider.ts";

export type { OAuthClientProviderLike };

/** What a transport's HTTP client asks of its authorization. */
export interface AuthHooks {
  /**
   * Called on 401, or 403 `insufficient_scope`; `true` once new credentials
   * are in place. `note` receives what the flow notes without failing.
   */
  authorize?:
    | ((
      response: Response,
      signal?: AbortSignal,
      note?: (note: Error) => void,
    ) => Promise<boolean>)
    | undefined;
  /** The authorization headers of the next request. */
  getHeaders?: (() => Promise<Record<string, string>>) | undefined;
  /** Exchanges an authorization code (OAuth only). */
  finishAuth?: (callback: MCPAuthorizationCallback) => Promise<void>;
  /** A request that carried credentials was not refused. */
  passed?: () => void;
  /** Values to keep out of messages (tokens, codes, secrets), longest first. */
  secrets?: () => readonly string[];
  /** Wraps the transport's `fetch` (DPoP: a proof on each request). */
  wrapFetch?: ((next: typeof fetch) => typeof fetch) | undefined;
}

const states = new WeakMap<object, Map<string, OAuthState>>();
/** The flow, and through it the SDK's `auth()`, loaded by the first 401. */
const flow = lazy(() => import("./_flow.ts"));
/** DPoP proofs, loaded by a DPoP provider's first request. */
const dpop = lazy(() => import("./dpop.ts"));

/**
 * The hooks for `provider` and the MCP server at `serverUrl`. Transports
 * built with the same provider and URL share one {@linkcode OAuthState}.
 */
export function oauthHooks(
  provider: OAuthClientProviderLike,
  serverUrl: string,
  fetchFn: typeof fetch | undefined,
): AuthHooks {
  let byUrl = states.get(provider);
  if (byUrl === undefined) states.set(provider, byUrl = new Map());
  let state = byUrl.get(serverUrl);
  if (state === undefined) {
    byUrl.set(
      serverUrl,
      state = { provider, serverUrl, fetchFn, rounds: 0, secrets: [] },
    );
  }
  const s = state;
  return {
    // Read on every request: a refresh or a step-up shows on the next one.
    async getHeaders(): Promise<Record<string, string>> {
      const tokens = await provider.tokens() as
        | { access_token: string; refresh_token?: string }
        | undefined;
      s.sent = tokens;
      const refresh = tokens?.refresh_token;
      if (refresh && !s.secrets.includes(refresh)) {
        s.secrets = mergeSecrets(s.secrets, secretsOf([["token", refresh]]));
      }
      return tokens ? { authorization: `Bearer ${tokens.access_token}` } : {};
    },
    // A DPoP provider's requests: its DPoP token goes as `DPoP`, with a proof.
    wrapFetch: provider.dpop &&
      ((next) => async (input, init) =>
        (await dpop.load()).resourceFetch(provider, next)(
          input,
          init,
        )),
    authorize: async (response, signal, note) => {
      s.note = note;
      return (await flow.load()).authorize(s, response, signal);
    },
    finishAuth: async (code) => (await flow.load()).finishAuth(s, code),
    passed: () => s.rounds = 0,
    secrets: () => s.secrets,
  };
}

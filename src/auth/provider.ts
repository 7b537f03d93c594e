/**
 * What the OAuth wiring (`../oauth.ts`) and the flow it loads on the first
 * 401 (`flow.ts`) share: the provider's shape and the state kept per
 * provider and server. Internal.
 *
 * @module
 */

/**
 * The part of the MCP SDK's `OAuthClientProvider` this library calls
 * directly; pass a full SDK provider (e.g. `ClientCredentialsProvider`, or
 * your own for the authorization-code flow).
 */
export interface OAuthClientProviderLike {
  /** The current tokens, if any. */
  tokens():
    | { access_token: string; token_type?: string }
    | undefined
    | Promise<{ access_token: string; token_type?: string } | undefined>;
  /**
   * Runs `refresh` exclusively across every process sharing the provider's
   * store, unless the stored tokens differ from `stale` (another process
   * refreshed them meanwhile): then it resolves with those and `refresh`
   * is not called. Resolves with the stored tokens after. `signal` aborts
   * when every caller waiting for the refresh gave up. Optional; the
   * providers of `tokenStoreAuth()` (`@cleveragents/mcp-adapter/auth`)
   * have it.
   */
  refreshExclusive?(
    refresh: () => Promise<void>,
    options: {
      stale?: { access_token: string } | undefined;
      signal?: AbortSignal | undefined;
    },
  ): Promise<unknown>;
  /**
   * The DPoP session the provider's tokens are bound to (RFC 9449), or
   * `undefined` for none. With one, token requests carry a DPoP proof and a
   * `DPoP` token is sent with `Authorization: DPoP` and a fresh proof per
   * request. Optional; `withDPoP()` of `@cleveragents/mcp-adapter/auth` adds
   * it to any provider.
   */
  dpop?():
    | DPoPSessionLike
    | undefined
    | Promise<DPoPSessionLike | undefined>;
}

/** What one DPoP proof is for (RFC 9449 §4.2). */
export interface DPoPProofRequest {
  /** The request's method. */
  htm: string;
  /** The request's URL; its query and fragment are left out of the proof. */
  htu: string | URL;
  /** The access token sent with the request: its hash goes in `ath`. */
  accessToken?: string;
  /** The nonce to put in; default the latest one of the URL's origin. */
  nonce?: string;
}

/**
 * A DPoP signing key with the nonces servers sent: `DPoPSession` of
 * `@cleveragents/mcp-adapter/auth`, or the MCP SDK v2's `DpopSession`.
 */
export interface DPoPSessionLike {
  /** A fresh signed proof (a new `jti` each time). */
  buildProof(request: DPoPProofRequest): Promise<string>;
  /** Keeps the `DPoP-Nonce` of `response`, the answer from `url`, if it has one. */
  observeNonce(response: Response, url: string | URL): void;
}

/**
 * What one provider keeps for one MCP server between requests, shared by
 * every transport built with them (a reconnect keeps it): what the last
 * challenge said, the scope asked for, and the authorization in progress.
 */
export interface OAuthState {
  provider: OAuthClientProviderLike;
  serverUrl: string;
  fetchFn: typeof fetch | undefined;
  /** `resource_metadata` of the last challenge that had one. */
  resourceMetadataUrl?: URL | undefined;
  /** The scope last asked for: the union of every challenge's scope. */
  scope?: string | undefined;
  /** Authorizations since a request with credentials last got through. */
  rounds: number;
  /**
   * The authorization in progress; concurrent 401s share it. Aborted when
   * every caller waiting for it has given up.
   */
  running?: {
    promise: Promise<boolean>;
    abort: AbortController;
    waiting: number;
  } | undefined;
  /** The tokens of the last request sent: when it is refused, these are stale. */
  sent?: { access_token: string; refresh_token?: string } | undefined;
  /** What the guard learned of the authorization server (`guard.ts`). */
  guard?: import("./_guard.ts").GuardState | undefined;
  /** Tokens, codes, client secrets and verifiers seen, longest first. */
  secrets: string[];
  /** Where the flow notes what it does not fail on: the last transport's `onerror`. */
  note?: ((note: Error) => void) | undefined;
}

/**
 * What the authorization server's redirect brought: the whole redirect URL
 * or its query (`code`, and `iss` to check the issuer, RFC 9207) — as a
 * `URL`, `URLSearchParams` or the string a host's HTTP handler or a user's
 * paste gives (`http://127.0.0.1:9/callback?code=…&iss=…`, `?code=…`,
 * `code=…&iss=…`) — or the bare `code` (accepted only from a server that
 * does not send `iss`).
 */
export type MCPAuthorizationCallback = string | URL | URLSearchParams;

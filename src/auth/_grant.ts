/**
 * The contract between the flow (`flow.ts`) and the providers of
 * non-interactive grants (`jwt_bearer.ts`): a provider registered with a
 * {@linkcode Grant} builds its token request from what the flow
 * discovered, and is never retried after the authorization server refuses
 * it. Kept beside the provider, not on it, so it is no part of its public
 * type. Internal.
 *
 * @module
 */

/** What the flow knows when a grant builds its token request. */
export interface GrantContext {
  /**
   * The scope to ask for: every challenge's, else the protected resource
   * metadata's `scopes_supported`, else the provider's own.
   */
  scope: string | undefined;
  /** The authorization server's issuer, from its metadata (unset without metadata). */
  issuer: string | undefined;
  /** The protected resource metadata's `resource` (unset without metadata). */
  resource: string | undefined;
  /** The MCP server's URL. */
  serverUrl: string;
  /** `fetch` with the flow's checks (URL rule, size cap, deadline); no DPoP proof. */
  fetch: typeof fetch;
  /** Marks values the request carries as secrets: never in a message. */
  secret(...values: (string | undefined)[]): void;
}

/** A non-interactive grant (JWT bearer, with or without a token exchange first). */
export interface Grant {
  /** Its name in messages, e.g. `"JWT-bearer"`. */
  name: string;
  /** The token request's parameters (`grant_type` and the grant's own). */
  request(context: GrantContext): Promise<URLSearchParams>;
}

const grants = new WeakMap<object, Grant>();

/** Registers `provider`'s grant. */
export function registerGrant(provider: object, grant: Grant): void {
  grants.set(provider, grant);
}

/** The grant of `provider`, if it is a grant provider. */
export function grantOf(provider: object): Grant | undefined {
  return grants.get(provider);
}

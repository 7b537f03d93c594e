/**
 * The client side of OAuth tests: an in-memory `OAuthClientProvider` for
 * the authorization-code flow, and the "user" who approves at an
 * auto-approving authorization server. Runtime-neutral (fetch only); also
 * used by `scripts/conformance_client.ts`.
 *
 * @module
 */

import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

/** A loopback redirect URI that nothing listens on: the code is read from `Location`. */
export const REDIRECT_URL = "http://127.0.0.1:9/callback";

/** Options of {@linkcode MemoryOAuthProvider}. */
export interface MemoryOAuthProviderOptions {
  /** `client_name` in the registration. Default `"mcp-adapter-test"`. */
  clientName?: string;
  /** The redirect URI. Default {@linkcode REDIRECT_URL}. */
  redirectUrl?: string;
  /** Offered as the client ID when the authorization server supports CIMD. */
  clientMetadataUrl?: string;
  /** Pre-registered credentials: the SDK then skips dynamic registration. */
  preRegistered?: { client_id: string; client_secret?: string };
  /** `scope` of the client metadata, the SDK's last scope fallback. */
  scope?: string;
  /** `token_endpoint_auth_method` asked for in dynamic registration. */
  tokenEndpointAuthMethod?: string;
}

/**
 * An `OAuthClientProvider` that keeps everything in memory and never
 * fetches the authorization URL itself: it keeps the last one, as an app
 * keeps it to show the user ({@linkcode takeAuthorizationUrl}).
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl: string | undefined;
  readonly #redirectUrl: string;
  readonly #metadata: OAuthClientMetadata;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  #state: string | undefined;
  #pending: URL | undefined;
  /** Every authorization URL the client was sent to, in order. */
  readonly redirects: URL[] = [];
  /** Every token set saved, in order. */
  readonly savedTokens: OAuthTokens[] = [];
  /** Called with each authorization URL the client is sent to. */
  onRedirect: ((authorizationUrl: URL) => void) | undefined;

  constructor(options: MemoryOAuthProviderOptions = {}) {
    this.#redirectUrl = options.redirectUrl ?? REDIRECT_URL;
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.#client = options.preRegistered === undefined
      ? undefined
      : { ...options.preRegistered, redirect_uris: [this.#redirectUrl] };
    this.#metadata = {
      client_name: options.clientName ?? "mcp-adapter-test",
      redirect_uris: [this.#redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...(options.scope === undefined ? {} : { scope: options.scope }),
      ...(options.tokenEndpointAuthMethod === undefined
        ? {}
        : { token_endpoint_auth_method: options.tokenEndpointAuthMethod }),
    };
  }

  get redirectUrl(): string {
    return this.#redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.#metadata;
  }

  state(): string {
    this.#state = crypto.randomUUID();
    return this.#state;
  }

  /** The `state` sent with the last authorization request. */
  get expectedState(): string | undefined {
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.#client = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
    this.savedTokens.push(tokens);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.redirects.push(authorizationUrl);
    this.#pending = authorizationUrl;
    this.onRedirect?.(authorizationUrl);
  }

  /** The authorization URL the client was last sent to, once; then forgotten. */
  takeAuthorizationUrl(): URL | undefined {
    const url = this.#pending;
    this.#pending = undefined;
    return url;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) {
      throw new Error("no PKCE code verifier was saved");
    }
    return this.#verifier;
  }

  invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): void {
    if (scope === "all" || scope === "client") this.#client = undefined;
    if (scope === "all" || scope === "tokens") this.#tokens = undefined;
    if (scope === "all" || scope === "verifier") this.#verifier = undefined;
  }
}

/**
 * Plays the user at an authorization URL: fetches it without following
 * the redirect (the test servers approve at once) and returns the
 * redirect's query (`code`, `state`, and `iss` when the server sends it),
 * as the browser would bring it back.
 *
 * @throws {Error} When the answer is not a redirect carrying a code, or carries the wrong state.
 */
export async function approveHeadlesslyRedirect(
  authorizationUrl: URL,
  expectedState: string | undefined,
): Promise<URLSearchParams> {
  const response = await fetch(authorizationUrl, {
    redirect: "manual",
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (location === null) {
    throw new Error(
      `the authorization endpoint answered HTTP ${response.status} without a redirect`,
    );
  }
  const redirect = new URL(location, authorizationUrl);
  if (redirect.searchParams.get("code") === null) {
    throw new Error(
      `the authorization redirect carries no code (error: ${
        redirect.searchParams.get("error") ?? "none"
      })`,
    );
  }
  if (
    expectedState !== undefined &&
    redirect.searchParams.get("state") !== expectedState
  ) {
    throw new Error("the authorization redirect carries the wrong state");
  }
  return redirect.searchParams;
}

/**
 * {@linkcode approveHeadlesslyRedirect}, keeping only the code.
 *
 * @returns The authorization code.
 */
export async function approveHeadlessly(
  authorizationUrl: URL,
  expectedState: string | undefined,
): Promise<string> {
  return (await approveHeadlesslyRedirect(authorizationUrl, expectedState))
    .get("code")!;
}

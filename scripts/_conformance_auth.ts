/**
 * What both conformance drivers share. The OAuth client provider they hand
 * to their client keeps everything in memory, registers a loopback redirect
 * URL that nothing listens on, and sends a `state` per authorization request.
 * It never fetches the authorization URL itself: it keeps the last one, as
 * an app keeps it to show the user, and the driver then plays the user
 * ({@linkcode approveHeadlessly}). Also: the scenario context, and the
 * cross-app access exchange that no client library implements yet.
 *
 * @module
 */

import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

/** The redirect URI the drivers register; the conformance server only echoes it back. */
export const REDIRECT_URL = "http://localhost:3000/callback";

/**
 * The client ID metadata document URL the conformance suite expects in
 * `auth/basic-cimd` (`CIMD_CLIENT_METADATA_URL` in the suite's
 * `basic-cimd.ts`); it never needs to resolve.
 */
export const CIMD_URL = "https://conformance-test.local/client-metadata.json";

/** Options of {@linkcode ConformanceOAuthProvider}. */
export interface ConformanceProviderOptions {
  /** `client_name` in the registration. */
  clientName: string;
  /** Offered as the client ID when the authorization server supports CIMD. */
  clientMetadataUrl?: string;
  /** Pre-registered credentials: the SDK then skips dynamic registration. */
  preRegistered?: { client_id: string; client_secret?: string };
}

/** An in-memory `OAuthClientProvider` for the authorization-code flow. */
export class ConformanceOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl: string | undefined;
  readonly #metadata: OAuthClientMetadata;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  #state: string | undefined;
  #pending: URL | undefined;
  /** How many times the client was sent to the authorization page. */
  redirects = 0;
  /** Called with each authorization URL the client is sent to. */
  onRedirect: ((authorizationUrl: URL) => void) | undefined;

  constructor(options: ConformanceProviderOptions) {
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.#client = options.preRegistered === undefined
      ? undefined
      : { ...options.preRegistered, redirect_uris: [REDIRECT_URL] };
    this.#metadata = {
      client_name: options.clientName,
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
  }

  get redirectUrl(): string {
    return REDIRECT_URL;
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
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.redirects++;
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
 * Plays the user at the authorization page: the conformance authorization
 * server approves at once and answers 302 to the redirect URI with `code`
 * and `state`, so a fetch that does not follow redirects reads the code
 * from `Location`.
 *
 * @param authorizationUrl Where the client was sent.
 * @param expectedState The `state` the client sent, checked against the echo.
 * @returns The authorization code.
 * @throws {Error} When the answer is not a redirect carrying a code.
 */
export async function approveHeadlessly(
  authorizationUrl: URL,
  expectedState: string | undefined,
): Promise<string> {
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
  const code = redirect.searchParams.get("code");
  if (code === null) {
    throw new Error(
      `the authorization redirect carries no code (error: ${
        redirect.searchParams.get("error") ?? "none"
      })`,
    );
  }
  const state = redirect.searchParams.get("state");
  if (expectedState !== undefined && state !== expectedState) {
    throw new Error("the authorization redirect carries the wrong state");
  }
  return code;
}

/** The scenario's extra data (`MCP_CONFORMANCE_CONTEXT`), or `{}`. */
export function conformanceContext(): Record<string, string> {
  const raw = Deno.env.get("MCP_CONFORMANCE_CONTEXT");
  return raw === undefined ? {} : JSON.parse(raw);
}

/**
 * Cross-app access (SEP-990) without SDK support: discovers the MCP
 * server's authorization server, trades the IdP's ID token for an ID-JAG at
 * the IdP (RFC 8693), and the ID-JAG for an access token at the
 * authorization server (RFC 7523, client_secret_basic).
 *
 * @param serverUrl The MCP server.
 * @param context The scenario's context: IdP endpoint, ID token, client credentials.
 * @returns The access token.
 * @throws {Error} When a step fails; the message names the step.
 */
export async function crossAppAccessToken(
  serverUrl: string,
  context: Record<string, string>,
): Promise<string> {
  const json = async (what: string, response: Response) => {
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`${what} answered HTTP ${response.status}`);
    }
    return await response.json();
  };
  const timeout = () => AbortSignal.timeout(10_000);
  const prm = await json(
    "protected resource metadata",
    await fetch(
      new URL("/.well-known/oauth-protected-resource/mcp", serverUrl),
      {
        signal: timeout(),
      },
    ),
  );
  const as = await json(
    "authorization server metadata",
    await fetch(
      new URL(
        "/.well-known/oauth-authorization-server",
        prm.authorization_servers[0],
      ),
      { signal: timeout() },
    ),
  );
  const form = (fields: Record<string, string>) => new URLSearchParams(fields);
  const exchanged = await json(
    "the IdP token exchange",
    await fetch(context.idp_token_endpoint!, {
      method: "POST",
      body: form({
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
        audience: as.issuer,
        resource: prm.resource,
        subject_token: context.idp_id_token!,
        subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
        client_id: context.idp_client_id!,
      }),
      signal: timeout(),
    }),
  );
  const basic = btoa(
    `${encodeURIComponent(context.client_id!)}:${
      encodeURIComponent(context.client_secret!)
    }`,
  );
  const granted = await json(
    "the JWT bearer grant",
    await fetch(as.token_endpoint, {
      method: "POST",
      headers: { authorization: `Basic ${basic}` },
      body: form({
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion: exchanged.access_token,
      }),
      signal: timeout(),
    }),
  );
  return granted.access_token;
}

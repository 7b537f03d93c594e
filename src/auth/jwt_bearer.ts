/**
 * OAuth providers for machine clients on the JWT-bearer grant (RFC 7523):
 * {@linkcode WorkloadIdentityProvider} presents the workload's own JWT
 * (workload identity federation, SEP-1933), and
 * {@linkcode EnterpriseAuthProvider} first trades the user's ID token for an
 * ID-JAG at the enterprise's identity provider (RFC 8693 token exchange,
 * SEP-990) and presents that. Both run no browser and register no client;
 * a refused grant is reported, never retried. Either can bind its tokens
 * with DPoP (`dpop: true`).
 *
 * Exported by the `/auth` entry.
 *
 * @module
 */

import { MCPConnectionError } from "../errors.ts";
import { displayUrl, secretsOf } from "../util/redact.ts";
import { checkedUrl, oauthErrorText } from "./_guard.ts";
import { DPoPSession } from "./dpop.ts";
import { type Grant, type GrantContext, registerGrant } from "./_grant.ts";
import type { OAuthClientProviderLike } from "./provider.ts";
import { asText } from "../util/values.ts";

/** `grant_type` of RFC 7523. */
export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";

/** A secret given as it is, or read when needed (a file a platform rotates). */
export type SecretSource = string | (() => string | Promise<string>);

/** What both providers are configured with. */
export interface JwtBearerOptions {
  /** The client ID registered with the MCP server's authorization server. */
  clientId: string;
  /** Scopes to ask for when neither the server's challenge nor its metadata names any (space-separated). */
  scope?: string;
  /**
   * The authorization server's issuer URL: the client's credentials are
   * only sent to it. Default: the first one the MCP server names.
   */
  expectedIssuer?: string;
  /**
   * Bind the tokens with DPoP (RFC 9449): `true` for a new key pair, or a
   * session of your own. Default `false`.
   */
  dpop?: boolean | DPoPSession | Promise<DPoPSession>;
  /** `client_name` of the client metadata. */
  clientName?: string;
}

type Tokens = { access_token: string; token_type?: string };
type ClientInformation = {
  client_id: string;
  client_secret?: string;
  issuer?: string;
};

/**
 * The base of {@linkcode WorkloadIdentityProvider} and
 * {@linkcode EnterpriseAuthProvider}: what the MCP SDK's `auth()` reads of
 * a non-interactive provider (client information, tokens, no redirect), kept
 * in memory. Not constructed directly.
 */
export abstract class JwtBearerProvider implements OAuthClientProviderLike {
  /** The grant's name in messages, e.g. `"JWT-bearer"`. */
  readonly grantName: string;
  #client: ClientInformation;
  readonly #metadata: Record<string, unknown>;
  #tokens: Tokens | undefined;
  /** The DPoP session the tokens are bound to; only when `dpop` was asked for. */
  declare readonly dpop?: () => DPoPSession | Promise<DPoPSession>;

  /**
   * Sets up the client and registers the subclass's grant.
   *
   * @param options The client and its settings.
   * @param setup The subclass's part: the client's secret at the
   * authorization server (if it has one), the default `client_name`, and
   * the grant that builds the token request from what the flow discovered.
   * @throws {TypeError} When `clientId` is missing.
   */
  protected constructor(
    options: JwtBearerOptions,
    setup: { clientSecret?: string; clientName: string; grant: Grant },
  ) {
    const { clientSecret, grant } = setup;
    if (typeof options?.clientId !== "string" || options.clientId === "") {
      throw new TypeError(
        `${new.target.name}: "clientId" must be a non-empty string`,
      );
    }
    this.grantName = grant.name;
    this.#client = {
      client_id: options.clientId,
      ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
      ...(options.expectedIssuer === undefined
        ? {}
        : { issuer: options.expectedIssuer }),
    };
    this.#metadata = {
      client_name: options.clientName ?? setup.clientName,
      redirect_uris: [],
      grant_types: [JWT_BEARER],
      token_endpoint_auth_method: clientSecret === undefined
        ? "none"
        : "client_secret_basic",
      ...(options.scope === undefined ? {} : { scope: options.scope }),
    };
    registerGrant(this, grant);
    const dpop = options.dpop;
    if (dpop) {
      let session = dpop === true ? undefined : dpop;
      this.dpop = () => session ??= DPoPSession.create();
    }
  }

  /** No redirect: the grant needs no browser. */
  get redirectUrl(): undefined {
    return undefined;
  }

  /** The client metadata (the SDK reads its `scope`). */
  get clientMetadata(): Record<string, unknown> {
    return this.#metadata;
  }

  /** The configured client, bound to its authorization server once known. */
  clientInformation(): {
    client_id: string;
    client_secret?: string;
    issuer?: string;
  } {
    return this.#client;
  }

  /** Keeps the client bound to the authorization server that accepted it. */
  saveClientInformation(information: { issuer?: string }): void {
    this.#client = { ...this.#client, issuer: information.issuer };
  }

  /** The current tokens, if any. */
  tokens(): { access_token: string; token_type?: string } | undefined {
    return this.#tokens;
  }

  /** Keeps new tokens. */
  saveTokens(tokens: { access_token: string; token_type?: string }): void {
    this.#tokens = tokens;
  }

  /** Forgets the tokens (a new grant follows on the next 401). */
  invalidateCredentials(scope: string): void {
    if (scope === "all" || scope === "tokens") this.#tokens = undefined;
  }

  /** Never called: the grant needs no browser. */
  redirectToAuthorization(): never {
    throw new Error(`the ${this.grantName} grant has no authorization page`);
  }

  /** Never called: no PKCE without an authorization page. */
  saveCodeVerifier(): void {}

  /** Never called: no PKCE without an authorization page. */
  codeVerifier(): never {
    throw new Error(`the ${this.grantName} grant uses no PKCE verifier`);
  }
}

/** Options of {@linkcode WorkloadIdentityProvider}. */
export interface WorkloadIdentityProviderOptions extends JwtBearerOptions {
  /**
   * The workload's JWT, issued by its platform (Kubernetes, a cloud, CI)
   * for the authorization server: the token itself, or a function that
   * returns the current one (called for every token request, so a rotated
   * file is read afresh).
   */
  assertion: SecretSource;
}

/**
 * A workload authenticating with the JWT its platform issued it (RFC 7523
 * JWT-bearer grant, workload identity federation): no user, no browser, no
 * client registration, no client secret (`token_endpoint_auth_method:
 * none`). When the authorization server refuses the grant
 * (`invalid_grant`, `invalid_scope`, `unauthorized_client`) the error is
 * reported as it is: no retry, no other grant.
 *
 * @example A Kubernetes workload's projected service-account token
 * ```ts ignore
 * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
 * import { WorkloadIdentityProvider } from "@cleveragents/mcp-adapter/auth";
 *
 * const adapter = new MCPToolAdapter(
 *   { name: "tools", transport: "streamable-http", url: "https://mcp.example.com/mcp" },
 *   {
 *     authProvider: new WorkloadIdentityProvider({
 *       clientId: "my-agent",
 *       assertion: () => Deno.readTextFile("/var/run/secrets/tokens/mcp"),
 *       expectedIssuer: "https://auth.example.com",
 *     }),
 *   },
 * );
 * ```
 *
 * @example Constructed with a token at hand
 * ```ts
 * import { WorkloadIdentityProvider } from "@cleveragents/mcp-adapter/auth";
 *
 * const provider = new WorkloadIdentityProvider({ clientId: "my-agent", assertion: "eyJ..." });
 * console.log(provider.tokens()); // undefined until the first request
 * ```
 */
export class WorkloadIdentityProvider extends JwtBearerProvider {
  readonly #assertion: SecretSource;

  /**
   * A provider for the workload's JWT.
   *
   * @param options The client ID and the workload's JWT.
   * @throws {TypeError} When `clientId` or `assertion` is missing.
   */
  constructor(options: WorkloadIdentityProviderOptions) {
    const assertion = checkedSource(
      options?.assertion,
      "WorkloadIdentityProvider",
      "assertion",
    );
    super(options, {
      clientName: "workload-identity-client",
      grant: { name: "JWT-bearer", request: (context) => this.#grant(context) },
    });
    this.#assertion = assertion;
  }

  /** The JWT-bearer token request, with the workload's current JWT. */
  async #grant(context: GrantContext): Promise<URLSearchParams> {
    const assertion = await read(this.#assertion, "the workload's assertion");
    context.secret(assertion);
    return form({
      grant_type: JWT_BEARER,
      assertion,
      scope: context.scope,
    });
  }
}

/** Options of {@linkcode EnterpriseAuthProvider}. */
export interface EnterpriseAuthProviderOptions extends JwtBearerOptions {
  /** The client's secret at the MCP server's authorization server (sent with `client_secret_basic`). */
  clientSecret: string;
  /** The user's ID token from the enterprise identity provider: the token, or a function returning the current one. */
  idToken: SecretSource;
  /** The identity provider's token endpoint, where the ID token is exchanged for an ID-JAG. */
  idpTokenEndpoint: string | URL;
  /** The client ID registered with the identity provider. */
  idpClientId: string;
  /** The client's secret at the identity provider, if it has one (sent in the form). */
  idpClientSecret?: string;
}

/**
 * Enterprise-managed authorization (SEP-990, cross-app access): the user's
 * ID token from the enterprise identity provider is exchanged there for an
 * ID-JAG (RFC 8693, `requested_token_type` id-jag, `audience` the MCP
 * server's authorization server, `resource` the MCP server), and the ID-JAG
 * for an access token at the authorization server (RFC 7523 JWT-bearer,
 * client authenticated with `client_secret_basic`). The user logs in once,
 * at the identity provider; no consent page per MCP server.
 *
 * @example With an ID token your app got from the enterprise's login
 * ```ts ignore
 * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
 * import { EnterpriseAuthProvider } from "@cleveragents/mcp-adapter/auth";
 *
 * const adapter = new MCPToolAdapter(
 *   { name: "crm", transport: "streamable-http", url: "https://mcp.crm.example/mcp" },
 *   {
 *     authProvider: new EnterpriseAuthProvider({
 *       clientId: "crm-agent",
 *       clientSecret: Deno.env.get("CRM_CLIENT_SECRET")!,
 *       idToken: () => session.idToken,
 *       idpTokenEndpoint: "https://login.acme.example/oauth2/token",
 *       idpClientId: "agent-at-acme",
 *     }),
 *   },
 * );
 * ```
 *
 * @example Constructed
 * ```ts
 * import { EnterpriseAuthProvider } from "@cleveragents/mcp-adapter/auth";
 *
 * const provider = new EnterpriseAuthProvider({
 *   clientId: "crm-agent",
 *   clientSecret: "secret",
 *   idToken: "eyJ...",
 *   idpTokenEndpoint: "https://login.acme.example/oauth2/token",
 *   idpClientId: "agent-at-acme",
 * });
 * console.log(provider.grantName); // "ID-JAG"
 * ```
 */
export class EnterpriseAuthProvider extends JwtBearerProvider {
  readonly #idToken: SecretSource;
  readonly #idp: URL;
  readonly #idpClientId: string;
  readonly #idpClientSecret: string | undefined;

  /**
   * A provider for the user's ID token at an identity provider.
   *
   * @param options The client at both servers, the ID token and the identity provider's endpoint.
   * @throws {TypeError} When a required option is missing or the endpoint is not a URL.
   */
  constructor(options: EnterpriseAuthProviderOptions) {
    const name = "EnterpriseAuthProvider";
    if (typeof options.clientSecret !== "string" || !options.clientSecret) {
      throw new TypeError(`${name}: "clientSecret" must be a non-empty string`);
    }
    super(options, {
      clientSecret: options.clientSecret,
      clientName: "enterprise-managed-client",
      grant: { name: "ID-JAG", request: (context) => this.#grant(context) },
    });
    this.#idToken = checkedSource(options.idToken, name, "idToken");
    try {
      this.#idp = new URL(String(options.idpTokenEndpoint));
    } catch {
      throw new TypeError(
        `${name}: "idpTokenEndpoint" must be an absolute URL, e.g. "https://idp.example.com/oauth2/token"`,
      );
    }
    if (typeof options.idpClientId !== "string" || !options.idpClientId) {
      throw new TypeError(`${name}: "idpClientId" must be a non-empty string`);
    }
    this.#idpClientId = options.idpClientId;
    this.#idpClientSecret = options.idpClientSecret;
  }

  /** Trades the ID token for an ID-JAG, and returns the JWT-bearer request presenting it. */
  async #grant(context: GrantContext): Promise<URLSearchParams> {
    const { issuer } = context;
    if (issuer === undefined) {
      throw new MCPConnectionError(
        `OAuth: the authorization server of ${
          displayUrl(new URL(context.serverUrl))
        } publishes no metadata, so its issuer (the ID-JAG's audience) is unknown; enterprise-managed authorization needs RFC 8414 metadata`,
      );
    }
    const idToken = await read(this.#idToken, "the ID token");
    context.secret(idToken, this.#idpClientSecret);
    const endpoint = checkedUrl("identity provider token endpoint", this.#idp);
    const response = await context.fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: form({
        grant_type: TOKEN_EXCHANGE,
        requested_token_type: ID_JAG,
        audience: issuer,
        resource: context.resource ?? context.serverUrl,
        scope: context.scope,
        subject_token: idToken,
        subject_token_type: ID_TOKEN,
        client_id: this.#idpClientId,
        client_secret: this.#idpClientSecret,
      }),
    });
    const body = await response.json().catch(() => undefined) as
      | Record<string, unknown>
      | undefined;
    const where = displayUrl(endpoint);
    if (!response.ok) {
      throw new MCPConnectionError(
        `OAuth: the identity provider at ${where} refused to exchange the ID token for an ID-JAG: HTTP ${response.status}${
          oauthErrorText(
            body,
            secretsOf([
              ["subject_token", idToken],
              ["client_secret", this.#idpClientSecret ?? ""],
            ]),
          )
        }; check the ID token and the client registered there`,
      );
    }
    const jag = body?.access_token;
    const type = body?.issued_token_type;
    if (
      typeof jag !== "string" || jag === "" ||
      (type !== undefined && type !== ID_JAG)
    ) {
      throw new MCPConnectionError(
        `OAuth: the identity provider at ${where} answered the token exchange without an ID-JAG (issued_token_type ${
          JSON.stringify(asText(type) || "missing").slice(0, 80)
        }); it may not support enterprise-managed authorization`,
      );
    }
    context.secret(jag);
    return form({
      grant_type: JWT_BEARER,
      assertion: jag,
      scope: context.scope,
    });
  }
}

function form(fields: Record<string, string | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && value !== "") params.set(name, value);
  }
  return params;
}

function checkedSource(
  source: unknown,
  owner: string,
  name: string,
): SecretSource {
  if (
    (typeof source === "string" && source !== "") ||
    typeof source === "function"
  ) return source as SecretSource;
  throw new TypeError(
    `${owner}: "${name}" must be the token, or a function that returns it`,
  );
}

async function read(source: SecretSource, what: string): Promise<string> {
  const value = (typeof source === "string" ? source : await source()).trim();
  if (value === "") {
    throw new MCPConnectionError(
      `OAuth: ${what} is empty; nothing was sent to the authorization server`,
    );
  }
  return value;
}

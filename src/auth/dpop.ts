/**
 * DPoP (RFC 9449): sender-constrained tokens. A {@linkcode DPoPSession}
 * holds an ES256 key pair and the latest nonce each server sent; it signs a
 * fresh proof (`typ: dpop+jwt`, `htm`, `htu`, `iat`, `jti`, and `ath` when a
 * token goes with it) for every request, with WebCrypto only. Two `fetch`
 * wrappers use it: {@linkcode tokenRequestFetch} for the OAuth engine's token
 * requests (retried once on 400 `use_dpop_nonce`) and
 * {@linkcode resourceFetch} for the MCP server's requests (retried once on
 * 401 `use_dpop_nonce`). {@linkcode withDPoP} gives any provider a session.
 *
 * Loaded by the flow, by the transports' first request with a DPoP
 * provider, and by the `/auth` entry; never by the root entry at import.
 *
 * @module
 */

import type {
  DPoPProofRequest,
  DPoPSessionLike,
  OAuthClientProviderLike,
} from "./provider.ts";
import { grantOf, registerGrant } from "./_grant.ts";
import { readCapped } from "../util/read_body.ts";

export type { DPoPProofRequest, DPoPSessionLike };

/**
 * A DPoP key pair: WebCrypto `CryptoKey`s for ECDSA P-256 (`ES256`). The
 * private key signs proofs and may be non-extractable; the public key is
 * put in each proof. Typed as `object` so that this package's types need no
 * DOM library.
 */
export interface DPoPKeyPair {
  /** The private `CryptoKey` (`ECDSA`, `P-256`, usage `sign`). */
  privateKey: object;
  /** The public `CryptoKey`, extractable (every generated one is). */
  publicKey: object;
}

/** Options of {@linkcode DPoPSession.create}. */
export interface DPoPSessionOptions {
  /**
   * A key pair kept elsewhere (tokens bound to it outlive the process, so
   * its key must too). Default: a new non-extractable pair.
   */
  keyPair?: DPoPKeyPair;
}

const SIGNING = { name: "ECDSA", hash: "SHA-256" } as const;
const encoder = new TextEncoder();

/**
 * One DPoP signing key and the nonce state RFC 9449 asks a client to keep:
 * the latest `DPoP-Nonce` of each origin (the authorization server's and
 * the MCP server's are separate). Its `buildProof` / `observeNonce` are those
 * of the MCP SDK v2's `DpopSession`, so either fits a provider's `dpop()`.
 *
 * @example A session for a provider of your own
 * ```ts
 * import { DPoPSession } from "@cleveragents/mcp-adapter/auth";
 *
 * const session = await DPoPSession.create();
 * const proof = await session.buildProof({
 *   htm: "POST",
 *   htu: "https://mcp.example.com/mcp",
 *   accessToken: "token",
 * });
 * console.log(proof.split(".").length); // 3
 * ```
 */
export class DPoPSession implements DPoPSessionLike {
  readonly #privateKey: CryptoKey;
  /** The protected header, base64url-encoded: the same for every proof. */
  readonly #header: string;
  readonly #nonces = new Map<string, string>();

  private constructor(privateKey: CryptoKey, header: string) {
    this.#privateKey = privateKey;
    this.#header = header;
  }

  /**
   * A session with a new key pair, or with `options.keyPair`.
   *
   * @throws {TypeError} When the runtime has no WebCrypto, or the key is
   * not an ECDSA P-256 pair.
   */
  static async create(options: DPoPSessionOptions = {}): Promise<DPoPSession> {
    const subtle = globalThis.crypto?.subtle;
    if (subtle === undefined) {
      throw new TypeError(
        "DPoP needs WebCrypto (crypto.subtle), which this runtime lacks",
      );
    }
    const pair = (options.keyPair ??
      await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
        "sign",
        "verify",
      ])) as CryptoKeyPair;
    const jwk = await subtle.exportKey("jwk", pair.publicKey);
    if (jwk.kty !== "EC" || jwk.crv !== "P-256") {
      throw new TypeError(
        `DPoP keys must be ECDSA P-256 (ES256); got a ${jwk.kty} ${
          jwk.crv ?? ""
        } key`,
      );
    }
    // The public members only, in RFC 7638 order.
    const publicJwk = { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
    const header = encodeJson({
      typ: "dpop+jwt",
      alg: "ES256",
      jwk: publicJwk,
    });
    return new DPoPSession(pair.privateKey, header);
  }

  /**
   * A fresh proof for one request: a new `jti` every time (a proof is
   * presented once), the URL without query or fragment, `ath` when a token
   * goes with it, and the origin's latest nonce unless one is given.
   */
  async buildProof(request: DPoPProofRequest): Promise<string> {
    const url = new URL(String(request.htu));
    const jti = new Uint8Array(16);
    crypto.getRandomValues(jti);
    const claims: Record<string, unknown> = {
      jti: base64url(jti),
      htm: request.htm.toUpperCase(),
      htu: `${url.origin}${url.pathname}`,
      iat: Math.floor(Date.now() / 1000),
    };
    if (request.accessToken !== undefined) {
      claims.ath = base64url(
        await crypto.subtle.digest(
          "SHA-256",
          encoder.encode(request.accessToken),
        ),
      );
    }
    const nonce = request.nonce ?? this.nonceFor(url);
    if (nonce !== undefined) claims.nonce = nonce;
    const input = `${this.#header}.${encodeJson(claims)}`;
    const signature = await crypto.subtle.sign(
      SIGNING,
      this.#privateKey,
      encoder.encode(input),
    );
    return `${input}.${base64url(signature)}`;
  }

  /** The latest nonce `url`'s origin sent, if any. */
  nonceFor(url: string | URL): string | undefined {
    return this.#nonces.get(new URL(String(url)).origin);
  }

  /** Keeps the `DPoP-Nonce` of a response (any response may bring one, RFC 9449 §8.2). */
  observeNonce(response: Response, url: string | URL): void {
    const nonce = response.headers.get("dpop-nonce");
    // A nonce is a token of visible ASCII; anything else is not kept.
    if (nonce && /^[\x21-\x7e]{1,512}$/.test(nonce)) {
      this.#nonces.set(new URL(String(url)).origin, nonce);
    }
  }
}

/**
 * `provider` with a DPoP session: the transports then ask for DPoP-bound
 * tokens (a proof on every token request) and present a `DPoP` token with
 * `Authorization: DPoP` and a fresh proof on every request. A token the
 * authorization server issues as `Bearer` is still sent as `Bearer`.
 *
 * Tokens are bound to the session's key: a provider that stores tokens
 * across processes must keep the key too (`DPoPSession.create({ keyPair })`).
 *
 * @example DPoP for your authorization-code provider
 * ```ts ignore
 * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
 * import { withDPoP } from "@cleveragents/mcp-adapter/auth";
 *
 * const adapter = new MCPToolAdapter(
 *   { name: "docs", transport: "streamable-http", url: "https://mcp.example.com/mcp" },
 *   { authProvider: withDPoP(myProvider) },
 * );
 * ```
 *
 * @param provider Any OAuth provider (an MCP SDK `OAuthClientProvider`).
 * @param session The session to use. Default: one with a new key pair, made on first use.
 * @returns A view of `provider` whose `dpop()` returns the session.
 */
export function withDPoP<P extends OAuthClientProviderLike>(
  provider: P,
  session?: DPoPSession | Promise<DPoPSession>,
): P {
  let made = session;
  const dpop = () => made ??= DPoPSession.create();
  const view = new Proxy(provider, {
    get(target, key) {
      if (key === "dpop") return dpop;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    has: (target, key) => key === "dpop" || Reflect.has(target, key),
  });
  // A machine grant's provider stays one through the view.
  const grant = grantOf(provider);
  if (grant !== undefined) registerGrant(view, grant);
  return view;
}

/**
 * `fetch` for the MCP server's requests. The transport sends the
 * provider's token as `Bearer`; when that token is a `DPoP` one, it goes
 * as `Authorization: DPoP` with a fresh proof instead (retried once, with a
 * new proof, when the server answers 401 `use_dpop_nonce` with a nonce).
 * Every answer's nonce is kept.
 */
export function resourceFetch(
  provider: OAuthClientProviderLike,
  next: typeof fetch,
): typeof fetch {
  return async (input, init) => {
    const session = await provider.dpop?.();
    const url = requestUrl(input);
    const tokens = await provider.tokens();
    const headers = new Headers(init?.headers);
    const token = tokens?.access_token;
    const bound = session !== undefined && token !== undefined &&
      /^dpop$/i.test(tokens?.token_type ?? "") &&
      headers.get("authorization") === `Bearer ${token}`;
    if (!bound) {
      const response = await next(input, init);
      session?.observeNonce(response, url);
      return response;
    }
    headers.set("authorization", `DPoP ${token}`);
    const method = init?.method ?? "GET";
    const send = async () => {
      headers.set(
        "dpop",
        await session.buildProof({ htm: method, htu: url, accessToken: token }),
      );
      return await next(input, {
        ...init,
        headers: Object.fromEntries(headers),
      });
    };
    return await withNonceRetry(send, isNonceChallenge, session, url);
  };
}

/**
 * `fetch` for the OAuth engine: a token request (a form POST with a
 * `grant_type`) gets a proof without `ath`, and is retried once with a new
 * one when the authorization server answers 400 `use_dpop_nonce` with a
 * nonce. Other requests (metadata, registration) pass unchanged.
 */
export function tokenRequestFetch(
  session: DPoPSessionLike,
  next: typeof fetch,
): typeof fetch {
  return async (input, init) => {
    if (!isTokenRequest(init)) return await next(input, init);
    const url = requestUrl(input);
    const headers = new Headers(init?.headers);
    const send = async () => {
      headers.set("dpop", await session.buildProof({ htm: "POST", htu: url }));
      return await next(input, { ...init, headers });
    };
    return await withNonceRetry(
      send,
      async (response) =>
        response.status === 400 && response.headers.has("dpop-nonce") &&
        await oauthError(response) === "use_dpop_nonce",
      session,
      url,
    );
  };
}

/**
 * Sends with a proof; when the answer is a nonce challenge, keeps its nonce
 * and sends once more with a new proof (RFC 9449 §8, §9). Every answer's
 * nonce is kept.
 */
async function withNonceRetry(
  send: () => Promise<Response>,
  challenged: (response: Response) => boolean | Promise<boolean>,
  session: Pick<DPoPSessionLike, "observeNonce">,
  url: URL,
): Promise<Response> {
  let response = await send();
  if (await challenged(response)) {
    session.observeNonce(response, url);
    await response.body?.cancel().catch(() => {});
    response = await send();
  }
  session.observeNonce(response, url);
  return response;
}

/**
 * Whether `response` is an MCP server's 401 asking for a DPoP nonce: a
 * `DPoP` challenge with `error="use_dpop_nonce"` and a `DPoP-Nonce` (RFC 9449 §9).
 */
export function isNonceChallenge(response: Response): boolean {
  const challenge = response.headers.get("www-authenticate") ?? "";
  return response.status === 401 && response.headers.has("dpop-nonce") &&
    /(?:^|,)\s*dpop\s/i.test(challenge) &&
    /error\s*=\s*"?use_dpop_nonce"?/i.test(challenge);
}

/** Whether a request of the OAuth engine is a token request (a form with `grant_type`). */
export function isTokenRequest(init: RequestInit | undefined): boolean {
  const body = init?.body;
  if ((init?.method ?? "GET").toUpperCase() !== "POST") return false;
  const form = body instanceof URLSearchParams
    ? body
    : typeof body === "string"
    ? new URLSearchParams(body)
    : undefined;
  return form?.has("grant_type") ?? false;
}

/** The `error` of an OAuth error answer, read from a clone; `undefined` when it has none. */
async function oauthError(response: Response): Promise<string | undefined> {
  try {
    // A copy, read at most this far: the engine reads the answer itself.
    const text = await readCapped(response.clone(), {
      limit: ERROR_BODY_MAX_BYTES,
      tooLarge: () => new Error("too large for an OAuth error"),
    });
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body?.error === "string" ? body.error : undefined;
  } catch {
    return undefined;
  }
}

/** The most of a 400 answer read to find its OAuth `error` code. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

function requestUrl(input: RequestInfo | URL): URL {
  return new URL(input instanceof Request ? input.url : String(input));
}

function encodeJson(value: unknown): string {
  return base64url(encoder.encode(JSON.stringify(value)));
}

function base64url(data: ArrayBuffer | Uint8Array): string {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

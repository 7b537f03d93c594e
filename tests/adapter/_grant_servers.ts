/**
 * Servers for the machine-grant and DPoP tests, on 127.0.0.1: an MCP
 * server (the SDK's streamable HTTP server) that serves protected-resource
 * metadata and checks every request's token, an authorization server whose
 * token endpoint takes the JWT-bearer grant, and an enterprise identity
 * provider whose token endpoint exchanges an ID token for an ID-JAG.
 *
 * With `dpop`, the authorization server checks a DPoP proof on each token
 * request and binds the token it issues to the proof's key (`token_type:
 * DPoP`); the MCP server then wants `Authorization: DPoP` with a proof whose
 * signature, `htm`, `htu`, `ath`, key and `jti` it checks, and either side
 * may insist on its current nonce (`use_dpop_nonce`). Checks are synchronous
 * (`node:crypto`), as the SDK server's request hook is. Every request is
 * recorded for assertions.
 *
 * @module
 */

import { createHash, createPublicKey, verify } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { json } from "../_oauth_authorization.ts";
import {
  listen,
  sdkStreamableServer,
  type TestHttpServer,
} from "../_remote.ts";
import type { Cleanup } from "../_helpers.ts";

/** `grant_type` of RFC 7523. */
export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** Options of {@linkcode startGrantServers}. */
export interface GrantServerOptions {
  /** `token_endpoint_auth_methods_supported`. Default `["none"]`. */
  authMethods?: string[];
  /** Refuses a JWT-bearer request with this OAuth error, when it returns one. */
  refuse?: (form: URLSearchParams) => string | undefined;
  /** Answers the identity provider's token exchange with this OAuth error, when it returns one. */
  refuseExchange?: (form: URLSearchParams) => string | undefined;
  /** Rewrites the identity provider's successful answer to a token exchange. */
  exchangeAnswer?: (document: Record<string, unknown>) => void;
  /** The `error_description` of a refusal (either server), from the request's form and `Authorization`. */
  describe?: (
    form: URLSearchParams,
    authorization: string | undefined,
  ) => string;
  /** Check DPoP proofs and issue DPoP-bound tokens. Default false. */
  dpop?: boolean;
  /** The authorization server insists on its nonce (`dpop`). Default false. */
  asNonce?: boolean;
  /** The MCP server insists on its nonce (`dpop`). Default false. */
  rsNonce?: boolean;
  /** `scopes_supported` of the protected-resource metadata. */
  scopes?: string[];
}

/** A token request as the authorization server or identity provider saw it. */
export interface TokenRequest {
  form: URLSearchParams;
  authorization: string | undefined;
  /** The DPoP proof's claims, when there was a valid one. */
  proof?: Record<string, unknown>;
  status: number;
}

/** An MCP request and how the guard answered it. */
export interface McpRequest {
  method: string;
  authorization: string;
  proof?: Record<string, unknown>;
  status: number | "passed";
}

/** The running servers and what they saw. */
export interface GrantServers {
  /** The MCP endpoint. */
  url: string;
  /** The authorization server's issuer. */
  issuer: string;
  /** The protected resource (the metadata's `resource`). */
  resource: string;
  /** The identity provider's token endpoint. */
  idpTokenEndpoint: string;
  tokenRequests: TokenRequest[];
  exchanges: TokenRequest[];
  mcpRequests: McpRequest[];
  /** Why a proof was refused, in order. */
  proofProblems: string[];
  /** The nonces each side insists on now (change them to make a client retry). */
  nonces: { as: string; rs: string };
  /** Makes every issued token invalid: the next request gets 401. */
  expireTokens(): void;
  close(): Promise<void>;
}

/** Makes {@linkcode startGrantServers} whose close() is pushed to `cleanups`. */
export function grantServers(
  cleanups: Cleanup[],
): (options?: GrantServerOptions) => Promise<GrantServers> {
  return async (options) => {
    const servers = await startGrantServers(options);
    cleanups.push(() => servers.close());
    return servers;
  };
}

/** Starts the three servers. */
export async function startGrantServers(
  options: GrantServerOptions = {},
): Promise<GrantServers> {
  const tokens = new Map<string, { jkt: string | undefined }>();
  const seenJtis = new Set<string>();
  const tokenRequests: TokenRequest[] = [];
  const exchanges: TokenRequest[] = [];
  const mcpRequests: McpRequest[] = [];
  const proofProblems: string[] = [];
  const nonces = { as: "as-nonce-1", rs: "rs-nonce-1" };
  let mcpOrigin = "";
  let asOrigin = "";
  let idpOrigin = "";
  const resource = () => `${mcpOrigin}/mcp`;
  const prmUrl = () => `${mcpOrigin}/.well-known/oauth-protected-resource/mcp`;

  /** The proof's claims and key thumbprint, or why it is refused. */
  const checkProof = (
    proof: string | undefined,
    method: string,
    url: string,
    token?: string,
  ): { claims: Record<string, unknown>; jkt: string } | string => {
    if (proof === undefined) return "no DPoP proof";
    const [h, p, s] = proof.split(".");
    try {
      const header = JSON.parse(Buffer.from(h!, "base64url").toString());
      const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
      if (header.typ !== "dpop+jwt" || header.alg !== "ES256") return "typ/alg";
      if (header.jwk?.d !== undefined) return "private key in jwk";
      const key = createPublicKey({ key: header.jwk, format: "jwk" });
      const signed = verify(
        "sha256",
        Buffer.from(`${h}.${p}`),
        { key, dsaEncoding: "ieee-p1363" },
        Buffer.from(s!, "base64url"),
      );
      if (!signed) return "signature";
      if (claims.htm !== method) return `htm ${claims.htm}`;
      if (claims.htu !== url) return `htu ${claims.htu}`;
      if (Math.abs(Date.now() / 1000 - claims.iat) > 60) return "iat";
      if (typeof claims.jti !== "string" || seenJtis.has(claims.jti)) {
        return "jti replayed";
      }
      seenJtis.add(claims.jti);
      if (token !== undefined && claims.ath !== sha256(token)) return "ath";
      const { crv, kty, x, y } = header.jwk;
      const jkt = sha256(JSON.stringify({ crv, kty, x, y }));
      return { claims, jkt };
    } catch (error) {
      return `malformed: ${error}`;
    }
  };

  const mcp = await sdkStreamableServer({
    json: true,
    intercept: (req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (
        req.method === "GET" &&
        path === "/.well-known/oauth-protected-resource/mcp"
      ) {
        json(res, 200, {
          resource: resource(),
          authorization_servers: [asOrigin],
          ...(options.scopes ? { scopes_supported: options.scopes } : {}),
        });
        return true;
      }
      if (path !== "/mcp") return false;
      return guard(req, res);
    },
  });
  mcpOrigin = mcp.origin;

  /** Answers 401 unless the request's token (and proof) pass; true when it answered. */
  const guard = (req: IncomingMessage, res: ServerResponse): boolean => {
    const authorization = req.headers.authorization ?? "";
    const [scheme = "", token = ""] = authorization.split(" ");
    const seen: McpRequest = {
      method: req.method ?? "",
      authorization,
      status: "passed",
    };
    mcpRequests.push(seen);
    const scheme401 = options.dpop ? "DPoP" : "Bearer";
    const refuse = (extra = "", headers: Record<string, string> = {}) => {
      seen.status = 401;
      res.writeHead(401, {
        "www-authenticate":
          `${scheme401} ${extra}resource_metadata="${prmUrl()}"`,
        ...headers,
      }).end();
      return true;
    };
    const grant = tokens.get(token);
    if (grant === undefined) return refuse();
    if (grant.jkt === undefined) {
      return scheme === "Bearer" ? false : refuse('error="invalid_token", ');
    }
    if (scheme !== "DPoP") return refuse('error="invalid_token", ');
    const proof = req.headers.dpop as string | undefined;
    const checked = checkProof(proof, seen.method, resource(), token);
    if (typeof checked === "string" || checked.jkt !== grant.jkt) {
      proofProblems.push(typeof checked === "string" ? checked : "jkt");
      return refuse('error="invalid_dpop_proof", ');
    }
    seen.proof = checked.claims;
    if (options.rsNonce && checked.claims.nonce !== nonces.rs) {
      return refuse('error="use_dpop_nonce", ', { "dpop-nonce": nonces.rs });
    }
    return false;
  };

  const as = await listen((req, res, body) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/.well-known/oauth-authorization-server") {
      json(res, 200, {
        issuer: asOrigin,
        // Required by RFC 8414 parsers, though no one is sent there.
        authorization_endpoint: `${asOrigin}/authorize`,
        response_types_supported: ["code"],
        token_endpoint: `${asOrigin}/token`,
        grant_types_supported: [JWT_BEARER],
        token_endpoint_auth_methods_supported: options.authMethods ?? ["none"],
        ...(options.dpop
          ? { dpop_signing_alg_values_supported: ["ES256"] }
          : {}),
      });
      return;
    }
    if (path !== "/token" || req.method !== "POST") {
      json(res, 404, { error: "not_found" });
      return;
    }
    const form = new URLSearchParams(String(body));
    const seen: TokenRequest = {
      form,
      authorization: req.headers.authorization,
      status: 200,
    };
    tokenRequests.push(seen);
    const answer = (status: number, value: unknown, headers = {}) => {
      seen.status = status;
      res.writeHead(status, { "content-type": "application/json", ...headers })
        .end(JSON.stringify(value));
    };
    let jkt: string | undefined;
    if (options.dpop) {
      const checked = checkProof(
        req.headers.dpop as string | undefined,
        "POST",
        `${asOrigin}/token`,
      );
      if (typeof checked === "string") {
        proofProblems.push(`token request: ${checked}`);
        return answer(400, { error: "invalid_dpop_proof" });
      }
      seen.proof = checked.claims;
      if (options.asNonce && checked.claims.nonce !== nonces.as) {
        return answer(400, { error: "use_dpop_nonce" }, {
          "dpop-nonce": nonces.as,
        });
      }
      jkt = checked.jkt;
    }
    if (form.get("grant_type") !== JWT_BEARER || !form.get("assertion")) {
      return answer(400, { error: "unsupported_grant_type" });
    }
    const refused = options.refuse?.(form);
    if (refused !== undefined) {
      return answer(400, {
        error: refused,
        error_description: options.describe?.(form, seen.authorization) ??
          `refused: ${refused}`,
      });
    }
    const token = `at-${tokenRequests.length}-${crypto.randomUUID()}`;
    tokens.set(token, { jkt });
    answer(200, {
      access_token: token,
      token_type: jkt === undefined ? "Bearer" : "DPoP",
      expires_in: 3600,
    });
  });
  asOrigin = as.origin;

  const idp = await listen((req, res, body) => {
    const form = new URLSearchParams(String(body));
    const seen: TokenRequest = {
      form,
      authorization: req.headers.authorization,
      status: 200,
    };
    exchanges.push(seen);
    const refused = options.refuseExchange?.(form);
    if (refused !== undefined) {
      seen.status = 400;
      json(res, 400, {
        error: refused,
        error_description: options.describe?.(form, seen.authorization) ??
          "the IdP says no",
      });
      return;
    }
    const answer: Record<string, unknown> = {
      access_token: `jag-${exchanges.length}-${crypto.randomUUID()}`,
      issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      token_type: "N_A",
    };
    options.exchangeAnswer?.(answer);
    json(res, 200, answer);
  });
  idpOrigin = idp.origin;

  const all: TestHttpServer[] = [mcp, as, idp];
  return {
    url: mcp.url,
    issuer: asOrigin,
    resource: resource(),
    idpTokenEndpoint: `${idpOrigin}/token`,
    tokenRequests,
    exchanges,
    mcpRequests,
    proofProblems,
    nonces,
    expireTokens: () => tokens.clear(),
    close: async () => {
      await Promise.all(all.map((server) => server.close()));
    },
  };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/**
 * A hostile authorization server for the OAuth tests (the library's and
 * `mcp-adapter login`'s): the strict auto-approving one of
 * `_oauth_authorization.ts`, whose metadata documents, redirect and token
 * answers a test rewrites (a `file:` authorization endpoint, a wrong or
 * missing `iss`, a foreign issuer, a token that never comes or never ends,
 * terminal escapes in an error description), beside a protected MCP server
 * (`_remote.ts`) whose protected resource metadata names it. Both on 127.0.0.1, ephemeral
 * ports; nothing it serves points off the machine that a client would
 * fetch.
 *
 * @module
 */

import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { IncomingMessage } from "node:http";
import {
  authorizationServer,
  type AuthorizationServerOptions,
  json,
  type OAuthEvent,
} from "./_oauth_authorization.ts";
import { listen, sdkStreamableServer } from "./_remote.ts";
import assert from "node:assert/strict";
import {
  MCPAuthorizationRequiredError,
  MCPToolAdapter,
} from "@cleveragents/mcp-adapter";
import {
  approveHeadlesslyRedirect,
  MemoryOAuthProvider,
} from "./_oauth_client.ts";

/** What the hostile authorization server rewrites; each part is optional. */
export interface HostileOptions {
  /** How the honest authorization server underneath behaves (clients, grants). */
  server?: AuthorizationServerOptions;
  /** Changes the RFC 8414 metadata document before it is served. */
  metadata?: (document: Record<string, unknown>) => void;
  /** Changes the protected resource metadata before it is served. */
  resourceMetadata?: (document: Record<string, unknown>) => void;
  /** Changes the authorization endpoint's redirect (its `code`, `state`, `iss`) before it is sent. */
  redirect?: (location: URL) => void;
  /**
   * Answers the token endpoint instead of the honest server when it returns
   * (or resolves) true; it may hold the request first.
   */
  token?: (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ) => boolean | Promise<boolean>;
  /** Told of every MCP request refused with 401, and the token it carried. */
  refused?: (token: string) => void;
  /** Changes a token response (its JSON) before it is sent. */
  tokenResponse?: (document: Record<string, unknown>) => void;
  /** Answers an authorized MCP request (its parsed body) instead of the MCP server when it returns true. */
  mcp?: (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    token: string,
  ) => boolean;
}

/** The running pair. */
export interface HostileOAuthServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The authorization server's issuer, as its metadata says before any rewrite. */
  issuer: string;
  /** What clients asked of the authorization server, in order. */
  events: OAuthEvent[];
  /** Makes every access token issued so far expire now. */
  expireAccessTokens(): void;
  /** The token family of a live access or refresh token (see `revokeFamilyOnReuse`). */
  familyOf(token: string): string | undefined;
  close(): Promise<void>;
}

const METADATA_PATH = "/.well-known/oauth-authorization-server";
const PRM_PATH = "/.well-known/oauth-protected-resource/mcp";

/** Rewrites the JSON body `json()` is about to send. */
function rewriteJson(
  res: ServerResponse,
  change: (document: Record<string, unknown>) => void,
): void {
  const end = res.end.bind(res);
  res.end = ((chunk: unknown) => {
    const document = JSON.parse(String(chunk));
    change(document);
    return end(JSON.stringify(document));
  }) as typeof res.end;
}

/** Rewrites the `location` of the redirect about to be sent. */
function rewriteLocation(res: ServerResponse, change: (url: URL) => void) {
  const writeHead = res.writeHead.bind(res);
  res.writeHead = ((status: number, headers?: OutgoingHttpHeaders) => {
    if (typeof headers?.location === "string") {
      const location = new URL(headers.location);
      change(location);
      headers = { ...headers, location: location.href };
    }
    return writeHead(status, headers);
  }) as typeof res.writeHead;
}

/**
 * Starts the hostile authorization server and the MCP server it protects.
 *
 * @param options What to rewrite.
 */
export async function startHostileOAuthServer(
  options: HostileOptions = {},
): Promise<HostileOAuthServer> {
  let mcpOrigin = "";
  let asOrigin = "";
  const as = authorizationServer(options.server ?? {}, {
    origin: () => asOrigin,
    resource: () => `${mcpOrigin}/mcp`,
    requireResource: true,
  });
  const authServer = await listen(async (req, res, body) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === METADATA_PATH && options.metadata) {
      rewriteJson(res, options.metadata);
    }
    if (path === "/authorize" && options.redirect) {
      rewriteLocation(res, options.redirect);
    }
    if (path === "/token") {
      if (await options.token?.(req, res, body)) return;
      if (options.tokenResponse) rewriteJson(res, options.tokenResponse);
    }
    if (!as.serve(req, res, body)) json(res, 404, { error: "not_found" });
  });
  asOrigin = authServer.origin;
  const mcp = await sdkStreamableServer({
    intercept: (req, res, body) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (req.method === "GET" && path === PRM_PATH) {
        const document: Record<string, unknown> = {
          resource: `${mcpOrigin}/mcp`,
          authorization_servers: [as.issuer()],
        };
        options.resourceMetadata?.(document);
        json(res, 200, document);
        return true;
      }
      if (path.startsWith("/.well-known/")) {
        json(res, 404, { error: "not_found" });
        return true;
      }
      const header = req.headers.authorization ?? "";
      const grant = as.accessTokens.get(
        header.startsWith("Bearer ") ? header.slice(7) : "",
      );
      if (grant !== undefined && grant.expiresAt > Date.now()) {
        return options.mcp?.(req, res, body, header.slice(7)) ?? false;
      }
      options.refused?.(header.slice(7));
      res.writeHead(401, {
        "www-authenticate": `Bearer realm="mcp", resource_metadata="${
          mcpOrigin + PRM_PATH
        }"`,
        "content-type": "application/json",
      }).end(JSON.stringify({ error: "invalid_token" }));
      return true;
    },
  });
  mcpOrigin = mcp.origin;
  return {
    url: mcp.url,
    issuer: as.issuer(),
    events: as.events,
    expireAccessTokens: () => {
      for (const grant of as.accessTokens.values()) grant.expiresAt = 0;
    },
    familyOf: as.familyOf,
    close: async () => {
      await mcp.close();
      await authServer.close();
    },
  };
}

/**
 * A user's login at `server`, as `mcp-adapter login` leaves it in a token
 * store: the registered client and the tokens of a fresh authorization.
 * Each call is a new login (a new token family).
 */
export async function loginAt(server: { url: string }): Promise<{
  client: { client_id: string; client_secret?: string };
  tokens: { access_token: string; refresh_token?: string };
}> {
  const login = new MemoryOAuthProvider();
  const adapter = new MCPToolAdapter(
    { name: "notes", transport: "streamable-http", url: server.url },
    { authProvider: login },
  );
  await adapter.connect().catch(async (error) => {
    assert.ok(error instanceof MCPAuthorizationRequiredError);
    await adapter.finishAuth(
      await approveHeadlesslyRedirect(
        error.authorizationUrl,
        login.expectedState,
      ),
    );
  });
  await adapter.disconnect();
  const { client_id, client_secret } = login.clientInformation()!;
  return {
    client: { client_id, ...(client_secret ? { client_secret } : {}) },
    tokens: login.tokens()!,
  };
}

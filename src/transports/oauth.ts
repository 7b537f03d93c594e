/**
 * Wires an OAuth client provider (the MCP SDK's `OAuthClientProvider`) into
 * the remote transports' authorization hooks. The SDK's `auth()` flow is
 * imported lazily, so users without OAuth never load it. Internal.
 *
 * @module
 */

import {
  MCPAdapterError,
  MCPConfigError,
  MCPConnectionError,
} from "../errors.ts";
import { errorMessage } from "../_util/errors.ts";

/**
 * The part of the MCP SDK's `OAuthClientProvider` this library calls
 * directly; pass a full SDK provider (e.g. `ClientCredentialsProvider`).
 */
export interface OAuthClientProviderLike {
  /** The current tokens, if any. */
  tokens():
    | { access_token: string; token_type?: string }
    | undefined
    | Promise<{ access_token: string; token_type?: string } | undefined>;
}

/** The two hooks the remote transports accept. */
export interface AuthHooks {
  authorize: (response: Response) => Promise<boolean>;
  getHeaders: () => Promise<Record<string, string>>;
}

/** Builds the transport hooks for `provider` and the MCP server at `serverUrl`. */
export function oauthHooks(
  provider: OAuthClientProviderLike,
  serverUrl: string,
  fetchFn: typeof fetch | undefined,
): AuthHooks {
  const origin = new URL(serverUrl).origin;
  return {
    async getHeaders(): Promise<Record<string, string>> {
      const tokens = await provider.tokens();
      return tokens ? { Authorization: `Bearer ${tokens.access_token}` } : {};
    },
    async authorize(response) {
      // The .catch also tells bundlers the import may be missing: edge
      // bundles of users without OAuth build without the SDK installed.
      const sdk = await import("@modelcontextprotocol/sdk/client/auth.js")
        .catch((cause) => {
          throw new MCPConfigError(
            "authProvider",
            'OAuth needs the MCP SDK: install "@modelcontextprotocol/sdk" (npm) or map it in your import map',
            { cause },
          );
        });
      const { resourceMetadataUrl, scope } = sdk.extractWWWAuthenticateParams(
        response,
      );
      let result: string;
      try {
        result = await sdk.auth(provider as Parameters<typeof sdk.auth>[0], {
          serverUrl,
          resourceMetadataUrl,
          scope,
          fetchFn,
        });
      } catch (error) {
        if (error instanceof MCPAdapterError) throw error;
        throw new MCPConnectionError(
          `OAuth authorization for ${origin} failed: ${
            errorMessage(error)
          }; check the client credentials and the authorization server`,
          { cause: error },
        );
      }
      if (result === "AUTHORIZED") return true;
      throw new MCPConnectionError(
        `${origin} needs the user to authorize this client: the OAuth provider was asked to redirect to the authorization page; finish that flow, then connect again`,
      );
    },
  };
}

/**
 * OAuth providers for the authorization extensions: DPoP-bound tokens
 * (RFC 9449, {@linkcode withDPoP}, {@linkcode DPoPSession}), workload
 * identity with the JWT-bearer grant (RFC 7523,
 * {@linkcode WorkloadIdentityProvider}) and enterprise-managed
 * authorization (SEP-990: an ID-JAG from the enterprise's identity
 * provider, {@linkcode EnterpriseAuthProvider}), and the provider a config
 * file's `auth:` names ({@linkcode configAuth}). Pass any of them as the
 * `authProvider` of `MCPToolAdapter`, a transport or `MCPToolHub`. And
 * stored logins ({@linkcode tokenStoreAuth}, {@linkcode StoredOAuthProvider})
 * behind the token-store contract ({@linkcode OAuthTokenStore}: generations
 * and a compare-and-set, so a fleet never spends a refresh token twice),
 * keyed by server, client and end user ({@linkcode tokenKey}), with its
 * implementations: in memory ({@linkcode MemoryTokenStore}), a file
 * ({@linkcode FileTokenStore}, one machine) and Redis
 * ({@linkcode RedisTokenStore}, a fleet).
 *
 * Web standards only at import time (fetch, WebCrypto): the file store
 * reaches `node:` file APIs when it touches its file (Node 22+, Deno,
 * Bun). OAuth needs the MCP SDK (`@modelcontextprotocol/sdk`), loaded on
 * the first 401. A separate entry, so that the root one stays small.
 *
 * @example A workload's JWT, tokens bound with DPoP
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
 *       dpop: true,
 *     }),
 *   },
 * );
 * await adapter.connect();
 * ```
 *
 * @module
 */

export {
  type DPoPKeyPair,
  DPoPSession,
  type DPoPSessionOptions,
  withDPoP,
} from "./src/auth/dpop.ts";
export {
  EnterpriseAuthProvider,
  type EnterpriseAuthProviderOptions,
  type JwtBearerOptions,
  JwtBearerProvider,
  type SecretSource,
  WorkloadIdentityProvider,
  type WorkloadIdentityProviderOptions,
} from "./src/auth/jwt_bearer.ts";
export { configAuth } from "./src/auth/from_config.ts";
export {
  type RedisClientLike,
  redisKeyName,
  RedisTokenStore,
  type RedisTokenStoreOptions,
} from "./src/auth/redis_store.ts";
export { MemoryTokenStore } from "./src/auth/memory_store.ts";
export {
  DEFAULT_REFRESH_TIMEOUT_MS,
  type ExclusiveRefresh,
  FileTokenStore,
  type FileTokenStoreOptions,
  StoredOAuthProvider,
  type StoredOAuthProviderOptions,
  tokenStoreAuth,
  type TokenStoreAuthOptions,
  tokenStorePath,
} from "./src/auth/token_store.ts";
export type {
  TokenRefreshEvent,
  TokenRefreshKind,
} from "./src/auth/token_store.ts";
export {
  type LockTiming,
  type LoginVersion,
  type OAuthTokenStore,
  type RefreshInFlight,
  type StoredLogin,
  type StoredTokens,
  tokenKey,
  type TokenKeyParts,
} from "./src/auth/store.ts";
// Types the API above refers to, listed so this entry documents on its own.
export type {
  DPoPProofRequest,
  DPoPSessionLike,
  OAuthClientProviderLike,
} from "./src/auth/provider.ts";
export type {
  EnterpriseManagedAuth,
  OAuthLoginAuth,
  ServerAuth,
  ServerEntry,
  WorkloadIdentityAuth,
} from "./src/config/types.ts";
export type { MCPServerConfig, MCPTransportKind } from "./src/server_config.ts";
export type { CapabilityOverrides } from "./src/tools/capabilities.ts";
export type { JsonSchema, MCPToolFilter, ToolCapability } from "./src/types.ts";

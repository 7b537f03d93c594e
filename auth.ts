/**
 * OAuth providers for the authorization extensions: DPoP-bound tokens
 * (RFC 9449, {@linkcode withDPoP}, {@linkcode DPoPSession}), workload
 * identity with the JWT-bearer grant (RFC 7523,
 * {@linkcode WorkloadIdentityProvider}) and enterprise-managed
 * authorization (SEP-990: an ID-JAG from the enterprise's identity
 * provider, {@linkcode EnterpriseAuthProvider}), and the provider a config
 * file's `auth:` names ({@linkcode configAuth}). Pass any of them as the
 * `authProvider` of `MCPToolAdapter`, a transport or `MCPToolHub`. Also
 * the token-store contract that logins are kept behind
 * ({@linkcode OAuthTokenStore}) and its fleet implementation
 * ({@linkcode RedisTokenStore}); the file store, which needs `node:` file
 * APIs, and `tokenStoreAuth` are in the `/cli` entry.
 *
 * Web standards only (fetch, WebCrypto); OAuth needs the MCP SDK
 * (`@modelcontextprotocol/sdk`), loaded on the first 401. A separate entry,
 * so that the root one stays small.
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
} from "./src/transports/oauth/dpop.ts";
export {
  EnterpriseAuthProvider,
  type EnterpriseAuthProviderOptions,
  type JwtBearerOptions,
  JwtBearerProvider,
  type SecretSource,
  WorkloadIdentityProvider,
  type WorkloadIdentityProviderOptions,
} from "./src/transports/oauth/jwt_bearer.ts";
export { configAuth } from "./src/auth/from_config.ts";
export {
  type RedisClientLike,
  RedisTokenStore,
  type RedisTokenStoreOptions,
} from "./src/auth/redis_store.ts";
export type {
  LockTiming,
  OAuthTokenStore,
  StoredLogin,
  StoredTokens,
} from "./src/auth/store.ts";
// Types the API above refers to, listed so this entry documents on its own.
export type {
  DPoPProofRequest,
  DPoPSessionLike,
  OAuthClientProviderLike,
} from "./src/transports/oauth/state.ts";
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

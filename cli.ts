#!/usr/bin/env node
/**
 * The `mcp-adapter` command line: list, call and check the tools of the MCP
 * servers in a config file, and log in to the ones that use OAuth.
 *
 * ```sh
 * deno run -A jsr:@cleveragents/mcp-adapter/cli tools
 * npx @cleveragents/mcp-adapter call notes/search_notes query=milk
 * ```
 *
 * Runs the same on Deno and Node: besides this package it uses only `node:`
 * built-ins that both provide. The `#!` line is for the npm package's `bin`
 * (`deno pack` keeps it); Deno ignores it.
 *
 * @module
 */

export { type CliOptions, type CliOutput, main } from "./src/cli/main.ts";
export {
  FileTokenStore,
  type FileTokenStoreOptions,
  tokenStoreAuth,
  type TokenStoreAuthOptions,
  tokenStorePath,
} from "./src/auth/token_store.ts";
export {
  type RedisClientLike,
  RedisTokenStore,
  type RedisTokenStoreOptions,
} from "./src/auth/redis_store.ts";
export type {
  LockTiming,
  LoginVersion,
  OAuthTokenStore,
  RefreshInFlight,
  StoredLogin,
  StoredTokens,
} from "./src/auth/store.ts";
export type {
  TokenRefreshEvent,
  TokenRefreshKind,
} from "./src/auth/token_store.ts";
// Types the API above refers to, listed so this entry documents on its own.
export type {
  EnterpriseManagedAuth,
  OAuthLoginAuth,
  ServerAuth,
  ServerEntry,
  WorkloadIdentityAuth,
} from "./src/config/load.ts";
export type { OAuthClientProviderLike } from "./src/auth/provider.ts";
export type { DPoPProofRequest, DPoPSessionLike } from "./src/auth/provider.ts";
export type { MCPServerConfig, MCPTransportKind } from "./src/server_config.ts";
export type { CapabilityOverrides } from "./src/tools/capabilities.ts";
export type { JsonSchema, MCPToolFilter, ToolCapability } from "./src/types.ts";
import { main } from "./src/cli/main.ts";
import { isMain, runAsProgram } from "./src/cli/program.ts";

// `deno run -A cli.ts` (and `jsr:…/cli`) still runs it; the npm bin is bin.ts.
if (isMain(import.meta)) void runAsProgram(main, import.meta.url);

/**
 * Which OAuth provider a configured server gets: the machine grant its
 * config names (workload identity, enterprise-managed; `configAuth`), else
 * the login kept in a token store (`token_store.ts`). The one place the
 * command line reaches the config's providers through.
 *
 * @module
 */

import type { ServerEntry } from "../config/types.ts";
import type { OAuthClientProviderLike } from "./provider.ts";
import { configAuth } from "./from_config.ts";
import type { OAuthTokenStore } from "./store.ts";
import { tokenStoreAuth } from "./token_store.ts";

/**
 * The `authProvider` option of `MCPToolHub` for the servers of a config: a
 * machine grant of the config, else the stored login of a server with
 * `auth: oauth`, else none.
 *
 * @example
 * ```ts ignore
 * const hub = new MCPToolHub(servers, { authProvider: serverAuth(path) });
 * ```
 *
 * @param store The token store, or the path of a token file.
 * @returns The provider of each server entry (`undefined`: no auth).
 */
export function serverAuth(
  store: OAuthTokenStore | string,
): (entry: ServerEntry) => OAuthClientProviderLike | undefined {
  const stored = tokenStoreAuth(store);
  return (entry) => configAuth(entry) ?? stored(entry);
}

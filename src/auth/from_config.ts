/**
 * The OAuth provider of a config file's server, for the machine grants of
 * `auth:` (`workload-identity`, `enterprise-managed`). Exported by the
 * `/auth` entry.
 *
 * @module
 */

import type {
  EnterpriseManagedAuth,
  ServerEntry,
  WorkloadIdentityAuth,
} from "../config/types.ts";
import { readFailure, readText } from "../util/read_file.ts";
import { MCPConfigError } from "../errors.ts";
import {
  EnterpriseAuthProvider,
  type SecretSource,
  WorkloadIdentityProvider,
} from "./jwt_bearer.ts";
import type { OAuthClientProviderLike } from "./provider.ts";

const providers = new WeakMap<ServerEntry, OAuthClientProviderLike>();

/**
 * The provider a config file's server asks for with a machine grant:
 * `auth: { type: workload-identity, … }` gives a
 * {@linkcode WorkloadIdentityProvider}, `auth: { type: enterprise-managed, … }`
 * an {@linkcode EnterpriseAuthProvider}; `undefined` for anything else (no
 * `auth`, or `auth: oauth`, a user's login: see `tokenStoreAuth()` of
 * `@cleveragents/mcp-adapter/cli`). The same entry gets the same provider,
 * so its tokens outlive a reconnect. Files (`assertionFile`, `idTokenFile`)
 * are read for every token request (on Deno, Node and Bun).
 *
 * @example A hub whose servers use machine grants and logins
 * ```ts ignore
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { loadConfig } from "@cleveragents/mcp-adapter/config";
 * import { configAuth } from "@cleveragents/mcp-adapter/auth";
 * import { tokenStoreAuth } from "@cleveragents/mcp-adapter/cli";
 *
 * const { servers } = await loadConfig("mcp.yaml");
 * const logins = tokenStoreAuth();
 * const hub = new MCPToolHub(servers, {
 *   authProvider: (entry) => configAuth(entry) ?? logins(entry),
 * });
 * ```
 *
 * @example What a workload-identity entry becomes
 * ```ts
 * import { parseConfig } from "@cleveragents/mcp-adapter/config";
 * import { configAuth, WorkloadIdentityProvider } from "@cleveragents/mcp-adapter/auth";
 *
 * const { servers } = parseConfig(
 *   `servers:
 *   - name: tools
 *     transport: streamable-http
 *     url: https://mcp.example.com/mcp
 *     auth: { type: workload-identity, clientId: my-agent, assertion: eyJ.x.y }
 * `,
 *   "yaml",
 * );
 * console.log(configAuth(servers[0]!) instanceof WorkloadIdentityProvider); // true
 * ```
 *
 * @param entry A server of `loadConfig()` / `parseConfig()`.
 * @returns Its provider, or `undefined` when it names no machine grant.
 */
export function configAuth(
  entry: ServerEntry,
): OAuthClientProviderLike | undefined {
  const auth = entry.auth;
  if (auth === undefined || auth.type === "oauth") return undefined;
  let provider = providers.get(entry);
  if (provider === undefined) {
    provider = auth.type === "workload-identity"
      ? workload(auth)
      : enterprise(auth);
    providers.set(entry, provider);
  }
  return provider;
}

function workload(auth: WorkloadIdentityAuth): WorkloadIdentityProvider {
  return new WorkloadIdentityProvider({
    clientId: auth.clientId,
    assertion: source(auth.assertion, auth.assertionFile, "assertionFile"),
    ...common(auth),
  });
}

function enterprise(auth: EnterpriseManagedAuth): EnterpriseAuthProvider {
  return new EnterpriseAuthProvider({
    clientId: auth.clientId,
    clientSecret: auth.clientSecret,
    idToken: source(auth.idToken, auth.idTokenFile, "idTokenFile"),
    idpTokenEndpoint: auth.idpTokenEndpoint,
    idpClientId: auth.idpClientId,
    ...(auth.idpClientSecret === undefined
      ? {}
      : { idpClientSecret: auth.idpClientSecret }),
    ...common(auth),
  });
}

function common(auth: WorkloadIdentityAuth | EnterpriseManagedAuth) {
  return {
    ...(auth.scopes?.length ? { scope: auth.scopes.join(" ") } : {}),
    ...(auth.expectedIssuer === undefined
      ? {}
      : { expectedIssuer: auth.expectedIssuer }),
    ...(auth.dpop ? { dpop: true } : {}),
  };
}

/** The token as written, or a reader of its file. */
function source(
  value: string | undefined,
  file: string | undefined,
  field: string,
): SecretSource {
  if (value !== undefined) return value;
  if (file === undefined) {
    throw new MCPConfigError(
      field,
      `auth needs the token or ${field}; the config loader checks this, so the entry was built by hand`,
    );
  }
  return async () => {
    try {
      return await readText(file);
    } catch (error) {
      throw new MCPConfigError(
        field,
        `cannot read ${field} ${JSON.stringify(file)}: ${readFailure(error)}`,
        { cause: error },
      );
    }
  };
}

/**
 * The OAuth client provider of a configured server, over a token store
 * (`store.ts`: the file store by default, `redis_store.ts` for a fleet):
 * it reads and writes the server's login there, and refreshes under the
 * store's lock of that server, so that processes sharing the store refresh
 * a rotating refresh token once. Values are never printed. Used by the
 * command line's `login` and by hosts; the public names are re-exported by
 * `cli.ts`.
 *
 * @module
 */

import type { ServerEntry } from "../config/load.ts";
import { SerialQueue } from "../util/serial_queue.ts";
import { MCPAuthorizationRequiredError } from "../errors.ts";
import type { OAuthClientProviderLike } from "../transports/oauth.ts";
import {
  FileTokenStore,
  type FileTokenStoreOptions,
  tokenStorePath,
} from "./file_store.ts";
import type { OAuthTokenStore, StoredLogin, StoredTokens } from "./store.ts";

export { FileTokenStore, type FileTokenStoreOptions, tokenStorePath };
export type { OAuthTokenStore, StoredLogin, StoredTokens };

/**
 * The login command's view of the file store: an absent entry reads as
 * empty.
 */
export class TokenStore extends FileTokenStore {
  /** The entry of `url`; `{}` when there is none. */
  override async get(url: string): Promise<StoredLogin> {
    return (await super.get(url)) ?? {};
  }
}

/**
 * The optional provider method behind refresh serialisation: what an OAuth
 * engine calls instead of refreshing on its own, so that every process
 * sharing the store refreshes a given grant once.
 */
export interface ExclusiveRefresh {
  /**
   * Refreshes under the store's lock of this server. Takes the lock
   * (waiting for another process's refresh to finish), rereads the stored
   * tokens, and, when they are no longer `options.stale` (another process
   * refreshed, or logged in or out, meanwhile), resolves with them without
   * calling `refresh`. Otherwise it calls `refresh(current)`, saves the
   * tokens it resolves with (when it resolves with none, what `refresh`
   * saved through `saveTokens()` counts), and resolves with the stored
   * tokens, releasing the lock in every case. Saves made through this
   * provider while `refresh` runs go straight to the store.
   *
   * @param refresh Refreshes `current` (e.g. the SDK's `auth()`); rejects to abort.
   * @param options `stale`: the tokens the caller found wanting (whose
   * access token was refused); default, what the store holds when called.
   * @returns The tokens now stored (`undefined` when there are none).
   * @throws What `refresh` throws; an `MCPTimeoutError` when the lock stayed taken.
   */
  refreshExclusive(
    refresh: (
      current: StoredTokens | undefined,
    ) => Promise<StoredTokens | undefined | void>,
    options?: { stale?: StoredTokens | undefined },
  ): Promise<StoredTokens | undefined>;
}

/** Options of {@linkcode StoredOAuthProvider}. */
export interface StoredOAuthProviderOptions {
  /** Where the authorization server sends the browser back (`login` only). */
  redirectUrl?: string;
  /** `login`: shows the authorization URL. Otherwise a needed login throws. */
  onRedirect?: (authorizationUrl: URL) => void;
}

/**
 * An OAuth client provider (the MCP SDK's `OAuthClientProvider` shape) for
 * one configured server, backed by an {@linkcode OAuthTokenStore}: a native
 * public client (PKCE, no secret) with a loopback redirect URI. Without
 * `onRedirect`, a needed login fails with an
 * {@linkcode MCPAuthorizationRequiredError} that says to run `login`.
 *
 * Every change of the server's login is a read-modify-write under the
 * store's lock of the server URL, except inside `refreshExclusive()`,
 * which holds that lock already.
 */
export class StoredOAuthProvider implements ExclusiveRefresh {
  readonly #store: OAuthTokenStore;
  readonly #entry: ServerEntry;
  readonly #url: string;
  readonly #options: StoredOAuthProviderOptions;
  /** Changes made while this provider holds the lock, in order. */
  readonly #locked = new SerialQueue();
  #holding = 0;
  #verifier: string | undefined;
  #state: string | undefined;

  constructor(
    store: OAuthTokenStore,
    entry: ServerEntry,
    options: StoredOAuthProviderOptions = {},
  ) {
    this.#store = store;
    this.#entry = entry;
    this.#url = entry.config.url!;
    this.#options = options;
  }

  /** The loopback redirect URI of this login. */
  get redirectUrl(): string {
    return this.#options.redirectUrl ?? "http://127.0.0.1/callback";
  }

  /** What dynamic registration sends. */
  get clientMetadata(): Record<string, unknown> {
    const scopes = this.#entry.auth?.scopes;
    return {
      client_name: "mcp-adapter",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(scopes?.length ? { scope: scopes.join(" ") } : {}),
    };
  }

  /** A fresh `state` for the authorization request. */
  state(): string {
    return this.#state = crypto.randomUUID();
  }

  /** The `state` of the last authorization request. */
  get expectedState(): string | undefined {
    return this.#state;
  }

  async clientInformation(): Promise<Record<string, unknown> | undefined> {
    const client = (await this.#store.get(this.#url))?.client;
    const clientId = this.#entry.auth?.clientId;
    if (clientId !== undefined && client?.client_id !== clientId) {
      return { client_id: clientId };
    }
    return client;
  }

  saveClientInformation(client: Record<string, unknown>): Promise<void> {
    // Outside a login a new registration is not kept: only `login` registers.
    const login = this.#options.onRedirect !== undefined;
    return this.#update((entry) =>
      login || entry.client ? { ...entry, client } : entry
    );
  }

  async tokens(): Promise<StoredTokens | undefined> {
    return (await this.#store.get(this.#url))?.tokens;
  }

  saveTokens(tokens: StoredTokens): Promise<void> {
    return this.#update((entry) => ({ ...entry, tokens }));
  }

  refreshExclusive(
    refresh: (
      current: StoredTokens | undefined,
    ) => Promise<StoredTokens | undefined | void>,
    options: { stale?: StoredTokens | undefined } = {},
  ): Promise<StoredTokens | undefined> {
    const stale = "stale" in options
      ? Promise.resolve(options.stale)
      : this.tokens();
    return stale.then((seen) =>
      this.#store.withLock(this.#url, async () => {
        this.#holding++;
        try {
          const current = await this.tokens();
          if (!sameTokens(current, seen)) return current; // refreshed elsewhere
          const fresh = await refresh(current);
          if (fresh) await this.saveTokens(fresh);
          return await this.tokens();
        } finally {
          this.#holding--;
        }
      })
    );
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    const show = this.#options.onRedirect;
    if (show) return show(authorizationUrl);
    const name = this.#entry.config.name;
    throw new MCPAuthorizationRequiredError(
      `MCP server "${name}" needs a login: run "mcp-adapter login ${name}"`,
      authorizationUrl,
    );
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) {
      throw new Error("no login is in progress");
    }
    return this.#verifier;
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    if (scope === "verifier" || scope === "all") this.#verifier = undefined;
    if (scope === "discovery" || scope === "verifier") return;
    await this.#update((entry) => {
      const kept = { ...entry };
      if (scope !== "tokens") delete kept.client;
      if (scope !== "client") delete kept.tokens;
      return kept;
    });
  }

  /**
   * Replaces the server's login with what `change` makes of it (an empty
   * login deletes it), under the store's lock unless this provider holds it.
   */
  #update(change: (entry: StoredLogin) => StoredLogin): Promise<void> {
    const write = async () => {
      const changed = change(await this.#store.get(this.#url) ?? {});
      if (changed.client === undefined && changed.tokens === undefined) {
        await this.#store.delete(this.#url);
      } else {
        await this.#store.set(this.#url, changed);
      }
    };
    return this.#holding > 0
      ? this.#locked.run(write)
      : this.#store.withLock(this.#url, write);
  }
}

/** Whether two token sets are the same grant state (same access and refresh token). */
function sameTokens(
  a: StoredTokens | undefined,
  b: StoredTokens | undefined,
): boolean {
  return a?.access_token === b?.access_token &&
    a?.refresh_token === b?.refresh_token;
}

/**
 * The OAuth providers of the servers with `auth: oauth`, backed by a token
 * store: what `mcp-adapter login` saved is used, and refreshed tokens are
 * saved back. A server that needs a new login fails with an
 * `MCPAuthorizationRequiredError` that names the `login` command. Every
 * provider refreshes under the store's lock of its server (see
 * {@linkcode OAuthTokenStore.withLock}), so processes that share the store
 * (a `RedisTokenStore` for workers on many machines) refresh a grant once.
 *
 * @example The command line's logins in your own hub
 * ```ts ignore
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { loadConfig } from "@cleveragents/mcp-adapter/config";
 * import { tokenStoreAuth } from "@cleveragents/mcp-adapter/cli";
 *
 * const { servers } = await loadConfig("mcp.yaml"); // with auth: oauth entries
 * const hub = new MCPToolHub(servers, { authProvider: tokenStoreAuth() });
 * await hub.start();
 * ```
 *
 * @param store The store, or the path of a token file; default the
 * command line's file, {@linkcode tokenStorePath}.
 * @returns The `authProvider` option of `MCPToolHub`.
 */
export function tokenStoreAuth(
  store: OAuthTokenStore | string = tokenStorePath(),
): (entry: ServerEntry) => OAuthClientProviderLike | undefined {
  const opened = typeof store === "string" ? new FileTokenStore(store) : store;
  // Only a user's login is stored; machine grants come from the config.
  return (entry) =>
    entry.auth?.type === "oauth" && entry.config.url
      ? new StoredOAuthProvider(opened, entry)
      : undefined;
}

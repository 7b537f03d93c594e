/**
 * The OAuth client provider of a configured server, over a token store
 * (`store.ts`: in memory, a file, or Redis for a fleet): it reads and
 * writes the server's login there, under the key of what the login
 * belongs to (server, client, principal), and refreshes by the store's
 * refresh protocol (`_refresh.ts`), so that processes sharing the store
 * never send a rotating refresh token twice. Values are never printed.
 * Used by the command line's `login` and by hosts; the public names are
 * re-exported by `auth.ts` and `cli.ts`.
 *
 * @module
 */

import type { ServerEntry } from "../config/load.ts";
import { MCPAuthorizationRequiredError } from "../errors.ts";
import type { OAuthClientProviderLike } from "./provider.ts";
import {
  FileTokenStore,
  type FileTokenStoreOptions,
  tokenStorePath,
} from "./file_store.ts";
import {
  describeKey,
  type OAuthTokenStore,
  type StoredLogin,
  type StoredTokens,
  tokenKey,
} from "./store.ts";
import {
  type Claim,
  clearRefused,
  refreshOnce,
  Superseded,
  type TokenRefreshEvent,
  type TokenRefreshKind,
  versionOf,
  writeRefreshed,
} from "./_refresh.ts";

export { FileTokenStore, type FileTokenStoreOptions, tokenStorePath };
export type {
  OAuthTokenStore,
  StoredLogin,
  StoredTokens,
  TokenRefreshEvent,
  TokenRefreshKind,
};

/** Default {@linkcode TokenStoreAuthOptions.refreshTimeoutMs}. */
export const DEFAULT_REFRESH_TIMEOUT_MS = 120_000;

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
   * Refreshes by the store's refresh protocol (see `OAuthTokenStore`):
   * takes the store's lock of this login (waiting for another process's
   * turn), rereads the stored tokens, and, when they are no longer
   * `options.stale` (another process refreshed, or logged in or out,
   * meanwhile), resolves with them without calling `refresh`. When another
   * holder's refresh of the same generation is in flight, it waits for
   * the next generation instead of sending the same refresh token.
   * Otherwise it records the refresh in flight, calls `refresh(current)`,
   * writes the tokens it resolves with (or that `refresh` saved through
   * `saveTokens()`) as the next generation, and resolves with the stored
   * tokens.
   *
   * @param refresh Refreshes `current` (e.g. the SDK's `auth()`); rejects to abort.
   * @param options `stale`: the tokens the caller found wanting (whose
   * access token was refused); default, what the store holds when called.
   * `signal`: ends a wait for another holder's refresh.
   * @returns The tokens now stored (`undefined` when there are none).
   * @throws What `refresh` throws; an `MCPTimeoutError` when the lock stayed taken.
   */
  refreshExclusive(
    refresh: (
      current: StoredTokens | undefined,
    ) => Promise<StoredTokens | undefined | void>,
    options?: {
      stale?: StoredTokens | undefined;
      signal?: AbortSignal | undefined;
    },
  ): Promise<StoredTokens | undefined>;
}

/** Options of {@linkcode tokenStoreAuth} (and every provider it makes). */
export interface TokenStoreAuthOptions {
  /**
   * The end user the servers are called for (a server-side agent acting
   * for many): each principal has its own login in the store, and one
   * principal's tokens never reach another's calls. Default: none, the
   * command line's single user.
   */
  principal?: string;
  /**
   * The authorization server's issuer, when the host pins it: part of the
   * key. Without it, the tokens still carry the issuer that issued them
   * and are never sent to another.
   */
  issuer?: string;
  /**
   * How long another holder's refresh in flight is waited for before this
   * one presumes it dead and sends the refresh token itself, in ms. Longer
   * than a refresh can take (its requests time out after 30 s each);
   * shorter than a worker's calls can wait. Default 120 000.
   */
  refreshTimeoutMs?: number;
  /** Told of each step of a refresh (no token in it): for logs and metrics. */
  onRefresh?: (event: TokenRefreshEvent) => void;
}

/** Options of {@linkcode StoredOAuthProvider}. */
export interface StoredOAuthProviderOptions extends TokenStoreAuthOptions {
  /** Where the authorization server sends the browser back (`login` only). */
  redirectUrl?: string;
  /** `login`: shows the authorization URL. Otherwise a needed login throws. */
  onRedirect?: (authorizationUrl: URL) => void;
}

/** Attempts of a compare-and-set write before giving up (others kept writing). */
const WRITE_ATTEMPTS = 10;

/**
 * An OAuth client provider (the MCP SDK's `OAuthClientProvider` shape) for
 * one configured server, backed by an {@linkcode OAuthTokenStore}: a native
 * public client (PKCE, no secret) with a loopback redirect URI. Without
 * `onRedirect`, a needed login fails with an
 * {@linkcode MCPAuthorizationRequiredError} that says to run `login`.
 *
 * Its login is kept under {@linkcode StoredOAuthProvider.storeKey}. Every
 * write is a compare-and-set on the login it read; outside a refresh it
 * also holds the store's lock of that key. A refresh follows the store's
 * refresh protocol (see {@linkcode OAuthTokenStore}).
 *
 * @example A provider for one user of a fleet
 * ```ts ignore
 * import { MCPToolAdapter } from "@cleveragents/mcp-adapter";
 * import { RedisTokenStore, StoredOAuthProvider } from "@cleveragents/mcp-adapter/auth";
 *
 * declare const store: RedisTokenStore;
 * const config = { name: "notes", transport: "streamable-http" as const, url: "https://mcp.example.com/mcp" };
 * const adapter = new MCPToolAdapter(config, {
 *   authProvider: new StoredOAuthProvider(store, {
 *     config, namespace: "notes", enabled: true, auth: { type: "oauth" },
 *   }, { principal: "user-42" }),
 * });
 * ```
 */
export class StoredOAuthProvider implements ExclusiveRefresh {
  /** The key of this provider's login in the store ({@linkcode tokenKey}). */
  readonly storeKey: string;
  readonly #store: OAuthTokenStore;
  readonly #entry: ServerEntry;
  readonly #options: StoredOAuthProviderOptions;
  /** Sections of this provider that hold the store's lock. */
  #holding = 0;
  /** The refresh this provider runs, while it runs. */
  #claim: Claim | undefined;
  #verifier: string | undefined;
  #state: string | undefined;

  /**
   * A provider for `entry`'s login in `store`.
   *
   * @param store Where the login is kept.
   * @param entry The server (its URL, and `auth.clientId`, `auth.scopes`).
   * @param options The principal, the refresh bound and listener; for `login`, the redirect.
   * @throws {RangeError} When `refreshTimeoutMs` is not a positive number.
   */
  constructor(
    store: OAuthTokenStore,
    entry: ServerEntry,
    options: StoredOAuthProviderOptions = {},
  ) {
    checkOptions(options);
    this.#store = store;
    this.#entry = entry;
    this.#options = options;
    this.storeKey = storeKey(entry, options);
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

  /** The client registration: the configured client ID, else the stored one. */
  async clientInformation(): Promise<Record<string, unknown> | undefined> {
    const client = (await this.#store.get(this.storeKey))?.client;
    const clientId = this.#entry.auth?.clientId;
    if (clientId !== undefined && client?.client_id !== clientId) {
      return { client_id: clientId };
    }
    return client;
  }

  /** Keeps a registration: always during `login`, else only to update a kept one. */
  saveClientInformation(client: Record<string, unknown>): Promise<void> {
    // Outside a login a new registration is not kept: only `login` registers.
    const login = this.#options.onRedirect !== undefined;
    return this.#update((entry) =>
      login || entry.client ? { ...entry, client } : entry
    );
  }

  /** The stored tokens; during a refresh, those of the generation it refreshes. */
  async tokens(): Promise<StoredTokens | undefined> {
    const claim = this.#claim;
    if (claim !== undefined) return claim.tokens;
    return (await this.#store.get(this.storeKey))?.tokens;
  }

  /**
   * Keeps new tokens as the next generation. During a refresh, only if
   * nobody wrote that generation first (then they are dropped: the newer
   * ones are used).
   */
  async saveTokens(tokens: StoredTokens): Promise<void> {
    const claim = this.#claim;
    if (claim === undefined) {
      return await this.#update((entry) => ({
        ...entry,
        tokens,
        generation: (entry.generation ?? 0) + 1,
        refreshing: undefined,
      }));
    }
    const written = await writeRefreshed(
      this.#store,
      this.storeKey,
      claim,
      tokens,
    );
    this.#tell(
      written ? "refreshed" : "superseded",
      claim.generation + (written ? 1 : 0),
    );
  }

  /** Refreshes by the store's refresh protocol (see {@linkcode ExclusiveRefresh.refreshExclusive}). */
  refreshExclusive(
    refresh: (
      current: StoredTokens | undefined,
    ) => Promise<StoredTokens | undefined | void>,
    options: {
      stale?: StoredTokens | undefined;
      signal?: AbortSignal | undefined;
    } = {},
  ): Promise<StoredTokens | undefined> {
    const stale = "stale" in options
      ? Promise.resolve(options.stale)
      : this.tokens();
    return stale.then((seen) =>
      refreshOnce(
        {
          store: this.#store,
          key: this.storeKey,
          timeoutMs: this.#options.refreshTimeoutMs ??
            DEFAULT_REFRESH_TIMEOUT_MS,
          tell: (kind, generation) => this.#tell(kind, generation),
          signal: options.signal,
        },
        seen,
        async (claim) => {
          this.#holding++;
          this.#claim = claim;
          try {
            const current = claim?.tokens ??
              (await this.#store.get(this.storeKey))?.tokens;
            const fresh = await refresh(current);
            if (fresh) await this.saveTokens(fresh);
          } finally {
            this.#claim = undefined;
            this.#holding--;
          }
        },
      )
    );
  }

  /**
   * Sends the user to `authorizationUrl`: `onRedirect` shows it (`login`);
   * without it a needed login fails.
   *
   * @throws {MCPAuthorizationRequiredError} Without `onRedirect`, naming the `login` command.
   */
  redirectToAuthorization(authorizationUrl: URL): void {
    const show = this.#options.onRedirect;
    if (show) return show(authorizationUrl);
    const name = this.#entry.config.name;
    throw new MCPAuthorizationRequiredError(
      `MCP server "${name}" needs a login: run "mcp-adapter login ${name}"`,
      authorizationUrl,
    );
  }

  /** Keeps the PKCE verifier of the login in progress (in memory only). */
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  /**
   * The PKCE verifier of the login in progress.
   *
   * @throws {Error} When no login is in progress.
   */
  codeVerifier(): string {
    if (this.#verifier === undefined) {
      throw new Error("no login is in progress");
    }
    return this.#verifier;
  }

  /**
   * Forgets what the engine found refused. During a refresh, the tokens
   * are cleared only by the owner of the current generation's refresh;
   * when a newer generation is stored, the engine's run ends and the
   * refresh resolves with it.
   */
  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    if (scope === "verifier" || scope === "all") this.#verifier = undefined;
    if (scope === "discovery" || scope === "verifier") return;
    const claim = this.#claim;
    if (claim !== undefined && scope !== "client") {
      if (
        !await clearRefused(this.#store, this.storeKey, claim, scope !== "all")
      ) {
        this.#tell("superseded", claim.generation);
        throw new Superseded();
      }
      this.#tell("cleared", claim.generation + 1);
      return;
    }
    await this.#update((entry) => {
      const kept = { ...entry };
      if (scope !== "tokens") delete kept.client;
      if (scope !== "client" && kept.tokens !== undefined) {
        delete kept.tokens;
        kept.generation = (entry.generation ?? 0) + 1;
      }
      return kept;
    });
  }

  /**
   * Replaces the login with what `change` makes of it (an empty login
   * deletes it): a compare-and-set on the login it read, tried again when
   * another write came first; under the store's lock unless this provider
   * holds it.
   */
  #update(change: (entry: StoredLogin) => StoredLogin): Promise<void> {
    const store = this.#store;
    const key = this.storeKey;
    const write = async () => {
      for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
        const login = await store.get(key);
        const next = change(login ?? {});
        const empty = next.client === undefined && next.tokens === undefined &&
          next.refreshing === undefined && !next.generation;
        if (
          await store.compareAndSet(
            key,
            versionOf(login),
            empty ? undefined : next,
          )
        ) return;
      }
      throw new Error(
        `the token store's login of ${
          describeKey(key)
        } kept changing while it was written; try again`,
      );
    };
    return this.#holding > 0 ? write() : store.withLock(key, write);
  }

  #tell(kind: TokenRefreshKind, generation: number): void {
    const listener = this.#options.onRefresh;
    if (listener === undefined) return;
    const principal = this.#options.principal;
    try {
      listener({
        kind,
        generation,
        server: describeKey(this.storeKey),
        ...(principal === undefined ? {} : { principal }),
      });
    } catch {
      // A broken listener must not break a refresh.
    }
  }
}

/**
 * The key of `entry`'s login in a token store: its URL, its configured
 * client ID, and the principal and issuer of `options` (see
 * {@linkcode tokenKey}).
 */
export function storeKey(
  entry: ServerEntry,
  options: Pick<TokenStoreAuthOptions, "principal" | "issuer"> = {},
): string {
  return tokenKey({
    resource: entry.config.url!,
    ...(entry.auth?.type === "oauth" && entry.auth.clientId !== undefined
      ? { clientId: entry.auth.clientId }
      : {}),
    ...(options.principal === undefined
      ? {}
      : { principal: options.principal }),
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
  });
}

/**
 * The OAuth providers of the servers with `auth: oauth`, backed by a token
 * store: what `mcp-adapter login` saved (or your host stored) is used, and
 * refreshed tokens are saved back. A server that needs a new login fails
 * with an `MCPAuthorizationRequiredError` that names the `login` command.
 * Every provider refreshes by the store's refresh protocol (see
 * {@linkcode OAuthTokenStore}), so processes that share the store (a
 * `RedisTokenStore` for workers on many machines) spend each refresh token
 * once, even when the one refreshing stalls past its lock's lease.
 *
 * @example The command line's logins in your own hub
 * ```ts ignore
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { loadConfig } from "@cleveragents/mcp-adapter/config";
 * import { tokenStoreAuth } from "@cleveragents/mcp-adapter/auth";
 *
 * const { servers } = await loadConfig("mcp.yaml"); // with auth: oauth entries
 * const hub = new MCPToolHub(servers, { authProvider: tokenStoreAuth() });
 * await hub.start();
 * ```
 *
 * @example A fleet serving many users: one hub per user, one Redis store
 * ```ts ignore
 * import { createClient } from "redis";
 * import { MCPToolHub } from "@cleveragents/mcp-adapter";
 * import { RedisTokenStore, tokenStoreAuth } from "@cleveragents/mcp-adapter/auth";
 *
 * declare const servers: import("@cleveragents/mcp-adapter").ServerEntry[];
 * const redis = await createClient({ url: "redis://tokens.internal:6379" }).connect();
 * const store = new RedisTokenStore(redis);
 * const hubFor = (user: string) =>
 *   new MCPToolHub(servers, { authProvider: tokenStoreAuth(store, { principal: user }) });
 * ```
 *
 * @param store The store, or the path of a token file; default the
 * command line's file, {@linkcode tokenStorePath}.
 * @param options The principal, the issuer, the refresh bound and listener.
 * @returns The `authProvider` option of `MCPToolHub`.
 * @throws {RangeError} When `refreshTimeoutMs` is not a positive number.
 */
export function tokenStoreAuth(
  store?: OAuthTokenStore | string,
  options: TokenStoreAuthOptions = {},
): (entry: ServerEntry) => OAuthClientProviderLike | undefined {
  const opened = typeof store === "object"
    ? store
    : new FileTokenStore(store ?? tokenStorePath());
  checkOptions(options); // now, not at the first server
  // Only a user's login is stored; machine grants come from the config.
  return (entry) =>
    entry.auth?.type === "oauth" && entry.config.url
      ? new StoredOAuthProvider(opened, entry, options)
      : undefined;
}

/** @throws {RangeError} When `refreshTimeoutMs` is not a positive number. */
function checkOptions(options: TokenStoreAuthOptions): void {
  const timeoutMs = options.refreshTimeoutMs;
  if (
    timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)
  ) {
    throw new RangeError(
      `refreshTimeoutMs must be a positive number of milliseconds, got ${timeoutMs}`,
    );
  }
}

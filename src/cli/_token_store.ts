/**
 * The command line's OAuth token store: one JSON file per user (mode 0600,
 * in a 0700 folder under the user's config dir), one entry per server URL
 * holding the client registration and the tokens; and the OAuth client
 * provider that reads and writes it. Values are never printed. Internal.
 *
 * @module
 */

import process from "node:process";
import { homedir } from "node:os";
import { join } from "node:path";
import {
  chmod,
  mkdir,
  readFile,
  rename,
  rm,
  writeFile,
} from "node:fs/promises";
import type { ServerEntry } from "../config/load.ts";
import { SerialQueue } from "../_util/serial_queue.ts";
import { isRecord } from "../_util/values.ts";
import { MCPAuthorizationRequiredError } from "../errors.ts";
import type { OAuthClientProviderLike } from "../transports/oauth.ts";

/** What is kept for one server URL. */
export interface StoredLogin {
  /** The client registration (dynamic, or the configured client ID). */
  client?: Record<string, unknown>;
  /** The tokens of the last login or refresh. */
  tokens?: { access_token: string; refresh_token?: string; scope?: string };
}

/**
 * The command line's OAuth token store file:
 * `$XDG_CONFIG_HOME/mcp-adapter/oauth.json`, else
 * `~/.config/mcp-adapter/oauth.json`; `%APPDATA%\mcp-adapter\oauth.json` on
 * Windows. Mode 0600; one entry per server URL.
 *
 * @example
 * ```ts
 * import { tokenStorePath } from "@cleveragents/mcp-adapter/cli";
 *
 * console.log(tokenStorePath({ XDG_CONFIG_HOME: "/home/ada/.config" }));
 * ```
 *
 * @param env The environment to read the folders from; default the process's.
 * @returns The file's path.
 */
export function tokenStorePath(
  env: Record<string, string | undefined> = process.env,
): string {
  const base = process.platform === "win32" && env.APPDATA
    ? env.APPDATA
    : env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "mcp-adapter", "oauth.json");
}

/** The token file: read whole, changed one entry at a time, written atomically. */
export class TokenStore {
  /** The file's path. */
  readonly path: string;
  readonly #queue = new SerialQueue();

  constructor(path: string) {
    this.path = path;
  }

  /** Every entry, by server URL; empty when there is no file yet. */
  async read(): Promise<Record<string, StoredLogin>> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return {};
      throw error;
    }
    try {
      const value = JSON.parse(text);
      return isRecord(value) ? value as Record<string, StoredLogin> : {};
    } catch {
      throw new Error(
        `the token store ${this.path} is not JSON; delete it and log in again`,
      );
    }
  }

  /** The entry of `url`. */
  async get(url: string): Promise<StoredLogin> {
    return (await this.read())[url] ?? {};
  }

  /**
   * Replaces the entry of `url` with what `change` makes of it (undefined
   * deletes it). Changes run one at a time; each rereads the file, so other
   * entries written meanwhile by another process are kept.
   */
  update(
    url: string,
    change: (entry: StoredLogin) => StoredLogin | undefined,
  ): Promise<void> {
    return this.#queue.run(async () => {
      const all = await this.read();
      const changed = change(all[url] ?? {});
      if (changed === undefined) delete all[url];
      else all[url] = changed;
      await this.#write(all);
    });
  }

  async #write(all: Record<string, StoredLogin>): Promise<void> {
    const dir = join(this.path, "..");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const scratch = `${this.path}.${process.pid}.${crypto.randomUUID()}.tmp`;
    try {
      await writeFile(scratch, JSON.stringify(all, null, 2) + "\n", {
        mode: 0o600,
      });
      await chmod(scratch, 0o600); // whatever the umask
      await rename(scratch, this.path);
    } finally {
      await rm(scratch, { force: true });
    }
  }
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
 * one configured server, backed by the {@linkcode TokenStore}: a native
 * public client (PKCE, no secret) with a loopback redirect URI. Without
 * `onRedirect`, a needed login fails with an
 * {@linkcode MCPAuthorizationRequiredError} that says to run `login`.
 */
export class StoredOAuthProvider {
  readonly #store: TokenStore;
  readonly #entry: ServerEntry;
  readonly #url: string;
  readonly #options: StoredOAuthProviderOptions;
  #verifier: string | undefined;
  #state: string | undefined;

  constructor(
    store: TokenStore,
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
    const { client } = await this.#store.get(this.#url);
    const clientId = this.#entry.auth?.clientId;
    if (clientId !== undefined && client?.client_id !== clientId) {
      return { client_id: clientId };
    }
    return client;
  }

  saveClientInformation(client: Record<string, unknown>): Promise<void> {
    // Outside a login a new registration is not kept: only `login` registers.
    const login = this.#options.onRedirect !== undefined;
    return this.#store.update(
      this.#url,
      (entry) => login || entry.client ? { ...entry, client } : entry,
    );
  }

  async tokens(): Promise<StoredLogin["tokens"]> {
    return (await this.#store.get(this.#url)).tokens;
  }

  saveTokens(tokens: NonNullable<StoredLogin["tokens"]>): Promise<void> {
    return this.#store.update(this.#url, (entry) => ({ ...entry, tokens }));
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
    await this.#store.update(this.#url, (entry) => {
      const kept = { ...entry };
      if (scope !== "tokens") delete kept.client;
      if (scope !== "client") delete kept.tokens;
      return kept;
    });
  }
}

/**
 * The OAuth providers of the servers with `auth: oauth`, backed by the
 * command line's token store: what `mcp-adapter login` saved is used, and
 * refreshed tokens are saved back. A server that needs a new login fails
 * with an `MCPAuthorizationRequiredError` that names the `login` command.
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
 * @param path The token file; default {@linkcode tokenStorePath}.
 * @returns The `authProvider` option of `MCPToolHub`.
 */
export function tokenStoreAuth(
  path: string = tokenStorePath(),
): (entry: ServerEntry) => OAuthClientProviderLike | undefined {
  const store = new TokenStore(path);
  return (entry) =>
    entry.auth && entry.config.url
      ? new StoredOAuthProvider(store, entry)
      : undefined;
}

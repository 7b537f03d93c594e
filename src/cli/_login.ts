/**
 * `mcp-adapter login <server>` and `logout <server>`: the OAuth
 * authorization-code login with PKCE for a server with `auth: oauth`. A
 * loopback listener on 127.0.0.1 catches the browser's redirect; the
 * browser is opened with the platform's opener where there is one, and the
 * URL is always printed (for SSH sessions). The checks are the OAuth
 * flow's own (`../auth/_guard.ts`): only an `https:` (or
 * loopback `http:`) authorization URL reaches the user, and the redirect's
 * query goes whole to `finishAuth()`, which refuses a wrong or missing
 * `iss` before the code is used; the browser's page says how it ended.
 * Client registration and tokens go to the token store
 * (`src/auth/token_store.ts`). Internal.
 *
 * @module
 */

import process from "node:process";
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { ServerEntry } from "../config/load.ts";
import { MCPToolAdapter } from "../adapter/adapter.ts";
import { MCPAuthorizationRequiredError, MCPConfigError } from "../errors.ts";
import { errorMessage } from "../util/caught.ts";
import { printable } from "../util/terminal.ts";
import { race } from "../util/time.ts";
import type { Command, Context } from "./_context.ts";
import { CliError, CONNECTION, OK, USAGE } from "./_exit.ts";
import {
  StoredOAuthProvider,
  storeKey,
  TokenStore,
} from "../auth/token_store.ts";
import { openerPlan } from "../util/windows.ts";

/** How long `login` waits for the browser by default: 5 minutes. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;
const CONNECT_TIMEOUT_MS = 30_000;
const CALLBACK_PATH = "/callback";

/** `login <server>`: runs the login and stores what it yields. */
export function loginCommand(
  name: string,
  timeoutMs: number = LOGIN_TIMEOUT_MS,
): Command {
  return async (ctx) => {
    const entry = remoteEntry(ctx, name);
    const url = storeKey(entry);
    const store = new TokenStore(ctx.tokens);
    // A new login: the registration is kept, the old tokens go (a new
    // generation: a refresh still in flight can no longer write).
    const { client } = await store.get(url);
    await store.update(url, ({ tokens: _, refreshing: __, ...kept }) => ({
      ...kept,
      generation: (kept.generation ?? 0) + 1,
    }));
    const registered = portOf(
      (client?.redirect_uris as string[] | undefined)?.[0],
    );
    const callback = await listenForCode(registered);
    try {
      if (callback.port !== registered && !entry.auth?.clientId) {
        // Registered for another redirect URI: register again.
        await store.update(url, ({ client: _, ...kept }) => kept);
      }
      // What the authorization request was sent to, and a refused URL.
      const provider = new StoredOAuthProvider(store, entry, {
        redirectUrl: `http://127.0.0.1:${callback.port}${CALLBACK_PATH}`,
        onRedirect: (authorizationUrl) => {
          // Checked by the flow (https:, or http: on this machine): a
          // serialized URL of those is printable ASCII and cannot start
          // with "-", so it is safe to print and to pass as an argument.
          ctx.stderr.write(
            `Open this URL in a browser to log in to "${name}":\n\n  ${authorizationUrl.href}\n\nWaiting up to ${
              Math.round(timeoutMs / 1000)
            } s for the browser to come back to http://127.0.0.1:${callback.port}${CALLBACK_PATH} (Ctrl-C cancels)…\n`,
          );
          openBrowser(authorizationUrl.href);
        },
      });
      callback.expect(() => provider.expectedState);
      const adapter = new MCPToolAdapter(entry.config, {
        authProvider: provider,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        requestTimeoutMs: CONNECT_TIMEOUT_MS,
      });
      try {
        try {
          await adapter.connect();
        } catch (error) {
          if (!(error instanceof MCPAuthorizationRequiredError)) throw error;
          const redirect = await callback.redirect(timeoutMs, ctx.signal);
          // The whole query: finishAuth() checks its iss before the code goes out.
          await adapter.finishAuth(redirect.params).then(
            () => redirect.answer(true),
            (error) => {
              redirect.answer(false);
              throw error;
            },
          );
          await adapter.connect();
        }
        const tools = await adapter.discoverTools();
        ctx.stdout.write(
          `Logged in to "${name}" (${tools.length} tool${
            tools.length === 1 ? "" : "s"
          }). The tokens are kept in ${store.path}.\n`,
        );
        return OK;
      } catch (error) {
        if (error instanceof CliError) throw error;
        // A missing optional package is no connection failure (exit 2).
        if (error instanceof MCPConfigError) {
          throw new CliError(
            USAGE,
            `the login to "${name}" cannot run: ${
              printable(errorMessage(error))
            }`,
          );
        }
        throw new CliError(
          CONNECTION,
          `the login to "${name}" failed: ${printable(errorMessage(error))}`,
        );
      } finally {
        await adapter.disconnect();
      }
    } finally {
      await callback.close();
    }
  };
}

/** `logout <server>`: deletes the server's registration and tokens. */
export function logoutCommand(name: string): Command {
  return async (ctx) => {
    const entry = remoteEntry(ctx, name);
    const store = new TokenStore(ctx.tokens);
    const url = storeKey(entry);
    const login = await store.get(url);
    const had = login.client !== undefined || login.tokens !== undefined;
    await store.update(url, () => undefined);
    ctx.stdout.write(
      had
        ? `Logged out of "${name}": its tokens and client registration are deleted.\n`
        : `Not logged in to "${name}"; nothing to delete.\n`,
    );
    return OK;
  };
}

/** The configured server `name`, which must be remote and have `auth: oauth`. */
function remoteEntry(ctx: Context, name: string): ServerEntry {
  const entry = ctx.servers.find((server) => server.config.name === name);
  if (entry === undefined) {
    throw new CliError(
      USAGE,
      `no server is named ${JSON.stringify(name)}; servers: ${
        ctx.servers.map((server) => server.config.name).join(", ")
      }`,
    );
  }
  if (entry.config.transport === "stdio") {
    throw new CliError(
      USAGE,
      `server "${name}" runs over stdio; OAuth logins are for remote servers`,
    );
  }
  if (entry.auth === undefined) {
    throw new CliError(
      USAGE,
      `server "${name}" has no "auth: oauth" in the config; add it to log in with OAuth`,
    );
  }
  if (entry.auth.type !== "oauth") {
    throw new CliError(
      USAGE,
      `server "${name}" signs in as a machine (auth type ${entry.auth.type}): its credentials come from the config, and there is no login to run`,
    );
  }
  return entry;
}

function portOf(uri: string | undefined): number {
  try {
    const url = new URL(uri ?? "");
    return url.hostname === "127.0.0.1" && url.port ? Number(url.port) : 0;
  } catch {
    return 0;
  }
}

/** The loopback listener that catches the authorization server's redirect. */
interface Callback {
  port: number;
  /** The `state` a redirect must echo, read when it comes; one without it is not this login's. */
  expect(state: () => string | undefined): void;
  /**
   * The redirect of this login, once the browser comes back; bounded by
   * `timeoutMs` and `signal`.
   */
  redirect(
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Redirect>;
  close(): Promise<void>;
}

/** The redirect that came back: its query, and the browser's page still to answer. */
interface Redirect {
  params: URLSearchParams;
  /** Tells the browser whether the login worked. */
  answer(ok: boolean): void;
}

/** Listens on 127.0.0.1, on `port` when it is free, else on a random port. */
async function listenForCode(port: number): Promise<Callback> {
  let expected: () => string | undefined = () => undefined;
  let settle!: {
    resolve(redirect: Redirect): void;
    reject(error: Error): void;
  };
  const received = new Promise<Redirect>((resolve, reject) =>
    settle = { resolve, reject }
  );
  received.catch(() => {});
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const answer = (status: number, text: string) =>
      res.writeHead(status, {
        "content-type": "text/html; charset=utf-8",
        connection: "close",
      }).end(
        `<!doctype html><title>mcp-adapter</title><p>${text}</p>`,
      );
    if (url.pathname !== CALLBACK_PATH) return answer(404, "Not found.");
    const state = url.searchParams.get("state");
    if (state === null || state !== expected()) {
      return answer(
        400,
        "This is not the login mcp-adapter is waiting for; start it again.",
      );
    }
    const error = url.searchParams.get("error");
    const code = url.searchParams.get("code");
    if (error !== null || code === null) {
      answer(400, "The login failed; see the terminal.");
      const description = url.searchParams.get("error_description");
      settle.reject(
        new CliError(
          CONNECTION,
          `the authorization server refused the login: ${
            printable((error ?? "no code").slice(0, 100))
          }${description ? ` (${printable(description.slice(0, 200))})` : ""}`,
        ),
      );
      return;
    }
    // The page waits for the exchange (its iss is checked first).
    settle.resolve({
      params: url.searchParams,
      answer: (ok) =>
        ok
          ? answer(
            200,
            "Logged in. You can close this tab and return to the terminal.",
          )
          : answer(400, "The login failed; see the terminal."),
    });
  });
  const listening = (at: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(at, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  let bound: number;
  try {
    bound = await listening(port);
  } catch (error) {
    if (port === 0) throw error;
    bound = await listening(0);
  }
  return {
    port: bound,
    expect: (state) => expected = state,
    // An abort rejects with the signal's reason; the command line reports
    // an aborted run as interrupted.
    redirect: (timeoutMs, signal) =>
      race(received, {
        signal,
        timeoutMs,
        onTimeout: () =>
          new CliError(
            CONNECTION,
            `no login came back within ${
              Math.round(timeoutMs / 1000)
            } s; run "mcp-adapter login" again (--timeout MS waits longer)`,
          ),
      }),
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Opens `url` with `$BROWSER`, else the platform's opener (`open`,
 * `xdg-open`, `%SystemRoot%\System32\rundll32.exe url.dll,FileProtocolHandler`
 * on Windows), without waiting; `BROWSER=none` opens nothing, and only an
 * `https:` or loopback `http:` URL is opened (`openerPlan()` in
 * `windows.ts`). A missing opener is fine: the URL is printed anyway. The
 * URL is one argument of a process, never part of a shell's command line
 * (`cmd /c start` would expand the `%…%` of a percent-encoded URL).
 *
 * @returns The opener's process, or `undefined` when nothing was started.
 */
export function openBrowser(
  url: string,
  options: {
    env?: Record<string, string | undefined>;
    platform?: string;
  } = {},
): ChildProcess | undefined {
  const plan = openerPlan(url, {
    platform: options.platform ?? process.platform,
    env: options.env ?? process.env,
  });
  if ("refused" in plan) return undefined;
  try {
    const child = spawn(plan.command, plan.args, {
      stdio: "ignore",
      detached: true,
      windowsHide: true,
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    child.on("error", () => {});
    child.unref();
    return child;
  } catch {
    // No opener: the printed URL is the way.
    return undefined;
  }
}

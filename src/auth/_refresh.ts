/**
 * The refresh protocol of the stored-login provider (`token_store.ts`),
 * as the store contract lays it out (`store.ts`): record the generation
 * being refreshed before its refresh token goes out; never send a token
 * whose refresh is in flight elsewhere, but wait, bounded, for the next
 * generation; write by generation; clear only as the owner of the current
 * generation's refresh. Internal.
 *
 * @module
 */

import { MCPConnectionError } from "../errors.ts";
import { delay } from "../util/time.ts";
import {
  describeKey,
  type LoginVersion,
  type OAuthTokenStore,
  type StoredLogin,
  type StoredTokens,
} from "./store.ts";

/** What one step of a refresh was; see {@linkcode TokenRefreshEvent}. */
export type TokenRefreshKind =
  | "refreshing"
  | "waiting"
  | "taking-over"
  | "refreshed"
  | "superseded"
  | "cleared";

/**
 * One step of a refresh, for logs and metrics (no token in it):
 * `refreshing`, this provider sends the refresh token of `generation`;
 * `waiting`, another holder's refresh of `generation` is in flight, and
 * this one waits for the next generation instead of sending the same
 * token; `taking-over`, that refresh stayed in flight past
 * `refreshTimeoutMs` (its holder is presumed dead) and this one sends it
 * instead; `refreshed`, this provider wrote `generation`; `superseded`,
 * its answer came after another holder's newer generation and was
 * dropped; `cleared`, the server refused the grant of `generation` and
 * this provider, its owner, cleared the tokens: a login is needed.
 */
export interface TokenRefreshEvent {
  /** What happened. */
  kind: TokenRefreshKind;
  /** The generation it happened to (for `refreshed` and `cleared`: the new one). */
  generation: number;
  /** The MCP server, as messages show it (no credentials, no query). */
  server: string;
  /** The principal of the login, if it has one. */
  principal?: string;
}

/** What the provider holds while its refresh of one generation runs. */
export interface Claim {
  /** The generation whose refresh token is being sent. */
  generation: number;
  /** This refresh's owner id. */
  owner: string;
  /**
   * The tokens of that generation: what the provider's `tokens()` answers
   * while the refresh runs, never a newer set a late writer put in the
   * store (its refresh token is not this refresh's to spend).
   */
  tokens: StoredTokens | undefined;
}

/**
 * Thrown to end the OAuth engine's run when the grant was refused but a
 * newer generation is stored: the refresh resolves with the stored tokens.
 */
export class Superseded extends Error {
  constructor() {
    super("a newer generation of the tokens is stored");
  }
}

/** Where a refresh runs: the store, the key, the bound, the listener. */
export interface RefreshContext {
  store: OAuthTokenStore;
  key: string;
  /** How long a refresh in flight elsewhere is waited for. */
  timeoutMs: number;
  /** Reports a step. */
  tell(kind: TokenRefreshKind, generation: number): void;
  /** Ends the wait (every caller gave up). */
  signal?: AbortSignal | undefined;
}

/** Rounds of "take the lock, look, act" before giving up. */
const MAX_ROUNDS = 50;
/** First and longest pause while waiting for another holder's refresh. */
const FIRST_PAUSE_MS = 20;
const LONGEST_PAUSE_MS = 250;

/** What one round under the lock decided. */
type Step =
  | { done: StoredTokens | undefined }
  | { wait: Watch }
  | { again: true };

/** A refresh in flight elsewhere, and when this holder first saw it. */
interface Watch {
  owner: string;
  generation: number;
  /** By this holder's clock: clocks of other machines are not compared. */
  seenAt: number;
}

/**
 * Refreshes the login of `context.key` once across every holder of the
 * store, unless its tokens are no longer `stale`. `run` sends the
 * refresh; it gets the claim (or `undefined` when the login has no
 * refresh token to protect, e.g. a new authorization) and writes through
 * {@linkcode writeRefreshed} and {@linkcode clearRefused}.
 *
 * @returns The tokens stored once it is over.
 * @throws What `run` throws, except {@linkcode Superseded}.
 * @throws {MCPConnectionError} When the store kept changing for {@linkcode MAX_ROUNDS} rounds.
 */
export async function refreshOnce(
  context: RefreshContext,
  stale: StoredTokens | undefined,
  run: (claim: Claim | undefined) => Promise<void>,
): Promise<StoredTokens | undefined> {
  const { store, key } = context;
  const owner = crypto.randomUUID();
  let watch: Watch | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    context.signal?.throwIfAborted();
    const step: Step = await store.withLock(key, async () => {
      const login = await store.get(key) ?? {};
      // Refreshed, logged in or out meanwhile: what is stored is the answer.
      if (!sameTokens(login.tokens, stale)) return { done: login.tokens };
      const generation = login.generation ?? 0;
      const flight = login.refreshing?.generation === generation
        ? login.refreshing
        : undefined;
      if (flight !== undefined && flight.owner !== owner) {
        if (watch?.owner !== flight.owner || watch.generation !== generation) {
          watch = { owner: flight.owner, generation, seenAt: Date.now() };
          context.tell("waiting", generation);
        }
        if (Date.now() - watch.seenAt < context.timeoutMs) {
          return { wait: watch };
        }
        context.tell("taking-over", generation);
      }
      if (!login.tokens?.refresh_token) {
        // No refresh token to spend twice: the lock alone serialises it.
        await run(undefined);
        return { done: (await store.get(key))?.tokens };
      }
      const claimed = await store.compareAndSet(
        key,
        { generation, refreshing: login.refreshing?.owner ?? null },
        {
          ...login,
          refreshing: { generation, owner, since: Date.now() },
        },
      );
      if (!claimed) return { again: true };
      context.tell("refreshing", generation);
      try {
        await run({ generation, owner, tokens: login.tokens });
      } catch (error) {
        if (!(error instanceof Superseded)) throw error;
      } finally {
        await letGo(store, key, owner);
      }
      return { done: (await store.get(key))?.tokens };
    });
    if ("done" in step) return step.done;
    if ("wait" in step) await waitForNext(context, step.wait);
  }
  throw new MCPConnectionError(
    `the token store's login of ${
      describeKey(key)
    } kept changing for ${MAX_ROUNDS} rounds while refreshing it; try again`,
  );
}

/**
 * Writes the tokens a claim's refresh got: generation N + 1, if the store
 * is still at N (whoever holds the lock now).
 *
 * @returns Whether they were written (false: a newer generation is there).
 */
export async function writeRefreshed(
  store: OAuthTokenStore,
  key: string,
  claim: Claim,
  tokens: StoredTokens,
): Promise<boolean> {
  const login = await store.get(key) ?? {};
  const written = await store.compareAndSet(
    key,
    { generation: claim.generation },
    withoutFlight({ ...login, tokens, generation: claim.generation + 1 }),
  );
  if (written) claim.tokens = tokens;
  return written;
}

/**
 * Clears the tokens after the server refused the claim's grant, if the
 * claim's owner still holds the current generation's refresh; keeps the
 * client unless `client` is false.
 *
 * @returns Whether they were cleared (false: a newer generation is there).
 */
export async function clearRefused(
  store: OAuthTokenStore,
  key: string,
  claim: Claim,
  keepClient: boolean,
): Promise<boolean> {
  const login = await store.get(key) ?? {};
  const cleared = await store.compareAndSet(
    key,
    { generation: claim.generation, refreshing: claim.owner },
    withoutFlight({
      ...(keepClient && login.client ? { client: login.client } : {}),
      generation: claim.generation + 1,
    }),
  );
  if (cleared) claim.tokens = undefined;
  return cleared;
}

/** The version a read login is at, for a write based on it. */
export function versionOf(login: StoredLogin | undefined): LoginVersion {
  return {
    generation: login?.generation ?? 0,
    refreshing: login?.refreshing?.owner ?? null,
  };
}

/** `login` without its refresh in flight; `undefined` when nothing is left. */
export function withoutFlight(login: StoredLogin): StoredLogin | undefined {
  const { refreshing: _, ...rest } = login;
  return rest.client === undefined && rest.tokens === undefined &&
      !rest.generation
    ? undefined
    : rest;
}

/** Takes this owner's refresh in flight off the login, if it is still there. */
async function letGo(
  store: OAuthTokenStore,
  key: string,
  owner: string,
): Promise<void> {
  const login = await store.get(key);
  if (login?.refreshing?.owner !== owner) return;
  await store.compareAndSet(key, versionOf(login), withoutFlight(login));
}

/**
 * Rereads the login, pausing between reads, until the refresh in flight
 * it watches ends (a new generation, another owner, or none), or has been
 * in flight for the context's bound.
 */
async function waitForNext(context: RefreshContext, watch: Watch) {
  let pauseMs = FIRST_PAUSE_MS;
  for (;;) {
    const leftMs = watch.seenAt + context.timeoutMs - Date.now();
    if (leftMs <= 0) return;
    await delay(Math.min(leftMs, pauseMs * (0.5 + Math.random())));
    context.signal?.throwIfAborted();
    pauseMs = Math.min(pauseMs * 2, LONGEST_PAUSE_MS);
    const login = await context.store.get(context.key);
    if (
      (login?.generation ?? 0) !== watch.generation ||
      login?.refreshing?.owner !== watch.owner
    ) return;
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

/**
 * The remote transports' HTTP client: the fetch to use, the close signal,
 * the configured and authorization headers, same-origin redirects
 * (`_redirect.ts`, loaded when one comes) and the authorization retry. The
 * configured URL and headers are checked by `_headers.ts`; bodies are read
 * by `_body.ts`. Web standards only. Internal.
 *
 * @module
 */

import { errorMessage } from "../util/caught.ts";
import { checkMaxMessageBytes, messageTooLarge } from "./limits.ts";
import { discardBody, EventReader, readWhole } from "./_body.ts";
import { readCapped } from "../util/read_body.ts";
import { checkHeaders, REDIRECT_STATUSES } from "./_headers.ts";
import type { RemoteTransportOptions } from "./remote.ts";
import { mergeSecrets, redact, secretsOf } from "../util/redact.ts";
import type { MCPAuthorizationCallback } from "./transport.ts";
import { type AuthHooks, oauthHooks } from "../auth/hooks.ts";
import {
  MCPAdapterError,
  MCPConfigError,
  MCPConnectionError,
} from "../errors.ts";

/** Authorizations one request may run before its refusal is returned. */
const MAX_AUTH_ROUNDS = 3;
/**
 * Why a fetch failed, with its cause: Node's fetch says only "fetch failed"
 * and keeps the reason ("connect ECONNREFUSED 127.0.0.1:3001") in `cause`.
 */
export function fetchFailure(error: unknown): string {
  const message = errorMessage(error);
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause === undefined || cause === null) return message;
  const detail = cause instanceof Error
    ? cause.message || (cause as { code?: string }).code
    : String(cause);
  return detail && !message.includes(detail)
    ? `${message} (${detail})`
    : message;
}

/** Whether a response asks for (more) authorization. */
function wantsAuthorization(response: Response): boolean {
  if (response.status === 401) return true;
  return response.status === 403 &&
    (response.headers.get("www-authenticate") ?? "").includes(
      "insufficient_scope",
    );
}

/**
 * One transport's HTTP client: the fetch to use, the close signal, the
 * merged base headers, and the authorization retry.
 */
export class HttpClient {
  /**
   * Aborted by {@linkcode HttpClient.prototype.abort} (the transport's
   * `close()`); the requests without a signal of their own carry it.
   */
  readonly #controller = new AbortController();
  /** The controllers of the requests in flight that have their own. */
  readonly #flights = new Set<AbortController>();
  /** Configured headers plus authorization headers, lower-cased. Replaced, never mutated. */
  base: Record<string, string>;
  /** Called after `base` changed, so the transport rebuilds its derived header objects. */
  onBaseChange: () => void = () => {};
  /** Receives what the authorization flow notes without failing (the transport's `onerror`). */
  onNote?: (note: Error) => void;

  readonly #fetch: typeof fetch;
  /** No `fetch` option: responses come from the runtime's own (see `readWhole`). */
  readonly #ownFetch: boolean;
  readonly #configured: Record<string, string>;
  readonly #auth: AuthHooks;
  readonly #transport: string;
  /** The largest body or SSE event a server may send, in bytes (events: characters). */
  readonly maxMessageBytes: number;
  /** Longest first. Only grows: a token replaced by a refresh stays secret. */
  #secrets: string[] = [];
  #authorizing: Promise<boolean> | undefined;
  /** The last `getHeaders()` answer, to notice a new token. */
  #extra = "{}";

  constructor(
    options: RemoteTransportOptions,
    reserved: readonly string[],
    transport: string,
  ) {
    this.#transport = transport;
    this.#configured = checkHeaders(options.headers, reserved, transport);
    this.base = this.#configured;
    this.#addSecrets(this.#configured);
    const injected = options.fetch;
    if (injected !== undefined && typeof injected !== "function") {
      throw new MCPConfigError(
        "fetch",
        `${transport}: "fetch" must be a function like globalThis.fetch.`,
      );
    }
    // Resolved per call, and never called as a method: some runtimes reject a
    // fetch whose `this` is not the global object.
    this.#ownFetch = injected === undefined;
    const base = injected ??
      ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    const provider = options.authProvider;
    this.#auth = provider
      ? oauthHooks(provider, String(options.url), options.fetch)
      : options;
    this.#fetch = this.#auth.wrapFetch?.(base) ?? base;
    this.maxMessageBytes = checkMaxMessageBytes(
      options.maxMessageBytes,
      transport,
    );
  }

  /**
   * A signal of its own for one request, aborted with everything else by
   * {@linkcode HttpClient.prototype.abort}; hand it back with `land()` once
   * the response body is read or discarded. Frequent requests (POSTs) take
   * one: Node's `fetch` leaves a listener on the signal it is given until
   * the request is garbage collected, so thousands of calls carrying the one
   * long-lived signal would pile up listeners on it (and Node would print
   * MaxListenersExceededWarning).
   */
  flight(): AbortController {
    const flight = new AbortController();
    const closed = this.#controller.signal;
    if (closed.aborted) flight.abort(closed.reason);
    else this.#flights.add(flight);
    return flight;
  }

  /** The request of a {@linkcode HttpClient.prototype.flight} is over. */
  land(flight: AbortController): void {
    this.#flights.delete(flight);
  }

  /** Aborts every request and stream, in flight and to come: the transport closed. */
  abort(reason?: unknown): void {
    this.#controller.abort(reason);
    const aborted = this.#controller.signal.reason;
    for (const flight of this.#flights) flight.abort(aborted);
    this.#flights.clear();
  }

  /**
   * A JSON body as text, at most `maxMessageBytes` decoded bytes: read
   * whole when its size is known (see `readWhole`), else a chunk at a time
   * (see {@linkcode readCapped}), a longer one (by its Content-Length, or as
   * it arrives) cancelled and rejected early.
   *
   * @param what Names the server and request, for the error message.
   * @throws {MCPConnectionError} When the body is too large.
   */
  readText(response: Response, what: () => string): Promise<string> {
    const limit = this.maxMessageBytes;
    return this.readWhole(response) ?? readCapped(response, {
      limit,
      tooLarge: () =>
        messageTooLarge(
          what(),
          limit,
          "the request failed and its answer was discarded",
        ),
    });
  }

  /**
   * Reads an SSE body as events, each at most `maxMessageBytes` characters
   * (past that `read()` rejects; see `isTooLarge` in `_body.ts`); the body
   * is read as decoded, a bounded piece at a time. `onRetry` receives each
   * `retry:` field. (A body of known size may be read whole instead: see
   * {@linkcode HttpClient.prototype.readWhole}.)
   */
  events(
    body: ReadableStream<Uint8Array> | Response,
    onRetry?: (ms: number) => void,
  ): EventReader {
    return new EventReader(body, {
      maxBufferSize: this.maxMessageBytes,
      onRetry,
    });
  }

  /**
   * A body whose size is known to be within `maxMessageBytes`, read whole
   * (see {@linkcode readWhole}); `undefined` when it is not known, or when
   * the responses come from a custom `fetch`.
   */
  readWhole(response: Response): Promise<string> | undefined {
    return this.#ownFetch
      ? readWhole(response, this.maxMessageBytes)
      : undefined;
  }

  /**
   * Header values, and their parts, that must never appear in an error
   * message: the configured headers and every set `getHeaders()` returned.
   */
  get secrets(): readonly string[] {
    return this.#secrets;
  }

  /** `text` with every secret replaced, for error messages built from foreign text. */
  redact(text: string): string {
    return redact(text, this.#secrets);
  }

  #addSecrets(headers: Record<string, string>): void {
    this.#secrets = mergeSecrets(
      this.#secrets,
      secretsOf(Object.entries(headers)),
    );
  }

  /**
   * Loads the authorization headers, if there is a hook for them. Called
   * before every request, so a refreshed or stepped-up token is used at once.
   */
  async loadHeaders(): Promise<void> {
    const { getHeaders, secrets } = this.#auth;
    if (getHeaders === undefined) return;
    let extra: Record<string, string>;
    try {
      extra = checkHeaders(await getHeaders(), [], this.#transport);
    } catch (error) {
      if (error instanceof MCPAdapterError) throw error;
      throw new MCPConnectionError(
        `${this.#transport}: getHeaders() failed: ${
          this.redact(errorMessage(error))
        }`,
        { cause: error },
      );
    }
    const json = JSON.stringify(extra);
    if (json === this.#extra) return;
    this.#extra = json;
    this.#addSecrets(extra);
    if (secrets) this.#secrets = mergeSecrets(this.#secrets, secrets());
    this.base = { ...this.#configured, ...extra };
    this.onBaseChange();
  }

  /**
   * Completes an OAuth authorization-code login through the provider.
   *
   * @throws {MCPConfigError} Without an OAuth `authProvider`.
   */
  finishAuth(code: MCPAuthorizationCallback): Promise<void> {
    const finish = this.#auth.finishAuth;
    return finish ? finish(code) : Promise.reject(
      new MCPConfigError(
        "authProvider",
        `${this.#transport} has no OAuth "authProvider"`,
      ),
    );
  }

  /**
   * Fetches `url`, following redirects only within its origin, with the
   * authorization headers of the moment. On 401 (or 403
   * `insufficient_scope`) runs the authorize hook and retries, at most
   * {@linkcode MAX_AUTH_ROUNDS} times; when another request renewed the
   * token meanwhile, retries with that one first. Fetch failures are thrown
   * as they are.
   *
   * @param headers Called for each attempt, so a retry sees the new headers.
   */
  async request(
    method: "GET" | "POST" | "DELETE",
    url: URL,
    headers: () => Record<string, string>,
    body?: string,
    signal: AbortSignal = this.#controller.signal,
  ): Promise<Response> {
    const auth = this.#auth;
    for (let round = 0;; round++) {
      // Read per request: a refresh or a step-up shows on the next one.
      if (auth.getHeaders !== undefined) await this.loadHeaders();
      const sent = this.base.authorization;
      const init: RequestInit = {
        method,
        headers: headers(),
        body: body ?? null,
        signal,
        redirect: "manual",
      };
      let response = await this.#fetch(url, init);
      if (
        response.type === "opaqueredirect" ||
        REDIRECT_STATUSES.has(response.status)
      ) {
        // Rare: the code that follows a redirect is loaded when one comes.
        const { followWithinOrigin } = await import("./_redirect.ts");
        response = await followWithinOrigin(response, {
          fetch: this.#fetch,
          method,
          url,
          init,
        });
      }
      if (!auth.authorize || !wantsAuthorization(response)) {
        if (sent) auth.passed?.();
        return response;
      }
      if (round === MAX_AUTH_ROUNDS) return response;
      await this.loadHeaders();
      if (
        this.base.authorization === sent &&
        !await this.#authorizeOnce(response, signal)
      ) {
        return response;
      }
      discardBody(response);
    }
  }

  /** Runs the authorize hook; concurrent 401s share one run. */
  #authorizeOnce(response: Response, signal: AbortSignal): Promise<boolean> {
    this.#authorizing ??= (async () => {
      try {
        // The request's signal: a caller that gives up abandons the flow.
        return await this.#auth.authorize!(response, signal, this.onNote) ===
          true;
      } catch (error) {
        if (error instanceof MCPAdapterError) throw error;
        throw new MCPConnectionError(
          `${this.#transport}: authorization failed: ${
            this.redact(errorMessage(error))
          }`,
          { cause: error },
        );
      }
    })().finally(() => this.#authorizing = undefined);
    return this.#authorizing;
  }
}

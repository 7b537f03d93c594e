/**
 * The legacy HTTP+SSE transport of MCP 2024-11-05: one long GET stream
 * carries the server's messages; the first event names the endpoint that
 * the client POSTs its messages to. Web standards only.
 *
 * @module
 */

import {
  MCPAdapterError,
  MCPConfigError,
  MCPConnectionError,
} from "../errors.ts";
import type { RemoteTransportOptions } from "./remote.ts";
import type {
  JSONRPCMessage,
  MCPAuthorizationCallback,
  MCPTransport,
} from "./transport.ts";
import { asError } from "../util/caught.ts";
import { timerMs } from "../util/time.ts";
import { messageTooLarge } from "./limits.ts";
import { fetchFailure, HttpClient } from "./_client.ts";
import { mediaType, serverUrl } from "./_headers.ts";
import {
  discardBody,
  type EventReader,
  type EventSourceMessage,
  isMessageObject,
  isTooLarge,
  notAMessage,
  parseEventData,
  readBodyStart,
} from "./_body.ts";
import { displayUrl, excerpt } from "../util/redact.ts";

/**
 * Options of {@linkcode SSEClientTransport}: the remote transports' shared
 * ones ({@linkcode RemoteTransportOptions}) and its own.
 */
export interface SSEClientTransportOptions extends RemoteTransportOptions {
  /** How long `start()` waits for the `endpoint` event, in milliseconds. Default 10000. */
  endpointTimeoutMs?: number;
}

const DEFAULT_ENDPOINT_TIMEOUT_MS = 10_000;
const RESERVED_HEADERS = [
  "accept",
  "content-type",
  "mcp-protocol-version",
  "last-event-id",
] as const;

/**
 * An {@linkcode MCPTransport} for the legacy HTTP+SSE transport
 * (protocol 2024-11-05).
 *
 * `start()` opens the GET stream and waits for the `endpoint` event; the
 * endpoint must be on the same origin as `url` (a server cannot send our
 * messages and headers elsewhere). Messages are POSTed there; the server's
 * messages arrive as `message` events. When the stream ends, `onclose` is
 * called: this transport does not reconnect (a new stream would be a new
 * session), so connect again.
 *
 * @example
 * ```ts
 * import { SSEClientTransport } from "@cleveragents/mcp-adapter";
 *
 * const transport = new SSEClientTransport({
 *   url: "http://127.0.0.1:3001/sse",
 *   headers: { Authorization: "Bearer <token>" },
 * });
 * transport.onmessage = (message) => console.log(message);
 * transport.onclose = () => console.log("stream ended");
 *
 * async function ping(): Promise<void> {
 *   await transport.start(); // resolves once the endpoint is known
 *   await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" });
 *   await transport.close();
 * }
 * console.log(typeof ping); // call ping() with a server listening
 * ```
 */
export class SSEClientTransport implements MCPTransport {
  /** Receives each `message` event. */
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** Receives non-fatal errors, e.g. an event that is not JSON. */
  onerror?: ((error: Error) => void) | undefined;
  /** Called once when the stream ends, by either side; with the reason when the server ended it. */
  onclose?: ((reason?: Error) => void) | undefined;

  readonly #url: URL;
  readonly #http: HttpClient;
  readonly #endpointTimeoutMs: number;
  #state: "new" | "starting" | "open" | "closed" = "new";
  #endpoint: URL | undefined;
  #protocolVersion: string | undefined;
  #getHeaders: Record<string, string> = {};
  #postHeaders: Record<string, string> = {};
  #reader: EventReader | undefined;

  /**
   * Creates a transport; nothing is sent until `start()`.
   *
   * @param options The server URL, headers and tuning.
   * @throws {MCPConfigError} If `url` is not an absolute http(s) URL, a
   * header is malformed or managed by the transport, or
   * `endpointTimeoutMs` is not a positive number.
   */
  constructor(options: SSEClientTransportOptions) {
    const name = "SSEClientTransport";
    this.#url = serverUrl(options.url, name);
    this.#http = new HttpClient(options, RESERVED_HEADERS, name);
    this.#http.onBaseChange = () => this.#rebuildHeaders();
    this.#http.onNote = (note) => this.#report(note);
    const timeout = options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS;
    if (typeof timeout !== "number" || !(timeout > 0)) {
      throw new MCPConfigError(
        "endpointTimeoutMs",
        `${name}: "endpointTimeoutMs" must be a positive number of milliseconds, got ${
          String(options.endpointTimeoutMs)
        }.`,
      );
    }
    this.#endpointTimeoutMs = timeout;
    this.#rebuildHeaders();
  }

  /** The URL messages are POSTed to, once the server named it. */
  get endpoint(): URL | undefined {
    return this.#endpoint === undefined ? undefined : new URL(this.#endpoint);
  }

  /**
   * Opens the event stream and waits for the `endpoint` event.
   *
   * @returns Resolves once messages can be sent.
   * @throws {MCPConnectionError} If the server cannot be reached, answers
   * with a non-2xx status or no event stream (when the URL answers a
   * streamable-HTTP `initialize` instead, the message says "this URL speaks
   * streamable HTTP"), sends no endpoint within
   * `endpointTimeoutMs`, or names an endpoint on another origin; or if the
   * transport was already started or closed.
   */
  start(): Promise<void> {
    if (this.#state !== "new") {
      return Promise.reject(
        new MCPConnectionError(
          `The SSE transport to ${
            displayUrl(this.#url)
          } was already started or closed; create a new one to connect again.`,
        ),
      );
    }
    this.#state = "starting";
    return this.#start().catch((error) => {
      this.#shutdown();
      throw error;
    });
  }

  async #start(): Promise<void> {
    let timedOut = false;
    let reader: EventReader;
    const timer = setTimeout(() => {
      timedOut = true;
      this.#http.abort();
    }, timerMs(this.#endpointTimeoutMs));
    try {
      const response = await this.#http.request(
        "GET",
        this.#url,
        () => this.#getHeaders,
      );
      const type = mediaType(response.headers.get("content-type"));
      if (!response.ok || type !== "text/event-stream" || !response.body) {
        const text = await readBodyStart(response);
        const status = response.status;
        // What a streamable-HTTP endpoint answers a GET without a session.
        const streamable =
          (status === 400 || status === 404 || status === 405 ||
            status === 406) &&
          await (await import("./_probe.ts")).speaksStreamableHttp(
            this.#http,
            this.#url,
          );
        throw new MCPConnectionError(
          `MCP server at ${
            displayUrl(this.#url)
          } answered the SSE GET with HTTP ${status} and content type ${
            JSON.stringify(response.headers.get("content-type") ?? "(none)")
          }: ${excerpt(text, this.#http.secrets)}. ${
            streamable
              ? "This URL speaks streamable HTTP; set transport: streamable-http."
              : response.ok
              ? 'Check that "url" is an MCP SSE endpoint, or use the streamable-http transport.'
              : 'Check "url" and the credentials in "headers".'
          }`,
        );
      }
      reader = this.#http.events(response.body);
      this.#reader = reader;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          throw new MCPConnectionError(
            `MCP server at ${
              displayUrl(this.#url)
            } closed its event stream before sending the "endpoint" event.`,
          );
        }
        if (value.event === "endpoint") {
          this.#endpoint = this.#checkEndpoint(value.data);
          break;
        }
        this.#event(value);
      }
    } catch (error) {
      if (timedOut) {
        throw new MCPConnectionError(
          `MCP server at ${
            displayUrl(this.#url)
          } sent no "endpoint" event within ${this.#endpointTimeoutMs} ms; check that "url" is an MCP SSE endpoint, or use the streamable-http transport.`,
          { cause: error },
        );
      }
      if (error instanceof MCPAdapterError) throw error;
      throw new MCPConnectionError(
        `Cannot reach MCP server at ${displayUrl(this.#url)}: ${
          this.#http.redact(fetchFailure(error))
        }. Check that the server runs and "url" is right.`,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
    if (this.#closed()) throw this.#closedError();
    this.#state = "open";
    void this.#pump(reader);
  }

  /** Resolves the endpoint against `url`; refuses another origin. */
  #checkEndpoint(data: string): URL {
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.#url);
    } catch {
      throw new MCPConnectionError(
        `MCP server at ${
          displayUrl(this.#url)
        } sent an "endpoint" event that is not a URL: ${
          excerpt(data, this.#http.secrets)
        }.`,
      );
    }
    if (
      endpoint.origin !== this.#url.origin ||
      endpoint.username !== this.#url.username ||
      endpoint.password !== this.#url.password
    ) {
      throw new MCPConnectionError(
        `MCP server at ${displayUrl(this.#url)} named ${
          displayUrl(endpoint)
        } as its message endpoint, which is not on the origin ${
          JSON.stringify(this.#url.origin)
        }; refused, so that messages and headers go only to the configured server.`,
      );
    }
    return endpoint;
  }

  /** Reads events until the stream ends, then closes. */
  async #pump(
    reader: EventReader,
  ): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#event(value);
      }
    } catch (error) {
      if (!this.#closed()) {
        this.#shutdown(
          isTooLarge(error)
            ? messageTooLarge(
              `MCP server at ${displayUrl(this.#url)}`,
              this.#http.maxMessageBytes,
              "the connection was closed",
            )
            : new MCPConnectionError(
              `the event stream broke: ${
                this.#http.redact(fetchFailure(error))
              }`,
              { cause: error },
            ),
        );
        return;
      }
    }
    this.#shutdown(
      new MCPConnectionError("the server closed the event stream"),
    );
  }

  #event(event: EventSourceMessage): void {
    if (event.event !== undefined && event.event !== "message") return;
    if (event.data === "") return;
    const message = parseEventData(event.data, this.#url, this.#http.secrets);
    if (message instanceof Error) {
      this.#report(message);
      return;
    }
    if (!isMessageObject(message)) {
      this.#report(notAMessage(message, this.#url, this.#http.secrets));
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.#report(error);
    }
  }

  /**
   * Completes an OAuth authorization-code login: exchanges `code` (from the
   * redirect after the user approved at the URL of an
   * {@linkcode MCPAuthorizationRequiredError}) for tokens, with the
   * resource metadata and scope the server's challenge named. Works on a
   * closed transport too: connect again with a new one afterwards.
   *
   * @param authorizationCode The `code` parameter of the redirect.
   * @returns Resolves once the tokens are saved in the provider.
   * @throws {MCPConfigError} Without an `authProvider`.
   * @throws {MCPConnectionError} When the exchange fails.
   */
  /** OAuth tokens, codes and secrets this transport has seen, longest first. */
  get secrets(): readonly string[] {
    return this.#http.secrets;
  }

  finishAuth(callback: MCPAuthorizationCallback): Promise<void> {
    return this.#http.finishAuth(callback);
  }

  /**
   * Records the negotiated protocol version; it is sent as
   * `MCP-Protocol-Version` on every later POST.
   *
   * @param version The version from the `initialize` result.
   */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#rebuildHeaders();
  }

  /**
   * POSTs one message to the endpoint. Answers arrive on the event stream.
   *
   * @param message The JSON-RPC message.
   * @returns Resolves once the server accepted the message.
   * @throws {MCPConnectionError} If the transport is not open, the server
   * cannot be reached, or it answers with a non-2xx status.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    const endpoint = this.#endpoint;
    if (this.#state !== "open" || endpoint === undefined) {
      throw this.#state === "closed"
        ? this.#closedError()
        : new MCPConnectionError(
          `The SSE transport to ${
            displayUrl(this.#url)
          } is not started; call start() first.`,
        );
    }
    const body = JSON.stringify(message);
    const flight = this.#http.flight();
    let response: Response;
    let text: string;
    try {
      try {
        response = await this.#http.request(
          "POST",
          endpoint,
          () => this.#postHeaders,
          body,
          flight.signal,
        );
      } catch (error) {
        if (this.#closed()) throw this.#closedError();
        if (error instanceof MCPAdapterError) throw error;
        throw new MCPConnectionError(
          `Cannot reach MCP server at ${displayUrl(endpoint)}: ${
            this.#http.redact(fetchFailure(error))
          }.`,
          { cause: error },
        );
      }
      if (response.ok) {
        discardBody(response);
        return;
      }
      text = await readBodyStart(response);
    } finally {
      this.#http.land(flight);
    }
    const method = "method" in message
      ? JSON.stringify(message.method)
      : "a response";
    throw new MCPConnectionError(
      `MCP server at ${
        displayUrl(endpoint)
      } answered POST ${method} with HTTP ${response.status}${
        response.statusText ? ` ${response.statusText}` : ""
      }: ${excerpt(text, this.#http.secrets)}.`,
    );
  }

  /**
   * Aborts the stream and any POST in flight and calls `onclose` once (if
   * `start()` had succeeded). Safe to call more than once.
   *
   * @returns Resolves at once; nothing is left to wait for.
   */
  close(): Promise<void> {
    this.#shutdown();
    return Promise.resolve();
  }

  /** Releases everything; calls `onclose` (with `reason`, if the server ended it) if the transport was open. */
  #shutdown(reason?: Error): void {
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    this.#http.abort(this.#closedError());
    this.#reader?.cancel().catch(() => {});
    this.#reader = undefined;
    if (!wasOpen) return;
    try {
      this.onclose?.(reason);
    } catch (error) {
      this.#report(error);
    }
  }

  #rebuildHeaders(): void {
    const base = this.#http.base;
    this.#getHeaders = { ...base, accept: "text/event-stream" };
    this.#postHeaders = this.#protocolVersion === undefined
      ? { ...base, "content-type": "application/json" }
      : {
        ...base,
        "content-type": "application/json",
        "mcp-protocol-version": this.#protocolVersion,
      };
  }

  /** A method, not a comparison, so TypeScript does not narrow across awaits. */
  #closed(): boolean {
    return this.#state === "closed";
  }

  #closedError(): MCPConnectionError {
    return new MCPConnectionError(
      `The SSE transport to ${
        displayUrl(this.#url)
      } is closed; create a new one to connect again.`,
    );
  }

  #report(error: unknown): void {
    try {
      this.onerror?.(asError(error));
    } catch {
      // A throwing onerror must not stop the stream reader.
    }
  }
}

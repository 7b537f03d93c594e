/**
 * What the resources and prompts of an adapter share: its connection, its
 * deadlines, its secrets and where its notes go; and the notes themselves,
 * summed up per answer so a server that sends a million bad entries costs
 * one note, not a million. Internal.
 *
 * @module
 */

import { MCPAdapterError } from "../errors.ts";
import type { Connection } from "../protocol/connection.ts";
import type { MCPListKind } from "../protocol/content_types.ts";
import { redact } from "../util/redact.ts";

/** What the adapter hands its resources and prompts. */
export interface ContentContext {
  /** The server's connection. */
  connection: Connection;
  /** The server's name, for messages. */
  server: string;
  /** The default deadline of a request, in ms. */
  requestTimeoutMs: number;
  /** What no message may contain. */
  secrets: () => readonly string[];
  /** Where notes go (the adapter's `onError`). */
  onError: ((error: Error) => void) | undefined;
  /** Tells the adapter's `onListChanged` listeners. */
  listChanged: (kind: MCPListKind) => void;
}

/** The most notes quoted in one summary. */
const QUOTED = 3;

/**
 * Collects what was set aside while reading one answer, and tells
 * `onError` once: how many, and the first few.
 */
export class Notes {
  readonly #context: ContentContext;
  readonly #code: string;
  readonly #messages: string[] = [];
  #count = 0;

  /**
   * @param context Where the summary goes.
   * @param code The `MCPAdapterError` code of the summary.
   */
  constructor(context: ContentContext, code: string) {
    this.#context = context;
    this.#code = code;
  }

  /** Notes one thing set aside. */
  readonly add = (message: string): void => {
    if (this.#count++ < QUOTED) this.#messages.push(message);
  };

  /** Tells `onError` what was noted, if anything, as one error. */
  flush(): void {
    if (this.#count === 0) return;
    const more = this.#count - this.#messages.length;
    const text = `MCP server "${this.#context.server}": ${
      this.#messages.join("; ")
    }${more > 0 ? `; and ${more} more` : ""}`;
    this.#count = 0;
    this.#messages.length = 0;
    this.#context.onError?.(
      new MCPAdapterError(this.#code, redact(text, this.#context.secrets())),
    );
  }
}

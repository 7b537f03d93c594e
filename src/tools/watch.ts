/**
 * What an adapter knows about its server's tools from one listing to the
 * next: each tool's fingerprint, the drift since the previous listing, and,
 * with pins, which tools are held back until the host accepts them.
 * Loaded by the adapter's first tool listing. Internal.
 *
 * @module
 */

import { MCPAdapterError } from "../errors.ts";
import { setOwn } from "../util/values.ts";
import type { MCPToolDescriptor } from "../types.ts";
import {
  canonicalJson,
  type PinnedTools,
  sha256,
  type ToolPin,
  toolSnapshot,
} from "./fingerprint.ts";
import {
  changeOf,
  checkPins,
  diffTools,
  type ToolChange,
  type ToolDrift,
} from "./drift.ts";

/**
 * Thrown by `invoke()` of a tool that is held back: its fingerprint differs
 * from its pin, or (with `holdNewTools`, the default) it has no pin. It is
 * not in the registry, so no model is offered it; review it with
 * `compareTools()` and accept it with `acceptToolChanges()`.
 *
 * @example
 * ```ts ignore
 * import { MCPToolHeldError } from "@cleveragents/mcp-adapter/drift";
 *
 * try {
 *   await adapter.invoke("read_notes", {});
 * } catch (error) {
 *   if (!(error instanceof MCPToolHeldError)) throw error;
 *   console.log(error.toolName, error.reason, error.change?.fields);
 * }
 * ```
 */
export class MCPToolHeldError extends MCPAdapterError {
  /** The tool's name, as the server exposes it. */
  readonly toolName: string;
  /** The server's name (`config.name`). */
  readonly server: string;
  /** `"changed"`: it differs from its pin; `"new"`: it has none. */
  readonly reason: "changed" | "new";
  /** What changed, for a changed tool. */
  readonly change: ToolChange | undefined;

  /**
   * Creates the error.
   *
   * @param server The server's name.
   * @param toolName The tool's name.
   * @param change What changed, or `undefined` for a tool without a pin.
   */
  constructor(server: string, toolName: string, change?: ToolChange) {
    const what = change === undefined
      ? "it is new since the tools were pinned"
      : change.fields.length === 0
      ? "it changed since it was pinned"
      : `its ${change.fields.join(", ")} changed since it was pinned`;
    super(
      "tool_held",
      `Tool ${JSON.stringify(toolName)} of MCP server ${
        JSON.stringify(server)
      } is held back: ${what}. Review the change (compareTools()) and accept it with acceptToolChanges([${
        JSON.stringify(toolName)
      }]) to use the tool`,
    );
    this.name = "MCPToolHeldError";
    this.toolName = toolName;
    this.server = server;
    this.reason = change === undefined ? "new" : "changed";
    this.change = change;
  }
}

/** How the adapter pins: its options, checked. */
export interface PinOptions {
  pins?: PinnedTools | undefined;
  holdNewTools?: boolean | undefined;
}

/** Fingerprints, drift and holding back for one adapter. */
export class ToolWatch {
  readonly #server: string;
  readonly #holdNew: boolean;
  readonly #onDrift: (drift: ToolDrift) => void;
  /** The accepted versions; `undefined` while nothing is pinned. */
  #pins: PinnedTools | undefined;
  /** Every tool of the last listing, held ones too. */
  #seen: PinnedTools | undefined;
  /** Tools of the last listing that are held back, with their descriptors. */
  readonly #held = new Map<
    string,
    { tool: MCPToolDescriptor; change: ToolChange | undefined }
  >();

  constructor(
    server: string,
    options: PinOptions,
    onDrift: (drift: ToolDrift) => void,
  ) {
    this.#server = server;
    this.#pins = options.pins === undefined
      ? undefined
      : checkPins(options.pins, "pins");
    this.#holdNew = options.holdNewTools !== false;
    this.#onDrift = onDrift;
  }

  /**
   * Takes a new listing: fingerprints every tool (set on its descriptor),
   * reports the drift since the previous listing (the pins, for the first
   * one), and removes from `tools` the tools to hold back.
   */
  async update(tools: Map<string, MCPToolDescriptor>): Promise<void> {
    // Without Web Crypto (an http: page) tools go unfingerprinted, unless
    // they are pinned: then listing fails rather than hold nothing back.
    if (globalThis.crypto?.subtle === undefined && this.#pins === undefined) {
      return;
    }
    const seen: PinnedTools = {};
    const listed = [...tools.values()];
    const snapshots = listed.map(toolSnapshot);
    const fingerprints = await Promise.all(
      snapshots.map((snapshot) => sha256(canonicalJson(snapshot))),
    );
    listed.forEach((tool, index) => {
      const fingerprint = fingerprints[index]!;
      tool.fingerprint = fingerprint;
      setOwn(seen, tool.name, { fingerprint, tool: snapshots[index]! });
    });
    const previous = this.#seen ?? this.#pins;
    this.#seen = seen;
    this.#held.clear();
    const pins = this.#pins;
    if (pins !== undefined) {
      for (const [name, tool] of tools) {
        const pin = Object.hasOwn(pins, name) ? pins[name] : undefined;
        const now = seen[name]!;
        if (pin?.fingerprint === now.fingerprint) continue;
        if (pin === undefined && !this.#holdNew) {
          setOwn(pins, name, now);
          continue;
        }
        this.#held.set(name, {
          tool,
          change: pin && changeOf(name, pin, now),
        });
        tools.delete(name);
      }
    }
    if (previous !== undefined) {
      const drift = diffTools(previous, seen);
      if (
        drift.added.length + drift.removed.length + drift.changed.length > 0
      ) this.#onDrift(drift);
    }
  }

  /** The error for a held tool; `undefined` when `name` is not held. */
  heldError(name: string): MCPToolHeldError | undefined {
    const held = this.#held.get(name);
    return held && new MCPToolHeldError(this.#server, name, held.change);
  }

  /** Whether `name` is held back. */
  holds(name: string): boolean {
    return this.#held.has(name);
  }

  /**
   * The last listing against `pins` (default: the adapter's pins).
   *
   * @throws {MCPConfigError} When `pins` is malformed, or absent and nothing is pinned.
   */
  compare(pins: PinnedTools | undefined): ToolDrift {
    const against = pins === undefined ? this.#pins : checkPins(pins, "pins");
    if (against === undefined) {
      throw new MCPAdapterError(
        "not_pinned",
        `MCP server ${
          JSON.stringify(this.#server)
        }: no pins to compare the tools with; pass pins to compareTools(), or pin the tools first (the "pins" option, or acceptToolChanges())`,
      );
    }
    return diffTools(against, this.#seen ?? {});
  }

  /**
   * Pins the versions of the last listing: every tool (`what` absent), the
   * named ones, or exactly what a reviewed drift shows (a tool that changed
   * again since stays held). Pins of tools that are gone are dropped when
   * every tool is accepted, or the tool is named, or the drift lists it as
   * removed. Puts the accepted held tools back into `tools`.
   *
   * @returns A copy of the pins, to keep.
   */
  accept(
    what: readonly string[] | ToolDrift | undefined,
    tools: Map<string, MCPToolDescriptor>,
  ): PinnedTools {
    const seen = this.#seen ?? {};
    const pins = this.#pins ?? {};
    this.#pins = pins;
    const take = (name: string, expected?: string) => {
      if (!Object.hasOwn(seen, name)) {
        delete pins[name];
        return;
      }
      const now = seen[name]!;
      if (expected !== undefined && now.fingerprint !== expected) return;
      setOwn(pins, name, now);
      const held = this.#held.get(name);
      if (held !== undefined) {
        this.#held.delete(name);
        tools.set(name, held.tool);
      }
    };
    if (what === undefined) {
      for (const name of Object.keys(pins)) {
        if (!Object.hasOwn(seen, name)) delete pins[name];
      }
      for (const name of Object.keys(seen)) take(name);
    } else if (isDrift(what)) {
      for (const tool of what.added) take(tool.name, tool.fingerprint);
      for (const change of what.changed) {
        take(change.name, change.after.fingerprint);
      }
      for (const tool of what.removed) {
        if (!Object.hasOwn(seen, tool.name)) delete pins[tool.name];
      }
    } else {
      for (const name of what) take(name);
    }
    return copyPins(pins);
  }
}

function isDrift(value: readonly string[] | ToolDrift): value is ToolDrift {
  return !Array.isArray(value);
}

function copyPins(pins: PinnedTools): PinnedTools {
  const copy: PinnedTools = {};
  for (const name of Object.keys(pins)) {
    setOwn(copy, name, { ...pins[name] } as ToolPin);
  }
  return copy;
}

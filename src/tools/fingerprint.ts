/**
 * A tool's fingerprint: the fields a model is told about (name, title,
 * description, input and output schema, annotations) as canonical JSON,
 * hashed with SHA-256 (Web Crypto). Two listings of a tool have the same
 * fingerprint exactly when those fields are equal as JSON values, whatever
 * the order of their keys.
 *
 * Canonical JSON here is RFC 8785's (JCS) in practice: object keys sorted by
 * UTF-16 code units, no whitespace, strings and numbers as `JSON.stringify`
 * writes them. Strings are not Unicode-normalized: text that looks the same
 * but is encoded differently is a different tool description, and is
 * reported as one.
 *
 * @module
 */

import { MCPAdapterError } from "../errors.ts";
import { isRecord, setOwn } from "../util/values.ts";
import type { MCPToolDescriptor } from "../types.ts";

/** The fields a fingerprint covers, in the order diffs name them. */
export const FINGERPRINT_FIELDS = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
] as const;

/** One of the fields a fingerprint covers. */
export type ToolField = typeof FINGERPRINT_FIELDS[number];

/**
 * What a fingerprint covers of a tool: the fields a model is told about.
 * `execution` (task support) and `_meta` are left out: they change how a
 * call runs, not what the model reads.
 */
export type ToolSnapshot = Pick<
  MCPToolDescriptor,
  | "name"
  | "description"
  | "inputSchema"
  | "title"
  | "outputSchema"
  | "annotations"
>;

/** The longest canonical text computed, in characters: far past any real tool. */
const MAX_CANONICAL_CHARS = 128 * 1024 * 1024;

/**
 * `value` as canonical JSON: object keys sorted by UTF-16 code units, no
 * whitespace, strings and numbers as `JSON.stringify` writes them (`-0` is
 * `0`; a non-finite number is `null`). Like `JSON.stringify`, an object
 * property whose value is `undefined`, a function or a symbol is left out,
 * and an array slot holding one is `null`. Own enumerable keys only, so a
 * key named `__proto__` (as `JSON.parse` makes it) is written like any
 * other. Walked without recursion: any depth is fine.
 *
 * @param value A JSON value (what `JSON.parse` returns).
 * @returns The canonical text.
 * @throws {MCPAdapterError} `code` `"invalid_tool"` when `value` contains
 * itself (a cycle) or its text would pass 128 Mi characters.
 *
 * @example
 * ```ts
 * import { canonicalJson } from "@cleveragents/mcp-adapter/drift";
 *
 * console.log(canonicalJson({ b: [1, "x"], a: { d: null, c: true } }));
 * // {"a":{"c":true,"d":null},"b":[1,"x"]}
 * ```
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  let length = 0;
  const emit = (text: string) => {
    length += text.length;
    if (length > MAX_CANONICAL_CHARS) {
      throw new MCPAdapterError(
        "invalid_tool",
        `The value is too large to fingerprint (its canonical JSON passes ${MAX_CANONICAL_CHARS} characters)`,
      );
    }
    out.push(text);
  };
  /** Containers being written; a value met again among them is a cycle. */
  const open = new Set<object>();
  type Frame = {
    node: object;
    /** The sorted keys of an object; `undefined` for an array. */
    keys: string[] | undefined;
    next: number;
    /** Whether a member was written yet (the next one needs a comma). */
    wrote: boolean;
  };
  const stack: Frame[] = [];
  /** Writes a scalar, or opens a container; `inArray` decides what a skipped value becomes. */
  const visit = (node: unknown, inArray: boolean): void => {
    if (node === null) return emit("null");
    switch (typeof node) {
      case "string":
        return emit(JSON.stringify(node));
      case "number":
        return emit(Number.isFinite(node) ? JSON.stringify(node) : "null");
      case "boolean":
        return emit(node ? "true" : "false");
      case "bigint":
        return emit(node.toString());
      case "object":
        break;
      default:
        // undefined, functions, symbols: left out of objects (see below).
        if (inArray) emit("null");
        return;
    }
    if (open.has(node)) {
      throw new MCPAdapterError(
        "invalid_tool",
        "The value contains itself (a cycle), so it has no JSON form to fingerprint",
      );
    }
    open.add(node);
    if (Array.isArray(node)) {
      emit("[");
      stack.push({ node, keys: undefined, next: 0, wrote: false });
    } else {
      emit("{");
      stack.push({
        node,
        keys: Object.keys(node).sort(),
        next: 0,
        wrote: false,
      });
    }
  };
  visit(value, false);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.keys === undefined) {
      const array = frame.node as unknown[];
      if (frame.next < array.length) {
        if (frame.next > 0) emit(",");
        visit(array[frame.next++], true);
        continue;
      }
      emit("]");
    } else {
      const record = frame.node as Record<string, unknown>;
      let descended = false;
      while (frame.next < frame.keys.length) {
        const key = frame.keys[frame.next++]!;
        const child = record[key];
        if (skipped(child)) continue;
        emit(`${frame.wrote ? "," : ""}${JSON.stringify(key)}:`);
        frame.wrote = true;
        visit(child, false);
        descended = true;
        break;
      }
      if (descended) continue;
      emit("}");
    }
    open.delete(frame.node);
    stack.pop();
  }
  return out.join("");
}

/** What `JSON.stringify` leaves out of an object. */
function skipped(value: unknown): boolean {
  return value === undefined || typeof value === "function" ||
    typeof value === "symbol";
}

/**
 * The fields of `tool` a fingerprint covers, as a new object: absent
 * optional fields are left out, not set to `undefined`.
 *
 * @param tool A tool as listed (`discoverTools()`), or a snapshot.
 * @returns Its snapshot.
 *
 * @example
 * ```ts
 * import { toolSnapshot } from "@cleveragents/mcp-adapter/drift";
 *
 * const snapshot = toolSnapshot({
 *   name: "echo",
 *   description: "Echoes",
 *   inputSchema: { type: "object" },
 *   execution: { taskSupport: "forbidden" },
 * });
 * console.log(Object.keys(snapshot)); // ["name", "description", "inputSchema"]
 * ```
 */
export function toolSnapshot(
  tool: ToolSnapshot | MCPToolDescriptor,
): ToolSnapshot {
  const snapshot: ToolSnapshot = {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
  };
  if (typeof tool.title === "string") snapshot.title = tool.title;
  if (isRecord(tool.outputSchema)) snapshot.outputSchema = tool.outputSchema;
  if (isRecord(tool.annotations)) snapshot.annotations = tool.annotations;
  return snapshot;
}

/**
 * A tool's fingerprint: `"sha256:"` and the lowercase hex SHA-256 of the
 * UTF-8 canonical JSON ({@linkcode canonicalJson}) of its
 * {@linkcode toolSnapshot}. The same for equal fields, whatever their key
 * order; different when any covered field differs.
 *
 * @param tool A tool as listed, or a snapshot.
 * @returns The fingerprint, e.g. `"sha256:9f86d0…"`.
 * @throws {MCPAdapterError} `code` `"invalid_tool"` when the tool has no
 * JSON form (a cycle); `code` `"no_web_crypto"` when the runtime has no
 * `crypto.subtle` (a browser page served over plain HTTP).
 *
 * @example
 * ```ts
 * import { toolFingerprint } from "@cleveragents/mcp-adapter/drift";
 *
 * const a = await toolFingerprint({ name: "echo", description: "", inputSchema: { type: "object", required: [] } });
 * const b = await toolFingerprint({ name: "echo", description: "", inputSchema: { required: [], type: "object" } });
 * console.log(a === b, a.startsWith("sha256:")); // true true
 * ```
 */
export async function toolFingerprint(
  tool: ToolSnapshot | MCPToolDescriptor,
): Promise<string> {
  return await sha256(canonicalJson(toolSnapshot(tool)));
}

/** `"sha256:"` and the hex SHA-256 of `text` as UTF-8. Internal. */
export async function sha256(text: string): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) {
    throw new MCPAdapterError(
      "no_web_crypto",
      "Tools cannot be fingerprinted here: this runtime has no Web Crypto (crypto.subtle), which browsers give only to secure (https) pages; serve the page over https",
    );
  }
  const digest = new Uint8Array(
    await subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  let hex = "sha256:";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** A pinned version of a tool: its fingerprint, and what it covered. */
export interface ToolPin {
  /** The fingerprint ({@linkcode toolFingerprint}) of the accepted version. */
  fingerprint: string;
  /**
   * The accepted version's fields, so a diff can say what changed. A pin
   * without them still holds a changed tool back; its diff then names no
   * fields.
   */
  tool?: ToolSnapshot;
}

/**
 * The accepted versions of one server's tools, by the server's tool name.
 * Plain JSON: keep it in a file or a database, and give it back as the
 * adapter's `pins` option. Read with own-property checks only, so a tool
 * named `__proto__` or `constructor` is an entry like any other.
 */
export type PinnedTools = Record<string, ToolPin>;

/**
 * Pins of `tools`: each tool's fingerprint and snapshot, by name.
 *
 * @param tools Tools as listed (`discoverTools()`), or snapshots.
 * @returns A new {@linkcode PinnedTools}.
 * @throws {MCPAdapterError} As {@linkcode toolFingerprint}.
 *
 * @example
 * ```ts
 * import { pinTools } from "@cleveragents/mcp-adapter/drift";
 *
 * const pins = await pinTools([{ name: "echo", description: "Echoes", inputSchema: { type: "object" } }]);
 * console.log(Object.keys(pins), pins.echo?.fingerprint.startsWith("sha256:")); // ["echo"] true
 * ```
 */
export async function pinTools(
  tools: Iterable<ToolSnapshot | MCPToolDescriptor>,
): Promise<PinnedTools> {
  const pins: PinnedTools = {};
  for (const tool of tools) {
    const snapshot = toolSnapshot(tool);
    setOwn(pins, tool.name, {
      fingerprint: await sha256(canonicalJson(snapshot)),
      tool: snapshot,
    });
  }
  return pins;
}

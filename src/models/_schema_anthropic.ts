/**
 * Anthropic `input_schema`: the tool's schema as it is, minus what the
 * Messages API refuses. Internal.
 *
 * The API reads `input_schema` as JSON Schema draft 2020-12 and requires
 * `type: "object"` at the root (the SDK's `Tool.InputSchema`), and refuses
 * `oneOf`/`allOf`/`anyOf` at the root ("input_schema does not support oneOf,
 * allOf, or anyOf at the top level", anthropics/claude-code #27337). So the
 * root is normalised ({@linkcode objectRoot}), and two draft-04/07 forms
 * that 2020-12 reads differently are rewritten: tuple `items: [...]` (now
 * `prefixItems`) and boolean `exclusiveMinimum`/`exclusiveMaximum`.
 *
 * @module
 */

import {
  isSchema,
  mapChildren,
  objectRoot,
  type Schema,
} from "./_json_schema.ts";
import { setOwn } from "../_util/values.ts";

/** An Anthropic `input_schema` and what was changed to get it. */
export interface AnthropicInputSchema {
  /** The schema, `type: "object"` at the root. */
  schema: Schema & { type: "object" };
  /** For the model: root constraints that could not be expressed. */
  hint?: string;
  /** For people: what was changed. */
  notes: string[];
}

/** Builds a tool's `input_schema`. */
export function anthropicInputSchema(input: Schema): AnthropicInputSchema {
  const root = objectRoot(input);
  const notes = [...root.notes];
  const walk = (node: unknown): unknown => {
    if (!isSchema(node)) return node;
    const out = mapChildren(node, walk);
    // References stay, so the definitions they point at are rewritten too.
    for (const key of ["$defs", "definitions"] as const) {
      const defs = node[key];
      if (!isSchema(defs)) continue;
      const mapped: Schema = {};
      for (const [name, def] of Object.entries(defs)) {
        setOwn(mapped, name, walk(def));
      }
      out[key] = mapped;
    }
    if (Array.isArray(node.items)) {
      out.prefixItems = out.items;
      if ("additionalItems" in node) out.items = out.additionalItems;
      else delete out.items;
      delete out.additionalItems;
      notes.push("rewrote a draft-07 tuple (items: [...]) as prefixItems");
    }
    for (
      const [flag, bound] of [
        ["exclusiveMinimum", "minimum"],
        ["exclusiveMaximum", "maximum"],
      ] as const
    ) {
      if (typeof node[flag] !== "boolean") continue;
      if (node[flag] === true && typeof node[bound] === "number") {
        out[flag] = node[bound];
        delete out[bound];
      } else {
        delete out[flag];
      }
      notes.push(`rewrote a draft-04 boolean ${flag}`);
    }
    return out;
  };
  const schema = walk(root.schema) as Schema & { type: "object" };
  return root.hint === undefined
    ? { schema, notes }
    : { schema, hint: root.hint, notes };
}

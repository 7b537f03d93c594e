/**
 * Runs one tool call a model made: finds the tool by the name the model
 * used, parses and checks the arguments, asks the approval hook, invokes the
 * tool through the registry, and reports every failure as an outcome for
 * the model instead of throwing. Internal.
 *
 * @module
 */

import { errorMessage } from "../util/caught.ts";
import type { MCPToolResult } from "../types.ts";
import type { RegisteredTool, ToolRegistry } from "../tools/registry.ts";
import type { Codec, Entry, Runner } from "./_codec.ts";
import { forModel, registryOf, toolsOf } from "./_entries.ts";
import {
  declined,
  failure,
  type Outcome,
  outcomeOf,
  type Shaping,
  shapings,
} from "./_content.ts";
import { isSchema } from "./_json_schema.ts";
import type { ResultPages } from "./_pages.ts";
import type {
  DispatchOptions,
  ModelToolsOptions,
  ToolSource,
} from "./options.ts";
import { closest } from "../util/closest.ts";
import { toolAlias } from "../tools/alias.ts";
import type { ModelProvider } from "./types.ts";
import type { DispatchResult, ProviderShapes } from "./shapes.ts";

/**
 * The tools a dispatcher may find beyond those it declared (the search
 * hand-off declares few or none), and what it says of a name it cannot find.
 */
export interface MoreTools {
  /** The entry of a tool the model may call by `name`. */
  find(name: string): Entry | undefined;
  /** The message for a name that is no tool. */
  unknown(name: string): string;
}

/** The tools a dispatcher knows, by every name a model may use. */
class ToolIndex {
  readonly #byName = new Map<string, Entry>();
  readonly #registry: ToolRegistry | undefined;
  /** A list source's tools kept from the model (MCP Apps `visibility`), by name and alias. */
  readonly #hidden = new Map<string, RegisteredTool>();
  readonly more: MoreTools | undefined;

  constructor(
    source: ToolSource,
    entries: readonly Entry[],
    more?: MoreTools,
  ) {
    this.more = more;
    this.#registry = registryOf(source);
    for (const entry of entries) {
      this.#byName.set(entry.name, entry);
      this.#byName.set(entry.tool.name, entry);
    }
    if (this.#registry === undefined) {
      for (const tool of toolsOf(source)) {
        if (forModel(tool)) continue;
        this.#hidden.set(tool.name, tool);
        this.#hidden.set(toolAlias(tool.name), tool);
      }
    }
  }

  /** The tool of that name kept from the model, if there is one. */
  hidden(name: string): RegisteredTool | undefined {
    const tool = this.#registry ? this.#registry.resolve(name) : undefined;
    return tool && !forModel(tool) ? tool : this.#hidden.get(name);
  }

  /** The declared names, for messages. */
  get names(): string[] {
    return [...new Set([...this.#byName.values()].map((entry) => entry.name))];
  }

  /**
   * The entry and the tool to run for `name`: through the registry when
   * there is one, so a refreshed server's tool is used.
   */
  find(
    name: string,
  ): { entry: Entry; tool: RegisteredTool | undefined } | undefined {
    const entry = this.#byName.get(name) ?? this.more?.find(name);
    if (!entry) return undefined;
    const tool = this.#registry === undefined || entry.local
      ? entry.tool
      : this.#registry.resolve(entry.tool.name);
    return { entry, tool };
  }
}

/** What a runner is made with: the options, and where cut results are kept. */
export type RunnerOptions = ModelToolsOptions & { pages?: ResultPages };

/**
 * The runner of `entries`: each call runs with `options` as defaults, over
 * which a call's own options go (`invokeOptions` and `resultBudget` merged
 * key by key, the server's budget between the two).
 */
export function runner(
  source: ToolSource,
  entries: readonly Entry[],
  options: RunnerOptions,
  more?: MoreTools,
): Runner {
  const shapingFor = shapings(options);
  const index = new ToolIndex(source, entries, more);
  const defaults: DispatchOptions = {
    ...(options.approve ? { approve: options.approve } : {}),
    ...(options.approveAll ? { approveAll: options.approveAll } : {}),
    ...(options.approvalPolicy
      ? { approvalPolicy: options.approvalPolicy }
      : {}),
    ...(options.invokeOptions ? { invokeOptions: options.invokeOptions } : {}),
  };
  return (call, overrides) => {
    const shaping = shapingFor(overrides?.resultBudget);
    return runCall(index, call, {
      ...defaults,
      ...overrides,
      invokeOptions: { ...defaults.invokeOptions, ...overrides?.invokeOptions },
    }, shaping);
  };
}

/**
 * One tool call of the model's, whole: read in `codec`'s form, run by `run`
 * (unless it could not be read), and its outcome written back as the
 * provider's tool-result message. What every dispatcher's `run()` does.
 */
export async function dispatchCall<P extends ModelProvider>(
  codec: Codec<P>,
  call: ProviderShapes[P]["call"],
  run: Runner,
  overrides?: DispatchOptions,
): Promise<DispatchResult<P>> {
  const { id, name, args, error } = codec.decode(call);
  const outcome = error === undefined
    ? await run({ name, args, raw: call }, overrides)
    : failure(error);
  return {
    message: codec.encode(id, name, outcome),
    text: outcome.text,
    result: outcome.result,
    cut: outcome.cut,
  };
}

/** Runs one call; never throws for tool or call failures. */
async function runCall(
  index: ToolIndex,
  call: { name: string; args: unknown; raw: unknown },
  options: DispatchOptions,
  shaping: (tool: RegisteredTool) => Shaping,
): Promise<Outcome> {
  const found = index.find(call.name);
  if (!found) {
    const hidden = index.hidden(call.name);
    return failure(
      hidden
        ? appOnly(call.name, hidden)
        : index.more?.unknown(call.name) ?? unknownTool(call.name, index.names),
    );
  }
  const { entry, tool } = found;
  if (!tool) {
    return failure(
      `Tool ${
        JSON.stringify(call.name)
      } is no longer available (its server's tool list changed). Use one of: ${
        list(index.names)
      }.`,
    );
  }
  if (!forModel(tool)) return failure(appOnly(entry.name, tool));
  const parsed = parseArguments(entry.name, call.args);
  if ("error" in parsed) return failure(parsed.error);
  const args = entry.restore(parsed.args);
  const { approve } = options;
  if (approve && mustAsk(tool, options)) {
    let approved: boolean;
    let why = "";
    try {
      approved = await approve({
        tool,
        name: entry.name,
        args,
        call: call.raw,
      });
    } catch (error) {
      approved = false;
      why = ` (the approval check failed: ${errorMessage(error)})`;
    }
    if (!approved) {
      return declined(
        `The user declined to run tool ${JSON.stringify(entry.name)}${
          tool.capability.writes
            ? ", which changes data"
            : tool.capability.readOnly
            ? ""
            : ", which is not known to be read-only"
        }${why}. Do not call it again unless the user asks; say what you wanted it to do instead.`,
      );
    }
  }
  let result: MCPToolResult;
  try {
    result = await tool.invoke(args, options.invokeOptions);
  } catch (error) {
    return failure(
      `Tool ${JSON.stringify(entry.name)} could not be called: ${
        errorMessage(error)
      }`,
    );
  }
  try {
    return outcomeOf(result, shaping(tool));
  } catch (error) {
    // The tool ran: the model must not call it again thinking it did not.
    // (A result nested too deeply for JSON.stringify throws here.)
    return {
      ...failure(
        `Tool ${
          JSON.stringify(entry.name)
        } ran, but its result could not be shown: ${
          errorMessage(error)
        }. Do not call it again to retry; the host has the result.`,
      ),
      result,
    };
  }
}

/**
 * Whether the approval policy asks about this tool; a policy function that
 * throws or answers anything but `false` asks.
 */
function mustAsk(tool: RegisteredTool, options: DispatchOptions): boolean {
  const policy = options.approveAll
    ? "all"
    : options.approvalPolicy ?? "not-read-only";
  const { capability } = tool;
  if (typeof policy === "function") {
    try {
      return policy(tool, capability, tool.annotations) !== false;
    } catch {
      return true;
    }
  }
  if (policy === "all") return true;
  if (policy === "writes") return capability.writes;
  return capability.readOnly !== true || capability.writes;
}

/** Why a model may not call an app-only tool. */
function appOnly(name: string, tool: RegisteredTool): string {
  return `Tool ${
    JSON.stringify(name)
  } is not available to the model: its server offers it only to its own app UI (MCP Apps visibility ${
    JSON.stringify(tool.ui?.visibility ?? [])
  }). Call one of the tools you were given instead.`;
}

/** Arguments as an object: JSON text is parsed, absent means `{}`. */
function parseArguments(
  name: string,
  raw: unknown,
): { args: Record<string, unknown> } | { error: string } {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") return { args: {} };
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return {
        error: `The arguments for tool ${
          JSON.stringify(name)
        } are not valid JSON (${errorMessage(error)}): ${
          quotedExcerpt(raw)
        }. Send the arguments as one JSON object, e.g. {"name": "value"}.`,
      };
    }
  }
  if (value === undefined || value === null) return { args: {} };
  if (!isSchema(value)) {
    return {
      error: `The arguments for tool ${
        JSON.stringify(name)
      } must be a JSON object of named arguments, got ${
        Array.isArray(value) ? "an array" : typeof value
      }: ${quotedExcerpt(JSON.stringify(value))}.`,
    };
  }
  return { args: value };
}

function quotedExcerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return JSON.stringify(flat.length > 80 ? `${flat.slice(0, 77)}...` : flat);
}

function unknownTool(name: string, names: readonly string[]): string {
  // A model often drops the namespace: the tool part is compared too.
  const guess = closest(name, names, {
    forms: (candidate) => [candidate.slice(candidate.indexOf("__") + 2)],
  });
  return `Unknown tool ${JSON.stringify(name)}.${
    guess === undefined ? "" : ` Did you mean ${JSON.stringify(guess)}?`
  } Call one of the tools you were given: ${list(names)}.`;
}

function list(names: readonly string[]): string {
  const shown = names.slice(0, 30).join(", ");
  return names.length > 30 ? `${shown}, … (${names.length} in all)` : shown;
}

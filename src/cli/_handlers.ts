/**
 * How the command line answers what a server asks of it: an elicitation
 * is asked on the terminal, field by field, with the schema's defaults
 * offered (declined when there is no terminal); sampling is declined, since
 * the command line has no model. Internal.
 *
 * @module
 */

import type {
  ClientHandlers,
  ElicitationRequest,
  ElicitationResult,
} from "../adapter/adapter.ts";
import type { CliOutput } from "./_output.ts";
import { asText, isRecord } from "../util/values.ts";
import { printable, printableText } from "../util/terminal.ts";

/**
 * Asks one question and resolves with the line typed; `undefined` at end of
 * input. `hidden`: a secret, not echoed.
 */
export type Ask = (
  question: string,
  options?: { hidden?: boolean },
) => Promise<string | undefined>;

/**
 * The handlers of a run: with `ask` (a terminal), elicitations are asked;
 * without, declined. Sampling is always refused with an error that says why.
 */
export function cliHandlers(
  ask: Ask | undefined,
  stderr: CliOutput,
): ClientHandlers {
  return {
    elicitation: (request) =>
      ask === undefined ? { action: "decline" } : elicit(request, ask, stderr),
    sampling: () => {
      throw new Error(
        "the mcp-adapter command line has no model to answer sampling/createMessage; run the tool from an agent that has one",
      );
    },
  };
}

async function elicit(
  request: ElicitationRequest,
  ask: Ask,
  stderr: CliOutput,
): Promise<ElicitationResult> {
  stderr.write(
    `\nThe server asks: ${printableText(asText(request.message))}\n`,
  );
  const schema = isRecord(request.requestedSchema)
    ? request.requestedSchema
    : {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required as string[] : [],
  );
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(properties)) {
    const spec = isRecord(field) ? field : {};
    const type = typeof spec.type === "string" ? spec.type : "string";
    const options = Array.isArray(spec.enum) ? spec.enum.map(asText) : [];
    const fallback = spec.default === undefined
      ? undefined
      : asText(spec.default);
    const label = [
      typeof spec.title === "string" ? spec.title : name,
      typeof spec.description === "string" ? ` — ${spec.description}` : "",
      options.length > 0 ? ` [${options.join("/")}]` : "",
      type === "boolean" ? " [y/n]" : "",
      fallback === undefined ? "" : ` (default ${fallback})`,
      required.has(name) ? "" : " (optional)",
    ].join("");
    for (;;) {
      const answer = await ask(`${label}: `);
      if (answer === undefined) return { action: "cancel" };
      const text = answer.trim() === "" ? fallback ?? "" : answer.trim();
      if (text === "") {
        if (!required.has(name)) break;
        stderr.write(`  ${printable(name)} is required.\n`);
        continue;
      }
      const value = read(text, type, options);
      if (value === undefined) {
        stderr.write(
          `  expected ${printable(expectedInput(type, options))}.\n`,
        );
        continue;
      }
      content[name] = value;
      break;
    }
  }
  const confirm = await ask("Send these answers? [Y/n]: ");
  if (confirm === undefined) return { action: "cancel" };
  return /^\s*n/i.test(confirm)
    ? { action: "decline" }
    : { action: "accept", content };
}

function read(
  text: string,
  type: string,
  options: readonly string[],
): unknown {
  if (options.length > 0 && !options.includes(text)) return undefined;
  switch (type) {
    case "number":
    case "integer": {
      const number = Number(text);
      return Number.isFinite(number) &&
          (type === "number" || Number.isInteger(number))
        ? number
        : undefined;
    }
    case "boolean":
      return /^(y|yes|true)$/i.test(text)
        ? true
        : /^(n|no|false)$/i.test(text)
        ? false
        : undefined;
    default:
      return text;
  }
}

function expectedInput(type: string, options: readonly string[]): string {
  if (options.length > 0) return `one of ${options.join(", ")}`;
  return type === "integer"
    ? "a whole number"
    : type === "number"
    ? "a number"
    : type === "boolean"
    ? "y or n"
    : "some text";
}

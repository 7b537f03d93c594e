/**
 * The commands for what servers offer besides tools: `resources` and
 * `prompts` list every server's, `read` reads a resource (or a template's,
 * its variables given as key=value), `prompt` gets a prompt's messages.
 * Everything a server sent is made printable before it is shown. Internal.
 *
 * @module
 */

import type { MCPOutcome } from "../adapter/types.ts";
import { printable, printableText } from "../util/terminal.ts";
import { errorMessage } from "../util/caught.ts";
import { setOwn } from "../util/values.ts";
import { base64Size } from "../util/bytes.ts";
import { exitCodeOf, reportFailures } from "./_commands.ts";
import type { Command, Context } from "./_context.ts";
import {
  CliError,
  CONNECTION,
  INTERRUPTED,
  OK,
  USAGE,
  UsageError,
} from "./_exit.ts";
import { withHub } from "./_hub.ts";
import { expectOperands, parseMs } from "./_usage.ts";
import { firstLine, writeJson, writeResult, writeTable } from "./_output.ts";
import { type CommandSpec, defineCommand, type OptionSpec } from "./_spec.ts";
import type { MCPToolHub } from "../hub.ts";

/** The options of `read` and `prompt` that are not their own. */
const TIMEOUT_AND_ENVELOPE = [
  {
    name: "timeout",
    kind: "value",
    value: "MS",
    help: "give up after MS milliseconds",
  },
  { name: "json", kind: "flag", help: "print the whole envelope as JSON" },
] as const satisfies readonly OptionSpec[];

/** A command that lists what every enabled server offers: `resources`, `prompts`. */
function listing(
  name: string,
  summary: string,
  about: string,
  json: string,
  command: () => Command,
): CommandSpec {
  return defineCommand({
    name,
    summary: [[name, summary]],
    usage: `${name} [--json] [servers]`,
    about,
    options: [{ name: "json", kind: "flag", help: json }],
    footer:
      "Exits 3 when a server cannot be reached or listed (the others are still listed).",
    prepare(operands) {
      expectOperands(name, operands, 0);
      return command();
    },
  });
}

/** `resources`, `read`, `prompts` and `prompt`, as the command table lists them. */
export const CONTENT_COMMANDS: readonly CommandSpec[] = [
  listing(
    "resources",
    "every resource and resource template of every server",
    `Connects to every enabled server and lists its resources: id
({namespace}/{uri}), server, MIME type and name; then its resource templates:
id ({namespace}/{uriTemplate}), server, variables and name. Read one with
"mcp-adapter read <id>".`,
    `print {"resources": [...], "templates": [...]} instead, each
entry with its id, server and namespace`,
    () => resourcesCommand,
  ),
  defineCommand({
    name: "read",
    summary: [[
      "read <ns/uri> [vars...]",
      "read a resource (or a template's), print it",
    ]],
    usage: `read <ns/uri> [key=value ...] [--max-bytes N] [--timeout MS]
                        [--json] [servers]`,
    about:
      `Reads a resource and prints its contents: text as text, a blob as a one-line
summary (--json prints it, base64).

Arguments:
  <ns/uri>    the resource, as "mcp-adapter resources" lists it ({namespace}/
              {uri}), or a template's id with its variables as key=value
              (read "ns/file:///{path}" path=README.md); the namespace may be
              left out when there is one server
  key=value   a template variable`,
    options: [
      {
        name: "max-bytes",
        kind: "value",
        value: "N",
        help: "the most bytes of text and blobs to accept (default 8 MiB)",
      },
      ...TIMEOUT_AND_ENVELOPE,
    ],
    footer:
      `Exits 1 when the read fails, 2 when there is no such resource or a variable
is wrong, 3 when its server cannot be reached.`,
    prepare(operands, options) {
      const [id, ...pairs] = operands;
      if (id === undefined) {
        throw new UsageError(`"read" needs a resource (ns/uri)`);
      }
      const maxBytes = options["max-bytes"];
      if (maxBytes !== undefined && !/^[1-9][0-9]{0,15}$/.test(maxBytes)) {
        throw new UsageError(
          `--max-bytes must be a positive whole number of bytes; got ${
            JSON.stringify(maxBytes)
          }`,
        );
      }
      return readCommand({
        id,
        pairs,
        maxBytes: maxBytes === undefined ? undefined : Number(maxBytes),
        timeoutMs: parseMs("--timeout", options.timeout),
      });
    },
  }),
  listing(
    "prompts",
    "every prompt of every server, with its arguments",
    `Connects to every enabled server and lists its prompts: id
({namespace}/{name}), server, arguments ([name] when optional) and
description. Get one with "mcp-adapter prompt <id> key=value ...".`,
    "print a JSON array instead, each prompt with its id and server",
    () => promptsCommand,
  ),
  defineCommand({
    name: "prompt",
    summary: [[
      "prompt <ns/name> [args...]",
      "get a prompt with its arguments, print its messages",
    ]],
    usage: `prompt <ns/name> [key=value ...] [--timeout MS] [--json]
                        [servers]`,
    about:
      `Checks the arguments against the prompt's (required ones given, no unknown
one), gets the prompt and prints its messages, each after its role: text as
text, images, audio and resources as a one-line summary.

Arguments:
  <ns/name>   the prompt, as "mcp-adapter prompts" lists it; the namespace
              may be left out when there is one server
  key=value   one argument (a string)`,
    options: [
      ...TIMEOUT_AND_ENVELOPE,
    ],
    footer:
      `Exits 1 when the server fails it, 2 when there is no such prompt or an
argument is missing or unknown, 3 when its server cannot be reached.`,
    prepare(operands, options) {
      const [id, ...pairs] = operands;
      if (id === undefined) {
        throw new UsageError(`"prompt" needs a prompt name (ns/name)`);
      }
      return promptCommand({
        id,
        pairs,
        timeoutMs: parseMs("--timeout", options.timeout),
      });
    },
  }),
];

/** `resources`: every resource and template of every enabled server. */
async function resourcesCommand(ctx: Context): Promise<number> {
  return await withHub(ctx, async (hub, statuses) => {
    const failed = reportFailures(ctx, statuses);
    const [resources, templates] = await Promise.all([
      hub.listResources(),
      hub.listResourceTemplates(),
    ]);
    const listed = reportListFailures(ctx, [
      ...resources.failed,
      ...templates.failed,
    ]);
    if (ctx.json) {
      writeJson(ctx.stdout, {
        resources: resources.items,
        templates: templates.items,
      });
    } else {
      const tables: [string[], string[][]][] = [
        [
          ["RESOURCE", "SERVER", "TYPE", "NAME"],
          resources.items.map((
            r,
          ) => [r.id, r.server, r.mimeType ?? "-", r.title ?? r.name]),
        ],
        [
          ["TEMPLATE", "SERVER", "VARIABLES", "NAME"],
          templates.items.map((
            t,
          ) => [
            t.id,
            t.server,
            t.variables.join(",") || "-",
            t.title ?? t.name,
          ]),
        ],
      ];
      const shown = tables.filter(([, rows]) => rows.length > 0);
      if (shown.length === 0) ctx.stdout.write("No resources.\n");
      shown.forEach(([header, rows], index) => {
        if (index > 0) ctx.stdout.write("\n");
        writeTable(
          ctx.stdout,
          header,
          rows.map((row) => [...row.slice(0, -1), firstLine(row.at(-1)!)]),
        );
      });
    }
    return failed || listed ? CONNECTION : OK;
  });
}

/** `prompts`: every prompt of every enabled server. */
async function promptsCommand(ctx: Context): Promise<number> {
  return await withHub(ctx, async (hub, statuses) => {
    const failed = reportFailures(ctx, statuses);
    const prompts = await hub.listPrompts();
    const listed = reportListFailures(ctx, prompts.failed);
    if (ctx.json) writeJson(ctx.stdout, prompts.items);
    else if (prompts.items.length === 0) ctx.stdout.write("No prompts.\n");
    else {
      writeTable(
        ctx.stdout,
        ["PROMPT", "SERVER", "ARGUMENTS", "DESCRIPTION"],
        prompts.items.map((p) => [
          p.id,
          p.server,
          p.arguments.map((a) => a.required ? a.name : `[${a.name}]`).join(
            " ",
          ) || "-",
          firstLine(p.description ?? p.title ?? ""),
        ]),
      );
    }
    return failed || listed ? CONNECTION : OK;
  });
}

/** A read as the command line describes it. */
interface Read {
  id: string;
  pairs: readonly string[];
  maxBytes: number | undefined;
  timeoutMs: number | undefined;
}

/** `read <ns/uri> [key=value]`: reads a resource or a template's. */
function readCommand(read: Read): Command {
  return (ctx) =>
    withServerOf(ctx, read.id, async (hub, id) => {
      const outcome = await settle(ctx, () =>
        hub.readResource(id, {
          ...(read.pairs.length > 0
            ? { variables: stringPairs(read.pairs, "variable") }
            : {}),
          ...(read.maxBytes === undefined ? {} : { maxBytes: read.maxBytes }),
          ...(read.timeoutMs === undefined
            ? {}
            : { timeoutMs: read.timeoutMs }),
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        }));
      if (ctx.json) writeJson(ctx.stdout, outcome);
      else if (outcome.success) {
        for (const item of outcome.data.contents) {
          if (item.text !== undefined) {
            const text = printableText(item.text);
            ctx.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
          } else {
            ctx.stdout.write(
              `[blob ${printable(item.uri)} ${item.mimeType ?? ""} ${
                base64Size(item.blob ?? "") ?? 0
              } bytes; --json prints it]\n`,
            );
          }
        }
      } else reportFailure(ctx, "read", outcome.error);
      return codeOf(outcome, ctx.signal);
    });
}

/** A prompt as the command line describes it. */
interface PromptRun {
  id: string;
  pairs: readonly string[];
  timeoutMs: number | undefined;
}

/** `prompt <ns/name> [key=value]`: gets a prompt, prints its messages. */
function promptCommand(run: PromptRun): Command {
  return (ctx) =>
    withServerOf(ctx, run.id, async (hub, id) => {
      const outcome = await settle(ctx, () =>
        hub.getPrompt(id, stringPairs(run.pairs, "argument"), {
          ...(run.timeoutMs === undefined ? {} : { timeoutMs: run.timeoutMs }),
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        }));
      if (ctx.json) {
        writeJson(ctx.stdout, outcome);
      } else if (outcome.success) {
        for (const { role, content } of outcome.data.messages) {
          ctx.stdout.write(`${role}:\n`);
          writeResult(ctx.stdout, { content: [content] });
        }
      } else reportFailure(ctx, "prompt", outcome.error);
      return codeOf(outcome, ctx.signal);
    });
}

/**
 * `key=value` pairs as strings, taken as written: prompt arguments and
 * template variables are strings (the server's list checks the names).
 */
function stringPairs(
  pairs: readonly string[],
  what: string,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals <= 0) {
      throw new UsageError(
        `expected ${what} as key=value, got ${JSON.stringify(pair)}`,
      );
    }
    setOwn(values, pair.slice(0, equals), pair.slice(equals + 1));
  }
  return values;
}

/** The outcome of `run`; a lost connection or Ctrl-C is said as the CLI says them. */
async function settle<T>(
  ctx: Context,
  run: () => Promise<MCPOutcome<T>>,
): Promise<MCPOutcome<T>> {
  let outcome: MCPOutcome<T>;
  try {
    outcome = await run();
  } catch (error) {
    if (ctx.signal?.aborted) throw new CliError(INTERRUPTED, "interrupted");
    throw new CliError(CONNECTION, errorMessage(error));
  }
  if (
    !outcome.success && outcome.errorKind === "cancelled" && ctx.signal?.aborted
  ) {
    throw new CliError(INTERRUPTED, "interrupted");
  }
  return outcome;
}

/** As a call's, but a variable or argument refused before the request is a usage error. */
function codeOf(
  outcome: MCPOutcome<unknown>,
  signal: AbortSignal | undefined,
): number {
  return outcome.errorKind === "validation"
    ? USAGE
    : exitCodeOf(outcome, signal);
}

function reportFailure(ctx: Context, command: string, error: string): void {
  ctx.stderr.write(
    `mcp-adapter: the ${command} failed: ${printableText(error)}\n`,
  );
}

function reportListFailures(
  ctx: Context,
  failed: readonly { server: string; error: string }[],
): boolean {
  for (const { server, error } of failed) {
    ctx.stderr.write(
      `mcp-adapter: server "${printable(server)}" could not be listed: ${
        printableText(error)
      }\n`,
    );
  }
  return failed.length > 0;
}

/**
 * Starts only the server an id's namespace names (`ns/…`), or the one
 * server there is when the id names none, and runs `run` with the id in
 * full.
 */
async function withServerOf(
  ctx: Context,
  id: string,
  run: (hub: MCPToolHub, id: string) => Promise<number>,
): Promise<number> {
  const enabled = ctx.servers.filter((entry) => entry.enabled);
  const slash = id.indexOf("/");
  let entry = slash === -1
    ? undefined
    : ctx.servers.find((server) => server.namespace === id.slice(0, slash));
  let full = id;
  if (entry === undefined) {
    if (enabled.length !== 1) {
      throw new UsageError(
        `name the server of ${
          JSON.stringify(id)
        }: write {namespace}/${id}; namespaces: ${
          enabled.map((server) => server.namespace).join(", ") || "none"
        }`,
      );
    }
    entry = enabled[0]!;
    full = `${entry.namespace}/${id}`;
  }
  if (!entry.enabled) {
    throw new UsageError(
      `server "${entry.config.name}" (namespace ${
        JSON.stringify(entry.namespace)
      }) is disabled in the config`,
    );
  }
  return await withHub({ ...ctx, servers: [entry] }, async (hub, statuses) => {
    const [status] = statuses;
    if (status?.state === "failed") {
      throw new CliError(
        CONNECTION,
        `server "${status.name}" failed: ${status.error}`,
      );
    }
    return await run(hub, full);
  });
}

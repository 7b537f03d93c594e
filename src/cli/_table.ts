/**
 * The command table: every option every command takes, and each command
 * with its summary, help, options and handler, declared once. The parser
 * (`_args.ts`), the help texts (`_help.ts`) and the dispatch (`main.ts`)
 * are derived from it. Internal.
 *
 * @module
 */

import { DEFAULT_REQUEST_TIMEOUT_MS } from "../adapter/adapter.ts";
import {
  callCommand,
  checkCommand,
  schemaCommand,
  toolsCommand,
} from "./_commands.ts";
import { UsageError } from "./_exit.ts";
import { CONTENT_COMMANDS } from "./_content.ts";
import { LOGIN_TIMEOUT_MS, loginCommand, logoutCommand } from "./_login.ts";
import { expectOperands, parseMs } from "./_usage.ts";
import { pinCheckCommand } from "./_pins.ts";
import { resumeCommand, tasksCommand } from "./_tasks.ts";
import { searchCommand } from "./_search.ts";
import {
  type CommandSpec,
  defineCommand,
  type GlobalOptionSpec,
  type OptionValues,
} from "./_spec.ts";

/** The program's help, around its lists of commands and options. */
export const PROGRAM = {
  usage: "[options] <command> [arguments] [-- server command...]",
  about:
    `List, call and check the tools of MCP servers: those of a config file, or one
given inline.`,
  footer:
    `Exit codes: 0 ok, 1 the tool reported an error, 2 usage or config error,
3 connection failure, 4 tools differ from their pins (check --pin),
130 interrupted (128 + the signal: 143 for SIGTERM).`,
} as const;

/** The options every command takes, in the order the program's help lists them. */
export const GLOBAL_OPTIONS = [
  {
    name: "config",
    short: "c",
    kind: "value",
    value: "FILE",
    section: "Servers",
    help: "config file; default ./mcp.yaml, ./mcp.json or ./.mcp.json",
  },
  {
    name: "",
    kind: "rest",
    value: "COMMAND [ARGS...]",
    section: "Servers",
    help:
      "one stdio server instead, e.g. -- npx -y @modelcontextprotocol/server-memory",
  },
  {
    name: "env",
    kind: "values",
    value: "NAME=VALUE",
    section: "Servers",
    nested: true,
    help: "an environment variable for it",
  },
  {
    name: "cwd",
    kind: "value",
    value: "DIR",
    section: "Servers",
    nested: true,
    help: "its working directory",
  },
  {
    name: "url",
    kind: "value",
    value: "URL",
    section: "Servers",
    help: "one remote server instead",
  },
  {
    name: "header",
    kind: "values",
    value: "NAME:VALUE",
    section: "Servers",
    nested: true,
    help: "an HTTP header for it",
  },
  {
    name: "transport",
    kind: "value",
    value: "KIND",
    section: "Servers",
    nested: true,
    help: "streamable-http (default) or sse",
  },

  {
    name: "name",
    kind: "value",
    value: "NS",
    section: "Servers",
    help: "the namespace of the inline server (default: its package or host)",
  },
  {
    name: "protocol",
    kind: "value",
    value: "REV",
    section: "Servers",
    help: `its protocol: auto (default), modern, legacy (no probe), or a
revision such as 2025-06-18`,
  },
  {
    name: "connect-timeout",
    kind: "value",
    value: "MS",
    section: "Options",
    help: "how long each server may take to start and answer initialize",
  },
  {
    name: "verbose",
    short: "v",
    kind: "flag",
    section: "Options",
    help: `pass the servers' stderr lines and log messages through
(env values masked)`,
  },
  {
    name: "version",
    kind: "flag",
    section: "Options",
    help: "print the version",
  },
  {
    name: "help",
    short: "h",
    kind: "flag",
    section: "Options",
    help: `help; also after a command ("mcp-adapter call --help")`,
  },
] as const satisfies readonly GlobalOptionSpec[];

/** The global options, as read. */
export type GlobalOptions = OptionValues<typeof GLOBAL_OPTIONS>;

/** The commands, in the order the program's help lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  defineCommand({
    name: "tools",
    summary: [[
      "tools",
      "every tool of every server: name, server, access, description",
    ]],
    usage: "tools [--json] [servers]",
    about:
      `Connects to every enabled server and lists its tools, servers in config order:
name ({namespace}/{tool}), server, access (read-only, writes or -; ", task" for
a tool that runs as a task, ", task optional" for one that may) and
description.`,
    options: [{
      name: "json",
      kind: "flag",
      help: `print a JSON array instead (name, alias, server, namespace,
readOnly, writes, taskSupport, description, inputSchema)`,
    }],
    footer:
      "Exits 3 when a server cannot be reached (the others are still listed).",
    prepare(operands) {
      expectOperands("tools", operands, 0);
      return toolsCommand;
    },
  }),
  defineCommand({
    name: "call",
    summary: [[
      "call <ns/tool> [args...]",
      "validate and call a tool, print its result",
    ]],
    usage: `call <ns/tool> [--args JSON] [key=value ...] [--timeout MS]
                        [--json | --raw] [--output DIR] [--trace] [servers]`,
    about:
      `Validates the arguments against the tool's input schema, calls the tool and
prints each content block once: text as text, images, audio and resources as a
one-line summary. A progress bar is shown on a terminal while the server
reports progress, and for a tool that runs as a task, the task's status. On a
terminal, questions the server asks (elicitation) are asked here; elsewhere
they are declined.

Arguments:
  <ns/tool>      the tool, as "mcp-adapter tools" lists it, or its alias, or
                 just its name when only one server has a tool of that name
  key=value      one argument, read by the type its schema gives it: a string
                 stays as written (content=123 is "123"), a number or boolean
                 is parsed (n=3, force=true), an array or object is JSON
                 (tags='["a","b"]'). a.b=1 sets a nested field.`,
    options: [
      {
        name: "args",
        kind: "value",
        value: "JSON",
        help: `all arguments as a JSON object, taken literally; key=value
pairs are applied over it`,
      },
      {
        name: "timeout",
        kind: "value",
        value: "MS",
        help: `give up after MS milliseconds without an answer or progress
(default: the server's requestTimeoutMs, else ${DEFAULT_REQUEST_TIMEOUT_MS})`,
      },
      {
        name: "json",
        kind: "flag",
        help: "print the whole result envelope as JSON",
      },
      {
        name: "raw",
        kind: "flag",
        help: "print the text of the first text block exactly, nothing else",
      },
      {
        name: "trace",
        kind: "flag",
        help: `print the call's trace (its MCP requests, with timings) to stderr
(for "> file")`,
      },
      {
        name: "output",
        kind: "value",
        value: "DIR",
        help: "save image, audio and binary blocks to files in DIR",
      },
    ],
    footer:
      `Exits 1 when the call fails (validation, the tool's own error, timeout),
2 when the tool does not exist, 3 when its server cannot be reached.`,
    prepare(operands, options) {
      const [name, ...pairs] = operands;
      if (name === undefined) {
        throw new UsageError(`"call" needs a tool name (ns/tool)`);
      }
      if (options.raw && options.json) {
        throw new UsageError(`--raw and --json exclude each other`);
      }
      return callCommand({
        name,
        json: options.args,
        pairs,
        timeoutMs: parseMs("--timeout", options.timeout),
        raw: options.raw ?? false,
        outputDir: options.output,
      });
    },
  }),
  defineCommand({
    name: "check",
    summary: [
      [
        "check",
        "connect to each server: protocol version, tool count, latency",
      ],
      [
        "check --pin FILE",
        "compare the tools with the pins in FILE: what changed",
      ],
    ],
    usage: "check [--json] [--pin FILE [--update]] [servers]",
    about: `Connects to each enabled server and prints its protocol version, the
transport it connected over (a streamable-http server that fell back to the
legacy SSE transport says so), tool count and connect latency (start +
handshake).

With --pin, compares each server's tools with the pins in FILE instead: a
fingerprint of each tool's name, title, description, schemas and
annotations. Prints the tools added, removed and changed since they were
pinned, with the changed fields and a line diff of a changed description.
The first run writes FILE.`,
    options: [
      {
        name: "json",
        kind: "flag",
        help: `print the statuses as a JSON array (with --pin: an object
with the file and each server's status and drift)`,
      },
      {
        name: "pin",
        kind: "value",
        value: "FILE",
        help: `compare the tools with the pins in FILE (JSON), writing it
when it does not exist yet`,
      },
      {
        name: "update",
        kind: "flag",
        help: "with --pin: accept the tools as they are now, and write FILE",
      },
    ],
    helpColumn: 14,
    footer:
      `Exits 3 when any server failed; with --pin, 4 when tools differ from their
pins (and --update is not given).`,
    prepare(operands, options) {
      expectOperands("check", operands, 0);
      if (options.pin !== undefined) {
        return pinCheckCommand(options.pin, options.update === true);
      }
      if (options.update) throw new UsageError("--update needs --pin FILE");
      return checkCommand;
    },
  }),
  defineCommand({
    name: "schema",
    summary: [["schema <ns/tool>", "print a tool's input schema"]],
    usage: "schema <ns/tool> [servers]",
    about: "Prints the tool's input schema (JSON Schema).",
    // Accepted for symmetry with the other commands: the schema is JSON anyway.
    options: [{ name: "json", kind: "flag" }],
    prepare(operands) {
      expectOperands("schema", operands, 1);
      return schemaCommand(operands[0]!);
    },
  }),
  ...CONTENT_COMMANDS,
  defineCommand({
    name: "search",
    summary: [[
      'search "<request>"',
      "the tools that best match a request, with scores",
    ]],
    usage: 'search "<request>" [--k N] [--json] [servers]',
    about:
      `Connects to every enabled server and ranks their tools for the request, in
plain words, as a model's tool search would: the built-in lexical ranker over
each tool's name, title, description, parameters and server. Tools only an
app may call (MCP Apps) are never listed.`,
    options: [
      {
        name: "k",
        kind: "value",
        value: "N",
        help: "how many tools to list, 1 to 100 (default 5)",
      },
      {
        name: "json",
        kind: "flag",
        help: `print a JSON array instead (name, alias, server, namespace,
score, readOnly, writes, description)`,
      },
    ],
    footer:
      "Exits 3 when a server cannot be reached (the others are still searched).",
    prepare(operands, options) {
      if (operands.length !== 1 || operands[0]!.trim() === "") {
        throw new UsageError(
          `"search" takes one request, in quotes: mcp-adapter search "open a pull request"`,
        );
      }
      const k = options.k === undefined ? 5 : Number(options.k);
      if (!Number.isInteger(k) || k < 1 || k > 100) {
        throw new UsageError(
          `--k must be a whole number from 1 to 100, e.g. --k 10; got ${
            JSON.stringify(options.k)
          }`,
        );
      }
      return searchCommand(operands[0]!, k);
    },
  }),
  defineCommand({
    name: "tasks",
    summary: [
      ["tasks", "the open tasks: tool calls still running on their server"],
      ["tasks resume <id>", "wait for an open task to end, print its result"],
    ],
    usage: `tasks [--json] [servers]
       mcp-adapter tasks resume <id> [--timeout MS] [--json | --raw] [servers]`,
    about:
      `Lists the tool calls that became tasks on their server and have not ended:
a "call" whose run was killed, or cut off from its server, leaves its task
running there and its handle in the task store (tasks.json beside the token
store). "tasks resume <id>" connects to the task's server, waits for the task
to end and prints its result as "call" would. A task of a stdio server ends
with the run that started it, and is not kept.`,
    options: [
      {
        name: "json",
        kind: "flag",
        help: "print the tasks (or the result envelope) as JSON",
      },
      {
        name: "raw",
        kind: "flag",
        help: "resume: print the text of the first text block exactly",
      },
      {
        name: "timeout",
        kind: "value",
        value: "MS",
        help: `resume: give up after MS milliseconds without a change of the
task (default: the server's requestTimeoutMs, else ${DEFAULT_REQUEST_TIMEOUT_MS})`,
      },
    ],
    footer:
      `Exits 1 when the resumed task failed (or another run is waiting for it),
2 when there is no such open task, 3 when its server cannot be reached.`,
    prepare(operands, options) {
      if (operands[0] !== "resume") {
        expectOperands("tasks", operands, 0);
        if (options.raw || options.timeout !== undefined) {
          throw new UsageError(`--raw and --timeout go with "tasks resume"`);
        }
        return tasksCommand;
      }
      if (operands.length !== 2) {
        throw new UsageError(`"tasks resume" takes one task id`);
      }
      if (options.raw && options.json) {
        throw new UsageError(`--raw and --json exclude each other`);
      }
      return resumeCommand({
        id: operands[1]!,
        timeoutMs: parseMs("--timeout", options.timeout),
        raw: options.raw ?? false,
      });
    },
  }),
  defineCommand({
    name: "login",
    summary: [[
      "login <server>",
      `log in to a server with "auth: oauth" (browser)`,
    ]],
    usage: "login <server> [--timeout MS] [--config FILE]",
    about:
      `Logs in to a remote server that has "auth: oauth" in the config: the OAuth
authorization-code flow with PKCE. Opens the authorization page in a
browser (and prints its URL, for SSH sessions; BROWSER=none prints only),
catches the redirect on http://127.0.0.1:<port>/callback, and keeps the
client registration and tokens in the token store (mode 0600; its path is
printed, the tokens never are). "tools", "call" and "check" then use and
refresh them.`,
    options: [{
      name: "timeout",
      kind: "value",
      value: "MS",
      help: `how long to wait for the browser (default ${LOGIN_TIMEOUT_MS})`,
    }],
    prepare(operands, options) {
      return loginCommand(
        serverName("login", operands),
        parseMs("--timeout", options.timeout),
      );
    },
  }),
  defineCommand({
    name: "logout",
    summary: [["logout <server>", "delete that server's stored tokens"]],
    usage: "logout <server> [--config FILE]",
    about:
      "Deletes the server's tokens and client registration from the token store.",
    options: [],
    prepare(operands) {
      return logoutCommand(serverName("logout", operands));
    },
  }),
];

/** The one server name `login` and `logout` take. */
function serverName(command: string, operands: readonly string[]): string {
  if (operands.length !== 1) {
    throw new UsageError(`"${command}" takes one server name`);
  }
  return operands[0]!;
}

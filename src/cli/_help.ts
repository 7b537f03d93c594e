/**
 * The command line's help texts and which options each command takes.
 * Internal.
 *
 * @module
 */

import { DEFAULT_REQUEST_TIMEOUT_MS } from "../adapter.ts";
import { LOGIN_TIMEOUT_MS } from "./_login.ts";

/** Help by command; `""` is the program's own. */
export const HELP: Record<string, string> = {
  "": `Usage: mcp-adapter [options] <command> [arguments] [-- server command...]

List, call and check the tools of MCP servers: those of a config file, or one
given inline.

Commands:
  tools                      every tool of every server: name, server, access, description
  call <ns/tool> [args...]   validate and call a tool, print its result
  check                      connect to each server: protocol version, tool count, latency
  check --pin FILE           compare the tools with the pins in FILE: what changed
  schema <ns/tool>           print a tool's input schema
  login <server>             log in to a server with "auth: oauth" (browser)
  logout <server>            delete that server's stored tokens

Servers:
  -c, --config FILE          config file; default ./mcp.yaml, ./mcp.json or ./.mcp.json
  -- COMMAND [ARGS...]       one stdio server instead, e.g. -- npx -y @modelcontextprotocol/server-memory
      --env NAME=VALUE       (repeatable) an environment variable for it
      --cwd DIR              its working directory
  --url URL                  one remote server instead
      --header NAME:VALUE    (repeatable) an HTTP header for it
      --transport KIND       streamable-http (default) or sse
  --name NS                  the namespace of the inline server (default: its package or host)

Options:
  --connect-timeout MS       how long each server may take to start and answer initialize
  -v, --verbose              pass the servers' stderr lines and log messages through
                             (env values masked)
  --version                  print the version
  -h, --help                 help; also after a command ("mcp-adapter call --help")

Exit codes: 0 ok, 1 the tool reported an error, 2 usage or config error,
3 connection failure, 4 tools differ from their pins (check --pin),
130 interrupted (128 + the signal: 143 for SIGTERM).
`,
  tools: `Usage: mcp-adapter tools [--json] [servers]

Connects to every enabled server and lists its tools, servers in config order:
name ({namespace}/{tool}), server, access (read-only, writes or -; ", task" for
a tool that runs as a task, ", task optional" for one that may) and
description.

Options:
  --json   print a JSON array instead (name, alias, server, namespace,
           readOnly, writes, taskSupport, description, inputSchema)

Exits 3 when a server cannot be reached (the others are still listed).
`,
  call:
    `Usage: mcp-adapter call <ns/tool> [--args JSON] [key=value ...] [--timeout MS]
                        [--json | --raw] [--output DIR] [--trace] [servers]

Validates the arguments against the tool's input schema, calls the tool and
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
                 (tags='["a","b"]'). a.b=1 sets a nested field.

Options:
  --args JSON    all arguments as a JSON object, taken literally; key=value
                 pairs are applied over it
  --timeout MS   give up after MS milliseconds without an answer or progress
                 (default: the server's requestTimeoutMs, else ${DEFAULT_REQUEST_TIMEOUT_MS})
  --json         print the whole result envelope as JSON
  --raw          print the text of the first text block exactly, nothing else
  --trace        print the call's trace (its MCP requests, with timings) to stderr
                 (for "> file")
  --output DIR   save image, audio and binary blocks to files in DIR

Exits 1 when the call fails (validation, the tool's own error, timeout),
2 when the tool does not exist, 3 when its server cannot be reached.
`,
  check: `Usage: mcp-adapter check [--json] [--pin FILE [--update]] [servers]

Connects to each enabled server and prints its protocol version, the
transport it connected over (a streamable-http server that fell back to the
legacy SSE transport says so), tool count and connect latency (start +
handshake).

With --pin, compares each server's tools with the pins in FILE instead: a
fingerprint of each tool's name, title, description, schemas and
annotations. Prints the tools added, removed and changed since they were
pinned, with the changed fields and a line diff of a changed description.
The first run writes FILE.

Options:
  --json        print the statuses as a JSON array (with --pin: an object
                with the file and each server's status and drift)
  --pin FILE    compare the tools with the pins in FILE (JSON), writing it
                when it does not exist yet
  --update      with --pin: accept the tools as they are now, and write FILE

Exits 3 when any server failed; with --pin, 4 when tools differ from their
pins (and --update is not given).
`,
  schema: `Usage: mcp-adapter schema <ns/tool> [servers]

Prints the tool's input schema (JSON Schema).
`,
};

HELP.login = `Usage: mcp-adapter login <server> [--timeout MS] [--config FILE]

Logs in to a remote server that has "auth: oauth" in the config: the OAuth
authorization-code flow with PKCE. Opens the authorization page in a
browser (and prints its URL, for SSH sessions; BROWSER=none prints only),
catches the redirect on http://127.0.0.1:<port>/callback, and keeps the
client registration and tokens in the token store (mode 0600; its path is
printed, the tokens never are). "tools", "call" and "check" then use and
refresh them.

Options:
  --timeout MS   how long to wait for the browser (default ${LOGIN_TIMEOUT_MS})
`;
HELP.logout = `Usage: mcp-adapter logout <server> [--config FILE]

Deletes the server's tokens and client registration from the token store.
`;

/** Options each command accepts, besides the global ones (`_args.ts`). */
export const COMMAND_OPTIONS: Record<string, readonly string[]> = {
  tools: ["json"],
  call: ["args", "timeout", "json", "raw", "output", "trace"],
  check: ["json", "pin", "update"],
  schema: ["json"],
  login: ["timeout"],
  logout: [],
};

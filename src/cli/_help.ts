/**
 * The command line's help texts and which options each command takes.
 * Internal.
 *
 * @module
 */

/** Help by command; `""` is the program's own. */
export const HELP: Record<string, string> = {
  "": `Usage: mcp-adapter [--config FILE] <command> [options]

List, call and check the tools of the MCP servers in a config file.

Commands:
  tools                      every tool of every server: name, server, access, description
  call <ns/tool> [args...]   validate and call a tool, print its result
  check                      connect to each server: protocol version, tool count, latency
  schema <ns/tool>           print a tool's input schema
  login <server>             log in to a server with "auth: oauth" (browser)
  logout <server>            delete that server's stored tokens

Options:
  -c, --config FILE   config file; default ./mcp.yaml, ./mcp.json or ./.mcp.json
  -h, --help          help; also after a command ("mcp-adapter call --help")

Exit codes: 0 ok, 1 the tool reported an error, 2 usage or config error,
3 connection failure.
`,
  tools: `Usage: mcp-adapter tools [--json] [--config FILE]

Connects to every enabled server and lists its tools: name ({namespace}/{tool}),
server, access (read-only, writes or -) and description.

Options:
  --json   print a JSON array instead (name, alias, server, namespace,
           readOnly, writes, description, inputSchema)

Exits 3 when a server cannot be reached (the others are still listed).
`,
  call:
    `Usage: mcp-adapter call <ns/tool> [--args JSON | key=value ...] [--timeout MS] [--json]

Validates the arguments against the tool's input schema, calls the tool and
prints its text content, then its structured content as JSON. A progress bar
is shown on a terminal while the server reports progress.

Arguments:
  <ns/tool>      the tool, as "mcp-adapter tools" lists it (or its alias)
  key=value      one argument; the value is parsed as JSON when it parses
                 (n=3, tags='["a"]', flag=true), else taken as a string
                 (query=milk). Quote to force a string: id='"42"'

Options:
  --args JSON    all arguments as a JSON object; key=value pairs override
  --timeout MS   give up after MS milliseconds without an answer or progress
  --json         print the whole result envelope as JSON

Exits 1 when the call fails (validation, the tool's own error, timeout),
2 when the tool does not exist, 3 when its server cannot be reached.
`,
  check: `Usage: mcp-adapter check [--json] [--config FILE]

Connects to each enabled server and prints its protocol version, tool count
and connect latency (start + handshake).

Options:
  --json   print the statuses as a JSON array

Exits 3 when any server failed.
`,
  schema: `Usage: mcp-adapter schema <ns/tool> [--config FILE]

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
  --timeout MS   how long to wait for the browser (default 300000)
`;
HELP.logout = `Usage: mcp-adapter logout <server> [--config FILE]

Deletes the server's tokens and client registration from the token store.
`;

/** Options each command accepts, besides --config and --help. */
export const COMMAND_OPTIONS: Record<string, readonly string[]> = {
  tools: ["json"],
  call: ["args", "timeout", "json"],
  check: ["json"],
  schema: ["json"],
  login: ["timeout"],
  logout: [],
};

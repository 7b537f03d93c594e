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

Options:
  -c, --config FILE   config file; default ./mcp.yaml, ./mcp.json or ./.mcp.json
  -v, --verbose       print the servers' log messages to stderr
  -h, --help          help; also after a command ("mcp-adapter call --help")

Exit codes: 0 ok, 1 the tool reported an error, 2 usage or config error,
3 connection failure.
`,
  tools: `Usage: mcp-adapter tools [--json] [--config FILE]

Connects to every enabled server and lists its tools: name ({namespace}/{tool}),
server, access (read-only, writes or -; ", task" for a tool that runs as a
task, ", task optional" for one that may) and description.

Options:
  --json   print a JSON array instead (name, alias, server, namespace,
           readOnly, writes, taskSupport, description, inputSchema)

Exits 3 when a server cannot be reached (the others are still listed).
`,
  call:
    `Usage: mcp-adapter call <ns/tool> [--args JSON | key=value ...] [--timeout MS] [--json]

Validates the arguments against the tool's input schema, calls the tool and
prints its text content, then its structured content as JSON. A progress bar
is shown on a terminal while the server reports progress, and for a tool that
runs as a task, the task's status.

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

Connects to each enabled server and prints its protocol version, the
transport it connected over (a streamable-http server that fell back to the
legacy SSE transport says so), tool count and connect latency (start +
handshake).

Options:
  --json   print the statuses as a JSON array

Exits 3 when any server failed.
`,
  schema: `Usage: mcp-adapter schema <ns/tool> [--config FILE]

Prints the tool's input schema (JSON Schema).
`,
};

/** Options each command accepts, besides --config and --help. */
export const COMMAND_OPTIONS: Record<string, readonly string[]> = {
  tools: ["json"],
  call: ["args", "timeout", "json"],
  check: ["json"],
  schema: ["json"],
};

/**
 * The config file format as JSON Schema: the one description of the format
 * that the loader validates against and `schema/mcp-config.schema.json`
 * (written by `deno task schema`) ships for editors.
 *
 * Besides the standard keywords, nodes carry `errorMessage` and
 * `patternErrorMessage`, which VS Code and the YAML language server show in
 * place of their own messages and which the loader uses the same way.
 *
 * @module
 */

import type { JsonSchema } from "../types.ts";
import {
  COMMON_FIELDS,
  CONTROL,
  INHERITED_NAME,
  PROTOCOL_CHOICES,
  REMOTE_FIELDS,
  STDIO_FIELDS,
} from "../server_config.ts";
import { BAD_HEADER_VALUE, HEADER_NAME } from "../util/http_checks.ts";

/*
 * The server-config fields below describe what `serverConfigProblems()`
 * checks, from its own constants (the fields of each transport, the
 * characters it refuses), for editors; a `${VAR}` reference passes, as its
 * value is checked after replacement. `tests/config/schema_pin_test.ts`
 * holds the two to the same verdict on every entry without references.
 */

/**
 * A pattern for text with no character of `characters` (a one-class
 * regular expression) and, with `nonBlank`, not only white space.
 */
function without(characters: RegExp, nonBlank = false): string {
  return `^${nonBlank ? "(?=[\\s\\S]*\\S)" : ""}[^${
    characters.source.slice(1, -1)
  }]*$`;
}

/** A path or an argument: no control character (a JSON "\t" in "C:\tools"). */
const NO_CONTROL = without(CONTROL);
const NO_CONTROL_MESSAGE =
  "contains a control character: a backslash in a quoted string starts an escape; write \\\\ or / for each backslash of a path";

const NAME_PATTERN = "^(?=[\\s\\S]*\\S)[^/]+$";
const NAME_MESSAGE =
  'expected a name without "/" (it becomes the tool namespace); write e.g. "github"';

/**
 * The `server.allOf` rule that refuses, as `serverConfigProblems()` does,
 * the fields `transport` does not use.
 */
function unused(
  transport: string,
  fields: readonly string[],
  instead: string,
): JsonSchema {
  return {
    if: {
      required: ["transport"],
      properties: { transport: { const: transport } },
    },
    then: {
      properties: Object.fromEntries(fields.map((field) => [field, {
        not: {},
        errorMessage:
          `is not used by the "${transport}" transport; remove it, or set transport to ${instead}`,
      }])),
    },
  };
}
const VARIABLES =
  "${VAR}, ${env:VAR} and ${VAR:-default} are replaced from the environment, ${workspaceFolder} by the project folder, ${userHome} by the home folder, ${input:ID} by the value of an input; $${ is a literal ${.";

/** `{ read_only?, writes? }`: shared by config files and skill files. */
const OVERRIDE: JsonSchema = {
  type: "object",
  description:
    "Capability override: what the tool may do to the world. read_only: true also sets writes: false; writes: true also sets read_only: false.",
  additionalProperties: false,
  properties: {
    read_only: {
      type: "boolean",
      description: "The tool only reads.",
      examples: [true],
    },
    writes: {
      type: "boolean",
      description: "The tool changes state.",
      examples: [true],
    },
  },
  allOf: [{
    not: {
      required: ["read_only", "writes"],
      properties: { read_only: { const: true }, writes: { const: true } },
    },
    errorMessage:
      "sets both read_only and writes to true, but a tool that writes is not read-only; keep one of them",
  }],
  examples: [{ read_only: true }],
};

/** The fields `serverConfigProblems()` checks, after `${VAR}` replacement. */
const SERVER_CONFIG_FIELDS = [
  ...COMMON_FIELDS,
  ...STDIO_FIELDS,
  ...REMOTE_FIELDS,
];

/**
 * The fields both server formats share (ours and the `mcpServers` one),
 * each defined once under `definitions`.
 */
const SHARED_FIELDS = Object.fromEntries(
  [
    "command",
    "args",
    "env",
    "envFile",
    "inheritEnv",
    "cwd",
    "url",
    "headers",
    "fallback",
    "protocol",
  ]
    .map((field) => [
      field,
      { $ref: `#/definitions/${field}` },
    ]),
);

/** The fields of each kind of `auth`, besides `type`. */
const AUTH_FIELDS: Readonly<Record<string, readonly string[]>> = {
  oauth: ["clientId", "scopes"],
  "workload-identity": [
    "clientId",
    "assertion",
    "assertionFile",
    "scopes",
    "expectedIssuer",
    "dpop",
  ],
  "enterprise-managed": [
    "clientId",
    "clientSecret",
    "idpTokenEndpoint",
    "idpClientId",
    "idpClientSecret",
    "idToken",
    "idTokenFile",
    "scopes",
    "expectedIssuer",
    "dpop",
  ],
};

/** Text fields of `auth`, all `${VAR}`-replaced. */
const AUTH_TEXT: Readonly<
  Record<string, [description: string, example: string]>
> = {
  clientId: [
    "The client ID registered with the authorization server (oauth: default dynamic registration).",
    "my-client-id",
  ],
  assertion: [
    "workload-identity: the workload's JWT, e.g. ${WORKLOAD_JWT}.",
    "${WORKLOAD_JWT}",
  ],
  assertionFile: [
    "workload-identity: an absolute path to the file holding the workload's JWT, read for every token request.",
    "/var/run/secrets/tokens/mcp",
  ],
  expectedIssuer: [
    "The authorization server's issuer URL: the credentials are only sent there.",
    "https://auth.example.com",
  ],
  clientSecret: [
    "enterprise-managed: the client secret at the MCP server's authorization server.",
    "${MCP_CLIENT_SECRET}",
  ],
  idpTokenEndpoint: [
    "enterprise-managed: the identity provider's token endpoint, where the ID token is exchanged for an ID-JAG.",
    "https://login.example.com/oauth2/token",
  ],
  idpClientId: [
    "enterprise-managed: the client ID at the identity provider.",
    "my-idp-client",
  ],
  idpClientSecret: [
    "enterprise-managed: the client secret at the identity provider, if it has one.",
    "${IDP_CLIENT_SECRET}",
  ],
  idToken: [
    "enterprise-managed: the user's ID token from the identity provider, e.g. ${ID_TOKEN}.",
    "${ID_TOKEN}",
  ],
  idTokenFile: [
    "enterprise-managed: an absolute path to the file holding the user's ID token, read for every token request.",
    "/run/user/1000/id_token",
  ],
};

/** One kind of `auth`: what it needs, and that it takes no other kind's fields. */
function authKind(
  type: string,
  needs: readonly string[],
  oneOf?: readonly [string, string],
): JsonSchema {
  const others = Object.values(AUTH_FIELDS).flat().filter((field) =>
    !AUTH_FIELDS[type]!.includes(field)
  );
  const rules: JsonSchema[] = [];
  if (needs.length > 0) {
    rules.push({
      required: [...needs],
      errorMessage: `type ${type} needs ${needs.join(", ")}`,
    });
  }
  if (oneOf !== undefined) {
    const [token, file] = oneOf;
    rules.push({
      anyOf: [{ required: [token] }, { required: [file] }],
      errorMessage:
        `type ${type} needs ${token} (the token, e.g. \${VAR}) or ${file} (a file holding it)`,
    }, {
      not: { required: [token, file] },
      errorMessage: `type ${type} takes ${token} or ${file}, not both`,
    });
  }
  rules.push({
    not: {
      anyOf: [...new Set(others)].map((field) => ({ required: [field] })),
    },
    errorMessage: `type ${type} takes only ${AUTH_FIELDS[type]!.join(", ")}`,
  });
  return {
    if: { required: ["type"], properties: { type: { const: type } } },
    then: { allOf: rules },
  };
}

/** `auth` of a remote server. */
const AUTH: JsonSchema = {
  description:
    'sse / streamable-http: how the server authorizes this client. "oauth" (or { type: oauth, clientId, scopes }): a user\'s login (authorization code + PKCE), stored by "mcp-adapter login <name>". { type: workload-identity, clientId, assertion | assertionFile }: the workload\'s JWT (RFC 7523 JWT-bearer grant). { type: enterprise-managed, clientId, clientSecret, idpTokenEndpoint, idpClientId, idToken | idTokenFile }: the user\'s ID token exchanged for an ID-JAG (SEP-990). dpop: true binds the tokens of the last two with DPoP.',
  if: { type: "string" },
  then: {
    const: "oauth",
    errorMessage:
      'expected "oauth" or { type: oauth | workload-identity | enterprise-managed, ... }',
  },
  else: {
    type: "object",
    additionalProperties: false,
    required: ["type"],
    properties: {
      type: {
        enum: Object.keys(AUTH_FIELDS),
        description:
          "oauth: a user's login; workload-identity: the workload's JWT; enterprise-managed: an ID-JAG from the identity provider.",
        errorMessage: "expected oauth, workload-identity or enterprise-managed",
      },
      ...Object.fromEntries(
        Object.entries(AUTH_TEXT).map(([field, [description, example]]) => [
          field,
          { type: "string", minLength: 1, description, examples: [example] },
        ]),
      ),
      scopes: {
        type: "array",
        items: { type: "string", minLength: 1 },
        description: "Scopes to ask for when the server names none.",
        examples: [["read", "write"]],
      },
      dpop: {
        type: "boolean",
        description:
          "workload-identity, enterprise-managed: bind the tokens to a key of this process with DPoP (RFC 9449).",
        examples: [true],
      },
    },
    allOf: [
      authKind("oauth", []),
      authKind("workload-identity", ["clientId"], [
        "assertion",
        "assertionFile",
      ]),
      authKind(
        "enterprise-managed",
        ["clientId", "clientSecret", "idpTokenEndpoint", "idpClientId"],
        ["idToken", "idTokenFile"],
      ),
    ],
  },
  examples: ["oauth"],
};

/**
 * The config file format as JSON Schema (draft-07): our own
 * `{ servers: [...] }` list, the `mcpServers` files of Claude Desktop, Cursor
 * and Claude Code, and VS Code's `{ servers: { name: {...} } }`.
 * `loadConfig()` validates every file against it; the same document ships as
 * `schema/mcp-config.schema.json` for editors. Treat it as read-only.
 *
 * @example Point an editor at it, or validate a parsed file yourself
 * ```ts
 * import { CONFIG_SCHEMA } from "@cleveragents/mcp-adapter/config";
 *
 * console.log(CONFIG_SCHEMA.title); // "MCP adapter configuration"
 * ```
 */
export const CONFIG_SCHEMA: JsonSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "MCP adapter configuration",
  description:
    'MCP servers for @cleveragents/mcp-adapter: a "servers" list, or a "mcpServers" object (Claude Desktop, Cursor, Claude Code), or a VS Code "servers" object.',
  type: "object",
  properties: {
    $schema: { type: "string", description: "The schema of this file." },
    servers: {
      description:
        "A list of servers (this library's format), or an object of servers keyed by name (VS Code's \"mcp.json\").",
      if: { type: "array" },
      then: { type: "array", items: { $ref: "#/definitions/server" } },
      else: { $ref: "#/definitions/namedServers" },
    },
    mcpServers: {
      $ref: "#/definitions/namedServers",
      description:
        "Servers keyed by name, as Claude Desktop, Cursor and Claude Code write them.",
    },
    inputs: {
      type: "array",
      description:
        "Values asked for when the file is loaded (VS Code's inputs), used as ${input:ID}.",
      items: { $ref: "#/definitions/input" },
    },
  },
  allOf: [{
    anyOf: [{ required: ["servers"] }, { required: ["mcpServers"] }],
    errorMessage:
      'expected a "servers" list; write e.g. servers: [{ name: "files", transport: "stdio", command: "mcp-files" }]',
  }],
  definitions: {
    server: {
      type: "object",
      description: "One MCP server.",
      additionalProperties: false,
      required: ["name", "transport"],
      properties: {
        name: {
          type: "string",
          description:
            "Server identifier; also the default tool namespace, so tools appear as <name>/<tool>.",
          minLength: 1,
          pattern: NAME_PATTERN,
          patternErrorMessage: NAME_MESSAGE,
          examples: ["github"],
        },
        transport: {
          type: "string",
          description: "How to reach the server.",
          enum: ["stdio", "sse", "streamable-http"],
          examples: ["stdio"],
        },
        ...SHARED_FIELDS,
        namespace: {
          type: "string",
          description:
            "Registry namespace of the server's tools (<namespace>/<tool>). Default: name.",
          minLength: 1,
          pattern: NAME_PATTERN,
          patternErrorMessage: NAME_MESSAGE,
          examples: ["gh"],
        },
        filter: { $ref: "#/definitions/filter" },
        overrides: {
          type: "object",
          description:
            "Capability overrides keyed by the server's tool name or a * glob. Globs apply first, the exact name last.",
          propertyNames: { minLength: 1 },
          additionalProperties: { $ref: "#/definitions/override" },
          examples: [{ "delete_*": { writes: true } }],
        },
        connectTimeoutMs: {
          $ref: "#/definitions/timeoutMs",
          description:
            "Deadline for starting the server and the handshake, in milliseconds.",
        },
        requestTimeoutMs: {
          $ref: "#/definitions/timeoutMs",
          description:
            "Default deadline of a tool call without a response or progress, in milliseconds.",
        },
        enabled: {
          type: "boolean",
          description: "false keeps the server in the file but unused.",
          default: true,
          examples: [false],
        },
        validateArguments: {
          type: "boolean",
          description:
            "false: call its tools without checking the arguments against their input schemas first; the server alone judges them. A last resort for a server whose schemas refuse calls it accepts.",
          default: true,
          examples: [false],
        },
        auth: AUTH,
      },
      allOf: [
        {
          if: {
            required: ["transport"],
            properties: { transport: { const: "stdio" } },
          },
          then: {
            required: ["command"],
            errorMessage:
              'stdio transport needs "command", the program that starts the server; write e.g. command: "npx"',
          },
        },
        {
          if: {
            required: ["transport"],
            properties: { transport: { enum: ["sse", "streamable-http"] } },
          },
          then: {
            required: ["url"],
            errorMessage:
              'sse and streamable-http transports need "url"; write e.g. url: "https://example.com/mcp"',
          },
        },
        unused("stdio", REMOTE_FIELDS, '"streamable-http" or "sse"'),
        unused("sse", STDIO_FIELDS, '"stdio"'),
        unused("streamable-http", STDIO_FIELDS, '"stdio"'),
        {
          if: {
            required: ["transport"],
            properties: { transport: { const: "sse" } },
          },
          then: {
            properties: {
              fallback: {
                not: {},
                errorMessage: 'is only used by "streamable-http"; remove it',
              },
            },
          },
        },
      ],
    },
    namedServers: {
      type: "object",
      description:
        "Servers keyed by name; the name is also the tool namespace.",
      propertyNames: {
        minLength: 1,
        pattern: NAME_PATTERN,
        patternErrorMessage: NAME_MESSAGE,
      },
      additionalProperties: { $ref: "#/definitions/namedServer" },
    },
    namedServer: {
      type: "object",
      description:
        'A server as Claude Desktop, Cursor, Claude Code and VS Code write it: "command" (and "args", "env") for a local server, "url" (and "headers") for a remote one. Other keys are ignored; "disabled": true turns the server off.',
      properties: {
        type: {
          type: "string",
          description:
            'stdio, sse, or http (streamable HTTP). Default: stdio with "command", http with "url".',
          enum: ["stdio", "sse", "http", "streamable-http"],
          examples: ["http"],
        },
        ...SHARED_FIELDS,
        transport: {
          description:
            'Not a key of this format: write "type", or list servers as servers: [{ name, transport, ... }].',
          not: {},
          errorMessage:
            'is not a key of this format; write "type": "stdio", "sse" or "http", or list the servers as servers: [{ name: ..., transport: ... }]',
        },
        disabled: {
          type: "boolean",
          description: "true keeps the server in the file but unused.",
          examples: [true],
        },
        enabled: {
          type: "boolean",
          description: "false keeps the server in the file but unused.",
          examples: [false],
        },
      },
      allOf: [
        {
          anyOf: [{ required: ["command"] }, { required: ["url"] }],
          errorMessage:
            'expected "command" (a local server) or "url" (a remote one); write e.g. "command": "npx" or "url": "https://example.com/mcp"',
        },
        {
          if: { required: ["type"], properties: { type: { const: "stdio" } } },
          then: {
            required: ["command"],
            errorMessage:
              'type "stdio" needs "command", the program that starts the server; write e.g. "command": "npx"',
          },
        },
        {
          if: {
            required: ["type"],
            properties: { type: { enum: ["sse", "http", "streamable-http"] } },
          },
          then: {
            required: ["url"],
            errorMessage:
              'a remote server needs "url"; write e.g. "url": "https://example.com/mcp"',
          },
        },
      ],
    },
    command: {
      type: "string",
      description: `stdio: the program that starts the server. ${VARIABLES}`,
      minLength: 1,
      pattern: without(CONTROL, true),
      patternErrorMessage:
        `expected the program that starts the server, such as "npx", without control characters (write \\\\ or / for each backslash of a path)`,
      examples: ["npx"],
    },
    args: {
      type: "array",
      description: `stdio: the program's arguments. ${VARIABLES}`,
      items: {
        type: "string",
        pattern: NO_CONTROL,
        patternErrorMessage: NO_CONTROL_MESSAGE,
      },
      examples: [["-y", "@modelcontextprotocol/server-filesystem", "."]],
    },
    env: {
      type: "object",
      description:
        `stdio: environment variables for the server, on top of what it inherits (PATH, HOME, locale, the CA and proxy variables, cache folders; see inheritEnv). ${VARIABLES}`,
      additionalProperties: { type: "string" },
      examples: [{ GITHUB_TOKEN: "${GITHUB_TOKEN}" }],
    },
    envFile: {
      type: "string",
      description:
        "stdio: a dotenv file (NAME=value lines) whose variables are added to env; env wins over it. Relative to the config file's folder. ${workspaceFolder}, ${userHome}, ${VAR} and ${input:ID} are replaced.",
      minLength: 1,
      examples: ["${workspaceFolder}/.env"],
    },
    inheritEnv: {
      type: "array",
      description:
        "stdio: more variables of this process the server inherits, beyond what it always gets (PATH, HOME, locale, the CA and proxy variables, cache folders): exact names, or a prefix and * (AWS_*). Their values are masked in messages.",
      items: {
        type: "string",
        pattern: INHERITED_NAME.source,
        patternErrorMessage:
          'expected a variable name ("DATABASE_URL") or a prefix and * ("AWS_*")',
      },
      examples: [["DATABASE_URL", "AWS_*"]],
    },
    input: {
      type: "object",
      description:
        "A value asked for when the file is loaded, used as ${input:ID}. The command line asks on a terminal; a program passes the inputs option.",
      required: ["id"],
      properties: {
        id: {
          type: "string",
          description: "What ${input:ID} names.",
          minLength: 1,
          examples: ["api-key"],
        },
        type: {
          type: "string",
          description:
            "promptString (type a value) or pickString (choose one of options).",
          enum: ["promptString", "pickString", "command"],
          examples: ["promptString"],
        },
        description: {
          type: "string",
          description: "The question.",
          examples: ["API key"],
        },
        password: {
          type: "boolean",
          description:
            "true: the value is secret (not echoed, masked in messages).",
          examples: [true],
        },
        default: {
          type: "string",
          description: "The value used when none is given.",
        },
        options: {
          type: "array",
          description: "pickString: the values to choose from.",
        },
      },
      examples: [{
        id: "api-key",
        type: "promptString",
        description: "API key",
        password: true,
      }],
    },
    cwd: {
      type: "string",
      description:
        `stdio: the working directory of the server process. ${VARIABLES}`,
      pattern: NO_CONTROL,
      patternErrorMessage: NO_CONTROL_MESSAGE,
      examples: ["${workspaceFolder}"],
    },
    url: {
      type: "string",
      description: `sse / streamable-http: the server's URL. ${VARIABLES}`,
      pattern: "^(?:[hH][tT][tT][pP][sS]?://[^/?#\\s]|\\$\\{)",
      patternErrorMessage:
        'expected an http(s) URL; write e.g. "https://example.com/mcp"',
      examples: ["https://example.com/mcp"],
    },
    headers: {
      type: "object",
      description:
        `sse / streamable-http: HTTP headers sent with every request. ${VARIABLES}`,
      propertyNames: {
        pattern: HEADER_NAME.source,
        patternErrorMessage:
          "is not a valid HTTP header name; use letters, digits and dashes",
      },
      additionalProperties: {
        type: "string",
        pattern: without(BAD_HEADER_VALUE),
        patternErrorMessage: "must not contain line breaks or NUL characters",
      },
      examples: [{ Authorization: "Bearer ${API_TOKEN}" }],
    },
    fallback: {
      type: "boolean",
      description:
        "streamable-http only: when the server answers the initialize POST with 400, 404 or 405, try the legacy SSE transport at the same URL. Default: true.",
      default: true,
      examples: [false],
    },
    protocol: {
      type: "string",
      description:
        'The protocol revision to speak: "auto" (default) asks with 2026-07-28 and falls back to the 2025 initialize handshake; "modern" or "legacy" pins an era; a revision such as "2025-06-18" pins that one.',
      enum: [...PROTOCOL_CHOICES],
      default: "auto",
      examples: ["legacy"],
    },
    filter: {
      type: "object",
      description:
        "Which of the server's tools to register: exact names or * globs; exclude wins over include.",
      additionalProperties: false,
      properties: {
        include: {
          $ref: "#/definitions/patterns",
          description:
            "When given, only tools matching one of these are registered.",
        },
        exclude: {
          $ref: "#/definitions/patterns",
          description: "Tools matching one of these are dropped.",
        },
      },
      examples: [{ exclude: ["delete_*"] }],
    },
    patterns: {
      type: "array",
      items: { type: "string", minLength: 1, examples: ["get_*"] },
      examples: [["get_*", "list_*"]],
    },
    override: OVERRIDE,
    timeoutMs: {
      type: "integer",
      minimum: 1,
      examples: [30000],
    },
  },
};

/**
 * The skill file format (`name`, `description`, `tools`, `overrides`).
 * Internal: `parseSkill()` validates against it.
 */
export const SKILL_SCHEMA: JsonSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "MCP adapter skill",
  type: "object",
  additionalProperties: false,
  required: ["name", "tools"],
  properties: {
    $schema: { type: "string" },
    name: { type: "string", minLength: 1, examples: ["notes-reader"] },
    description: { type: "string", examples: ["Reads and searches notes"] },
    tools: {
      type: "array",
      description: 'Registry tools: "namespace/tool" names or * globs.',
      minItems: 1,
      items: { $ref: "#/definitions/toolPattern" },
      examples: [["notes/*"]],
    },
    overrides: {
      type: "object",
      description: 'Capability overrides keyed by "namespace/tool" or a glob.',
      propertyNames: { $ref: "#/definitions/toolPattern" },
      additionalProperties: { $ref: "#/definitions/override" },
      examples: [{ "notes/delete_note": { writes: true } }],
    },
  },
  definitions: {
    toolPattern: {
      type: "string",
      pattern: "^[^/]+/.+$",
      patternErrorMessage:
        'expected "namespace/tool" or a glob such as "notes/*"',
      examples: ["notes/search_notes"],
    },
    override: OVERRIDE,
  },
};

/**
 * What the loader validates a file against: {@linkcode CONFIG_SCHEMA}
 * without the rules of the server-config fields (and of which of them a
 * transport needs). Those are checked once, by `serverConfigProblems()`,
 * on the values after `${VAR}` replacement, so no rule is checked twice.
 * Internal.
 */
export const LOADER_SCHEMA: JsonSchema = (() => {
  const schema = structuredClone(CONFIG_SCHEMA);
  const definitions = schema.definitions as Record<string, JsonSchema>;
  for (const field of SERVER_CONFIG_FIELDS) {
    definitions[field] = { description: definitions[field]!.description };
  }
  const server = definitions.server!;
  delete server.allOf; // stdio needs "command", remote needs "url"
  return schema;
})();

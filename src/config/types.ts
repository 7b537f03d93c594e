/**
 * The public types of config files: what {@linkcode loadConfig} and
 * {@linkcode parseConfig} take and return. Re-exported by `load.ts`, which
 * the `/config` entry exports.
 *
 * @module
 */

import type { MCPServerConfig } from "../server_config.ts";
import type { CapabilityOverrides } from "../tools/capabilities.ts";
import type { MCPToolFilter } from "../types.ts";

/**
 * How a remote server authorizes this client (`auth:` in the file): a
 * user's OAuth login ({@linkcode OAuthLoginAuth}), or a machine grant that
 * needs no user at hand ({@linkcode WorkloadIdentityAuth},
 * {@linkcode EnterpriseManagedAuth}), whose providers `configAuth()` of
 * `@cleveragents/mcp-adapter/auth` builds.
 */
export type ServerAuth =
  | OAuthLoginAuth
  | WorkloadIdentityAuth
  | EnterpriseManagedAuth;

/**
 * OAuth for a remote server (`auth: oauth` in the file): the user logs in
 * with `mcp-adapter login <name>`, which keeps the tokens in a per-user
 * store that the command line and `MCPToolHub` (its `authProvider` option)
 * use.
 */
export interface OAuthLoginAuth {
  /** `"oauth"`: the authorization-code flow with PKCE. */
  type: "oauth";
  /** A client ID registered with the authorization server beforehand; default: dynamic registration. */
  clientId?: string;
  /** Scopes to ask for when the server does not name any. */
  scopes?: string[];
}

/**
 * A workload's own JWT, presented with the JWT-bearer grant (RFC 7523,
 * workload identity federation): `auth: { type: workload-identity,
 * clientId, assertionFile }`.
 */
export interface WorkloadIdentityAuth {
  /** `"workload-identity"`. */
  type: "workload-identity";
  /** The client ID registered with the authorization server. */
  clientId: string;
  /** The JWT itself (usually `${VAR}`); or {@linkcode WorkloadIdentityAuth.assertionFile}. */
  assertion?: string;
  /** An absolute path to a file holding the JWT, read for every token request (platforms rotate it). */
  assertionFile?: string;
  /** Scopes to ask for when the server does not name any. */
  scopes?: string[];
  /** The authorization server's issuer: the credentials go only there. */
  expectedIssuer?: string;
  /** Bind the tokens with DPoP (RFC 9449). */
  dpop?: boolean;
}

/**
 * Enterprise-managed authorization (SEP-990): the user's ID token is
 * exchanged at the identity provider for an ID-JAG, which the
 * authorization server takes with the JWT-bearer grant:
 * `auth: { type: enterprise-managed, … }`.
 */
export interface EnterpriseManagedAuth {
  /** `"enterprise-managed"`. */
  type: "enterprise-managed";
  /** The client ID at the MCP server's authorization server. */
  clientId: string;
  /** The client secret there (usually `${VAR}`). */
  clientSecret: string;
  /** The identity provider's token endpoint. */
  idpTokenEndpoint: string;
  /** The client ID at the identity provider. */
  idpClientId: string;
  /** The client secret at the identity provider, if it has one. */
  idpClientSecret?: string;
  /** The user's ID token (usually `${VAR}`); or {@linkcode EnterpriseManagedAuth.idTokenFile}. */
  idToken?: string;
  /** An absolute path to a file holding the ID token, read for every token request. */
  idTokenFile?: string;
  /** Scopes to ask for when the server does not name any. */
  scopes?: string[];
  /** The authorization server's issuer: the credentials go only there. */
  expectedIssuer?: string;
  /** Bind the tokens with DPoP (RFC 9449). */
  dpop?: boolean;
}

/** One server of a config file, ready to build an adapter from. */
export interface ServerEntry {
  /** How to reach the server, checked like `validateServerConfig()` does, variables replaced. */
  config: MCPServerConfig;
  /** Registry namespace of its tools (`<namespace>/<tool>`). Default: `config.name`. */
  namespace: string;
  /** Which of its tools to register. */
  filter?: MCPToolFilter;
  /** Capability overrides keyed by the server's tool name or a `*` glob. */
  overrides?: CapabilityOverrides;
  /** Deadline for starting the server and the handshake, in milliseconds. */
  connectTimeoutMs?: number;
  /** Default deadline of a tool call, in milliseconds. */
  requestTimeoutMs?: number;
  /**
   * `false`: call its tools without checking the arguments against their
   * schemas first (the adapter's `validateArguments`; a last resort).
   */
  validateArguments?: boolean;
  /** `false` when the file switches the server off. Default `true`. */
  enabled: boolean;
  /** How a remote server authorizes this client (`auth:`). */
  auth?: ServerAuth;
}

/** The servers of a config file. */
export interface LoadedConfig {
  /** Every server, disabled ones included, in file order. */
  servers: ServerEntry[];
  /** The file's path as given, or `"<inline>"`. */
  source: string;
}

/** What `${…}` references resolve against; shared by {@linkcode loadConfig} and {@linkcode parseConfig}. */
export interface ConfigVariableOptions {
  /**
   * Variables for `${VAR}` and `${env:VAR}`. Default: the process
   * environment, read one variable at a time when a reference needs it
   * (`Deno.env` under Deno, `process.env` under Node).
   */
  env?: Record<string, string | undefined>;
  /**
   * The folder `${workspaceFolder}` stands for. Default for a file: the
   * file's folder, or the folder above it when that is `.vscode` or
   * `.cursor` (where VS Code and Cursor keep `mcp.json`). Text has no
   * default: there `${workspaceFolder}` needs this option, and so does a
   * relative `envFile` (it is relative to this folder).
   */
  workspaceFolder?: string;
  /** What `${userHome}` stands for. Default: `HOME`, else `USERPROFILE`, from `env`. */
  userHome?: string;
}

/** Options of {@linkcode loadConfig}. */
export interface LoadConfigOptions extends ConfigVariableOptions {
  /**
   * Values for `${input:id}`: a record of id → value, or a function called
   * once per input the file's `inputs` list declares and its servers use,
   * one at a time in file order, with the input's `description`,
   * `password`, `default` and `options` (a command line can prompt with
   * them; the CLI does on a terminal). An input not given falls back to its
   * `default`; without one it is a problem naming it. Values of
   * `password: true` inputs are treated as secrets: they are masked in every
   * message the adapter and the hub produce, wherever the file used them.
   */
  inputs?: ConfigInputs;
}

/** Options of {@linkcode parseConfig}. */
export interface ParseConfigOptions extends ConfigVariableOptions {
  /** Values for `${input:id}`, by id (see {@linkcode LoadConfigOptions.inputs}). */
  inputs?: Readonly<Record<string, string>>;
  /** The file name used in messages and `LoadedConfig.source`. Default `"<inline>"`. */
  source?: string;
}

/** The formats of a config text. */
export type ConfigFormat = "yaml" | "json";

/** Config text given directly to {@linkcode loadConfig}. */
export interface ConfigText {
  /** The text. */
  text: string;
  /** Its format. */
  format: ConfigFormat;
  /** The file name used in messages. Default `"<inline>"`. */
  source?: string;
}

/** One input of a config file's `inputs` list, as a function that asks for it sees it. */
export interface ConfigInput {
  /** The id that `${input:id}` names. */
  id: string;
  /** VS Code's input type, e.g. `"promptString"` or `"pickString"`, when given. */
  type?: string;
  /** What to ask, as the file words it. */
  description?: string;
  /** `true` when the value is secret: do not echo it. Its value is redacted like an env value. */
  password: boolean;
  /** The value to offer, when the file gives one. */
  default?: string;
  /** `pickString`: the values to choose from. */
  options?: string[];
}

/**
 * Values for `${input:id}`: a record of id → value, or a function that is
 * asked once for each input the file declares and uses (in file order, one
 * at a time, so it may prompt on a terminal).
 */
export type ConfigInputs =
  | Readonly<Record<string, string>>
  | ((input: ConfigInput) => string | Promise<string>);

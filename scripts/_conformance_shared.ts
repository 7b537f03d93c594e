/**
 * The scenario plumbing both conformance drivers share: which client
 * scenarios there are and what each asks of a client, and the command line
 * the suite starts a driver with. Each driver (`conformance_client.ts`,
 * `conformance_sdk_client.ts`, `conformance_sdk_v2_client.ts`) supplies how
 * its client exercises a server and, when its SDK has its own, the OAuth
 * providers of the scenarios ({@linkcode Credentials}).
 *
 * @module
 */

import {
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
} from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import {
  CIMD_URL,
  conformanceContext,
  ConformanceOAuthProvider,
  crossAppAccessToken,
} from "./_conformance_auth.ts";
import { logError } from "./_run.ts";

/** The whole run; the suite's own limit is 30 s. */
const RUN_TIMEOUT_MS = 25_000;

/**
 * How a scenario wants the client set up; a driver maps it onto its client.
 *
 * @typeParam P The OAuth provider type of the driver's SDK.
 */
export interface ScenarioOptions<P = OAuthClientProvider> {
  /** Authenticates the client, for the OAuth scenarios. */
  authProvider?: P;
  /** Headers sent on every request: the cross-app access token. */
  headers?: Record<string, string>;
  /** Accept every elicitation with nothing filled in, leaving the schema defaults to the client. */
  elicitation?: boolean;
  /**
   * Answer every kind of input the server may ask for (elicitation,
   * sampling, roots), declaring each capability.
   */
  allHandlers?: boolean;
}

/** A listed tool, as a driver sees it. */
export interface ListedTool {
  name: string;
  inputSchema?: Record<string, unknown>;
}

/** The tool a scenario calls, with its arguments. */
export interface ScenarioTool {
  name: string;
  args: Record<string, unknown>;
}

/**
 * Connects to `url` as `options` say, lists the tools, calls `tool` when
 * given (`"every"`: each listed tool at once, with arguments from
 * {@linkcode exampleArguments}), and disconnects.
 */
export type Exercise<P = OAuthClientProvider> = (
  url: string,
  options: ScenarioOptions<P>,
  tool?: ScenarioTool | "every",
) => Promise<void>;

/**
 * The OAuth providers the scenarios hand to a driver's client: the
 * `client_credentials` ones of its SDK, and the in-memory
 * authorization-code provider of `_conformance_auth.ts`.
 *
 * @typeParam P The OAuth provider type of the driver's SDK.
 */
export interface Credentials<P = OAuthClientProvider> {
  /** `client_credentials` with `client_secret_basic`. */
  clientSecret(clientId: string, clientSecret: string): P;
  /** `client_credentials` with `private_key_jwt`. */
  privateKeyJwt(clientId: string, privateKey: string, algorithm: string): P;
  /** The authorization-code flow, played headlessly. */
  authorizationCode(options: ConformanceOAuthProviderOptions): P;
  /**
   * The providers of the authorization extensions; a driver without them
   * does not run those scenarios.
   */
  extensions?: ExtensionCredentials<P>;
}

/** The providers of the extension scenarios (conformance 0.2). */
export interface ExtensionCredentials<P = OAuthClientProvider> {
  /** `provider` with DPoP-bound tokens (`auth/dpop`, `auth/dpop-nonce`). */
  dpop(provider: P): P;
  /** The JWT-bearer grant with a workload's JWT (`auth/wif-jwt-bearer`). */
  workloadIdentity(clientId: string, assertion: string): P;
  /**
   * Enterprise-managed authorization: an ID-JAG from the IdP, then the
   * JWT-bearer grant (`auth/enterprise-managed-authorization`, and 0.1.16's
   * `auth/cross-app-access-complete-flow`).
   */
  enterprise(context: EnterpriseContext): P;
}

/** What the SEP-990 scenarios give a client (`MCP_CONFORMANCE_CONTEXT`). */
export interface EnterpriseContext {
  client_id: string;
  client_secret: string;
  idp_client_id: string;
  idp_id_token: string;
  idp_token_endpoint: string;
}

/** What the authorization-code scenarios configure their provider with. */
export type ConformanceOAuthProviderOptions = NonNullable<
  ConstructorParameters<typeof ConformanceOAuthProvider>[0]
>;

/** {@linkcode Credentials} from the MCP SDK v1 (`@modelcontextprotocol/sdk`). */
export const SDK_V1_CREDENTIALS: Credentials = {
  clientSecret: (clientId, clientSecret) =>
    new ClientCredentialsProvider({ clientId, clientSecret }),
  privateKeyJwt: (clientId, privateKey, algorithm) =>
    new PrivateKeyJwtProvider({ clientId, privateKey, algorithm }),
  authorizationCode: (options) => new ConformanceOAuthProvider(options),
};

/**
 * Calls what a scenario asks for among the listed `tools`: `tool`, or each
 * of them at once (`"every"`, with {@linkcode exampleArguments}). With
 * `"every"` the suite judges the wire, so a call that fails (its server may
 * not implement it) is logged, not fatal; otherwise it fails the scenario.
 *
 * @param call Calls one tool through the driver's client, logging its result.
 */
export async function callTools(
  tools: readonly ListedTool[],
  tool: ScenarioTool | "every" | undefined,
  call: (tool: ScenarioTool) => Promise<void>,
): Promise<void> {
  const calls = tool === "every"
    ? tools.map((t) => ({ name: t.name, args: exampleArguments(t, tools) }))
    : tool === undefined
    ? []
    : [tool];
  const outcomes = await Promise.allSettled(calls.map(call));
  const failed = outcomes.filter((o) => o.status === "rejected");
  for (const outcome of failed) logError(String(outcome.reason?.message));
  if (tool !== "every" && failed.length > 0) throw failed[0]!.reason;
}

/**
 * Values that exercise the header encoding of MCP 2026-07-28: plain ASCII,
 * numbers, booleans, and strings that must be Base64-encoded.
 */
const TRICKY_VALUES: Readonly<Record<string, unknown>> = {
  region: "us-west1",
  priority: 42,
  verbose: true,
  debug: false,
  empty_val: "",
  method_val: "tools/call",
  float_val: 1.5,
  non_ascii_val: "Grüße, 世界",
  whitespace_val: " padded ",
  leading_space_val: " leading",
  trailing_space_val: "trailing ",
  internal_space_val: "inside spaces",
  control_char_val: "bell\u0007",
  crlf_val: "line1\r\nline2",
  tab_val: "\ttabbed",
  query: "weather",
};

/** Echo tools of the suite, and the tool whose input schema each echoes. */
const ECHOED_SCHEMA_OF: Readonly<Record<string, string>> = {
  json_schema_echo: "json_schema_2020_12_tool",
};

/**
 * Arguments for a tool from its input schema: a known tricky value for a
 * property of that name, else an example of the property's type; every
 * required property, and the optional ones that have a tricky value. An
 * echo tool of the suite gets the input schema of its focal tool among
 * `tools` instead.
 */
export function exampleArguments(
  tool: ListedTool,
  tools: readonly ListedTool[] = [],
): Record<string, unknown> {
  // json-schema-2020-12-preservation: echo the focal tool's schema as the
  // client holds it, so the suite sees what the client kept of it.
  const focal = tools.find((t) => t.name === ECHOED_SCHEMA_OF[tool.name]);
  if (focal !== undefined) return { schema: focal.inputSchema ?? {} };
  const schema = tool.inputSchema ?? {};
  const properties = (schema.properties ?? {}) as Record<
    string,
    { type?: unknown }
  >;
  const required = new Set(
    Array.isArray(schema.required) ? schema.required as string[] : [],
  );
  const args: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (name in TRICKY_VALUES) {
      // The null tool checks that an omitted argument sends no header.
      if (tool.name.endsWith("_null") && name === "verbose") continue;
      args[name] = TRICKY_VALUES[name];
    } else if (required.has(name)) {
      args[name] = property.type === "integer" || property.type === "number"
        ? 1
        : property.type === "boolean"
        ? true
        : property.type === "object"
        ? {}
        : property.type === "array"
        ? []
        : "example";
    }
  }
  return args;
}

/** Runs one scenario against the suite's server at a URL. */
export type Scenario = (url: string) => Promise<void>;

const TEST_TOOL = { name: "test-tool", args: {} };

/**
 * The 2026-07-28 scenarios of conformance 0.2: list the tools and call each
 * one (the suite judges what went over the wire), answering any input.
 */
const MODERN_SCENARIOS = [
  "request-metadata",
  "sep-2322-client-request-state",
  "http-standard-headers",
  "http-custom-headers",
  "http-invalid-tool-headers",
  "json-schema-ref-no-deref",
  "json-schema-2020-12-preservation",
];

/**
 * The authorization-code scenarios: log in, list tools, call the test tool.
 * The last ones are those of conformance 0.2 (2026-07-28 authorization:
 * RFC 9207 `iss`, issuer checks, a moved authorization server), where a
 * client that follows the rules refuses to finish some logins.
 */
const AUTH_CODE_SCENARIOS = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/authorization-server-migration",
  "auth/iss-supported",
  "auth/iss-not-advertised",
  "auth/iss-supported-missing",
  "auth/iss-wrong-issuer",
  "auth/iss-unexpected",
  "auth/iss-normalized",
  "auth/metadata-issuer-mismatch",
];

/**
 * Scenario name → what the client does; names are those of conformance
 * 0.1.16 and of the 0.2 requirement sets.
 *
 * @param clientName The name the client registers its OAuth clients under.
 * @param exercise How the driver's client runs a scenario.
 * @param credentials The OAuth providers of the driver's SDK.
 * @returns Every scenario the drivers know, in a fixed order.
 */
export function scenarios<P = OAuthClientProvider>(
  clientName: string,
  exercise: Exercise<P>,
  // A driver whose SDK has its own providers passes them; P is then theirs.
  credentials: Credentials<P> = SDK_V1_CREDENTIALS as unknown as Credentials<P>,
): Record<string, Scenario> {
  const table: Record<string, Scenario> = {
    "initialize": (url) => exercise(url, {}),
    "tools_call": (url) =>
      exercise(url, {}, { name: "add_numbers", args: { a: 5, b: 3 } }),
    "elicitation-sep1034-client-defaults": (url) =>
      exercise(url, { elicitation: true }, {
        name: "test_client_elicitation_defaults",
        args: {},
      }),
    "sse-retry": (url) =>
      exercise(url, {}, { name: "test_reconnection", args: {} }),
    "auth/client-credentials-basic": (url) => {
      const context = conformanceContext();
      return exercise(url, {
        authProvider: credentials.clientSecret(
          context.client_id!,
          context.client_secret!,
        ),
      });
    },
    "auth/client-credentials-jwt": (url) => {
      const context = conformanceContext();
      return exercise(url, {
        authProvider: credentials.privateKeyJwt(
          context.client_id!,
          context.private_key_pem!,
          context.signing_algorithm ?? "ES256",
        ),
      });
    },
    "auth/cross-app-access-complete-flow": async (url) => {
      const context = conformanceContext();
      const extensions = credentials.extensions;
      if (extensions !== undefined) {
        return await exercise(url, {
          authProvider: extensions.enterprise(enterpriseContext(context)),
        }, TEST_TOOL);
      }
      const token = await crossAppAccessToken(url, context);
      await exercise(
        url,
        { headers: { Authorization: `Bearer ${token}` } },
        TEST_TOOL,
      );
    },
    "auth/pre-registration": (url) => {
      const context = conformanceContext();
      return exercise(url, {
        authProvider: credentials.authorizationCode({
          clientName,
          preRegistered: {
            client_id: context.client_id!,
            client_secret: context.client_secret!,
          },
        }),
      }, TEST_TOOL);
    },
  };
  for (const name of MODERN_SCENARIOS) {
    table[name] = (url) => exercise(url, { allHandlers: true }, "every");
  }
  const extensions = credentials.extensions;
  if (extensions !== undefined) {
    for (const name of ["auth/dpop", "auth/dpop-nonce"]) {
      // A dynamically registered client: the suite's server has no CIMD.
      table[name] = (url) =>
        exercise(url, {
          authProvider: extensions.dpop(
            credentials.authorizationCode({ clientName }),
          ),
        }, TEST_TOOL);
    }
    table["auth/enterprise-managed-authorization"] = (url) =>
      exercise(url, {
        authProvider: extensions.enterprise(
          enterpriseContext(conformanceContext()),
        ),
      }, TEST_TOOL);
    table["auth/wif-jwt-bearer"] = (url) => {
      const context = conformanceContext();
      return exercise(url, {
        authProvider: extensions.workloadIdentity(
          context.client_id!,
          context.valid_jwt!,
        ),
      }, TEST_TOOL);
    };
  }
  for (const name of AUTH_CODE_SCENARIOS) {
    table[name] = (url) =>
      exercise(url, {
        authProvider: credentials.authorizationCode({
          clientName,
          clientMetadataUrl: CIMD_URL,
        }),
      }, TEST_TOOL);
  }
  return table;
}

/**
 * The SEP-990 fields of a scenario's context.
 *
 * @throws {Error} Naming a missing field.
 */
function enterpriseContext(context: Record<string, string>): EnterpriseContext {
  const fields = [
    "client_id",
    "client_secret",
    "idp_client_id",
    "idp_id_token",
    "idp_token_endpoint",
  ] as const;
  for (const field of fields) {
    if (typeof context[field] !== "string") {
      throw new Error(`the scenario's context has no ${field}`);
    }
  }
  return context as unknown as EnterpriseContext;
}

/**
 * The driver's command line, as the suite starts it: runs the scenario
 * named in `MCP_CONFORMANCE_SCENARIO` against the URL given last, and exits
 * 0 when it passed, 1 when it failed or ran past its time, 2 when it was
 * started wrong (printing `usage`).
 *
 * @param table The driver's scenarios.
 * @param usage What to print when the scenario or the URL is missing.
 */
export async function main(
  table: Record<string, Scenario>,
  usage: string,
): Promise<never> {
  const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
  const url = Deno.args.at(-1);
  const run = table[scenario];
  if (run === undefined || url === undefined) {
    logError(usage);
    Deno.exit(2);
  }
  const deadline = setTimeout(() => {
    logError(`${scenario}: no result within ${RUN_TIMEOUT_MS} ms`);
    Deno.exit(1);
  }, RUN_TIMEOUT_MS);
  try {
    await run(url);
    logError(`${scenario}: done`);
    Deno.exit(0);
  } catch (error) {
    logError(
      `${scenario}: ${error instanceof Error ? error.message : String(error)}`,
    );
    Deno.exit(1);
  } finally {
    clearTimeout(deadline);
  }
}

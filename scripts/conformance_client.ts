/**
 * The client under test for the MCP conformance suite's client scenarios
 * (`@modelcontextprotocol/conformance`), driving this library through its
 * public API only: `MCPToolAdapter`, with the MCP SDK's OAuth providers as
 * `authProvider` where a scenario needs OAuth.
 *
 * The suite starts it as `<command> <server-url>` with the scenario's name
 * in `MCP_CONFORMANCE_SCENARIO` and, for some scenarios, JSON data in
 * `MCP_CONFORMANCE_CONTEXT`; it judges the run by what its test servers saw
 * and by this process's exit code. `scripts/conformance.ts` runs it.
 *
 * Authorization-code scenarios play the user headlessly, as an app would
 * with a real one: a step that throws `MCPAuthorizationRequiredError` sends
 * the "user" to its `authorizationUrl`; the suite's authorization server
 * approves at once and redirects to our redirect URI with the code
 * (fetching the URL without following redirects yields it), which
 * `adapter.finishAuth(code)` exchanges; then the step runs again.
 *
 * @module
 */

import {
  MCPAuthorizationRequiredError,
  MCPToolAdapter,
  type MCPToolAdapterOptions,
  type MCPToolResult,
} from "@cleveragents/mcp-adapter";
import {
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
} from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import {
  approveHeadlessly,
  CIMD_URL,
  conformanceContext,
  ConformanceOAuthProvider,
  crossAppAccessToken,
} from "./_conformance_auth.ts";
import { logError } from "./_run.ts";

/** The whole run; the suite's own limit is 30 s. */
const RUN_TIMEOUT_MS = 25_000;
/** Each connect and call. */
const STEP_TIMEOUT_MS = 10_000;
/** Logins per step; `auth/scope-retry-limit` wants at most 3 authorization requests. */
const MAX_AUTHORIZATIONS = 3;
const CLIENT_INFO = { name: "mcp-adapter-conformance", version: "1.0.0" };

/** One connection under test, with its OAuth provider when it has one. */
interface Session {
  adapter: MCPToolAdapter;
  provider: ConformanceOAuthProvider | undefined;
}

function open(serverUrl: string, options: MCPToolAdapterOptions): Session {
  const adapter = new MCPToolAdapter(
    { name: "conformance", transport: "streamable-http", url: serverUrl },
    {
      clientInfo: CLIENT_INFO,
      connectTimeoutMs: STEP_TIMEOUT_MS,
      requestTimeoutMs: STEP_TIMEOUT_MS,
      onError: (error) => logError(`adapter: ${error.message}`),
      ...options,
    },
  );
  const provider = options.authProvider instanceof ConformanceOAuthProvider
    ? options.authProvider
    : undefined;
  return { adapter, provider };
}

/**
 * Runs `step`; when it needs the user to authorize, approves at the
 * authorization URL, hands the code to `finishAuth()` and runs the step
 * again, at most {@linkcode MAX_AUTHORIZATIONS} times.
 *
 * @param failure Says why a settled value counts as failed, or undefined.
 */
async function authorized<T>(
  session: Session,
  what: string,
  step: () => Promise<T>,
  failure: (value: T) => string | undefined = () => undefined,
): Promise<T> {
  for (let round = 0;; round++) {
    let value: T;
    try {
      value = await step();
    } catch (error) {
      if (!(error instanceof MCPAuthorizationRequiredError)) {
        throw new Error(
          `${what} failed: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      }
      if (round >= MAX_AUTHORIZATIONS) {
        throw new Error(
          `${what}: gave up after ${MAX_AUTHORIZATIONS} authorizations: the server keeps asking for more`,
        );
      }
      const code = await approveHeadlessly(
        error.authorizationUrl,
        session.provider?.expectedState,
      );
      await session.adapter.finishAuth(code);
      continue;
    }
    const problem = failure(value);
    if (problem !== undefined) throw new Error(`${what} failed: ${problem}`);
    return value;
  }
}

function invokeFailure(result: MCPToolResult): string | undefined {
  if (result.success) return undefined;
  return `${result.errorKind ?? "error"}: ${result.error}`;
}

/** connect, list tools, then call `tool` (when given) and disconnect. */
async function exercise(
  session: Session,
  tool?: { name: string; args: Record<string, unknown> },
): Promise<void> {
  const { adapter } = session;
  try {
    await authorized(session, "connect()", () => adapter.connect());
    const tools = await authorized(
      session,
      "discoverTools()",
      () => adapter.discoverTools(),
    );
    logError(`tools: ${tools.map((t) => t.name).join(", ")}`);
    if (tool !== undefined) {
      const result = await authorized(
        session,
        `invoke("${tool.name}")`,
        () => adapter.invoke(tool.name, tool.args),
        invokeFailure,
      );
      logError(`${tool.name}: ${JSON.stringify(result.data)}`);
    }
  } finally {
    await adapter.disconnect();
  }
}

function oauth(clientName: string): MCPToolAdapterOptions {
  return {
    authProvider: new ConformanceOAuthProvider({
      clientName,
      clientMetadataUrl: CIMD_URL,
    }),
  };
}

const TEST_TOOL = { name: "test-tool", args: {} };

/** Scenario name → what the client does; names are those of conformance 0.1.16. */
const SCENARIOS: Record<string, (url: string) => Promise<void>> = {
  "initialize": (url) => exercise(open(url, {})),
  "tools_call": (url) =>
    exercise(open(url, {}), { name: "add_numbers", args: { a: 5, b: 3 } }),
  "elicitation-sep1034-client-defaults": (url) =>
    exercise(
      open(url, {
        // Accept with nothing filled in: the adapter adds the schema defaults.
        handlers: { elicitation: () => ({ action: "accept", content: {} }) },
      }),
      { name: "test_client_elicitation_defaults", args: {} },
    ),
  "sse-retry": (url) =>
    exercise(open(url, {}), { name: "test_reconnection", args: {} }),
  "auth/client-credentials-basic": (url) => {
    const context = conformanceContext();
    return exercise(open(url, {
      authProvider: new ClientCredentialsProvider({
        clientId: context.client_id!,
        clientSecret: context.client_secret!,
      }),
    }));
  },
  "auth/client-credentials-jwt": (url) => {
    const context = conformanceContext();
    return exercise(open(url, {
      authProvider: new PrivateKeyJwtProvider({
        clientId: context.client_id!,
        privateKey: context.private_key_pem!,
        algorithm: context.signing_algorithm ?? "ES256",
      }),
    }));
  },
  "auth/cross-app-access-complete-flow": async (url) => {
    const token = await crossAppAccessToken(url, conformanceContext());
    const adapter = new MCPToolAdapter({
      name: "conformance",
      transport: "streamable-http",
      url,
      headers: { Authorization: `Bearer ${token}` },
    }, { clientInfo: CLIENT_INFO });
    await exercise({ adapter, provider: undefined }, TEST_TOOL);
  },
  "auth/pre-registration": (url) => {
    const context = conformanceContext();
    return exercise(
      open(url, {
        authProvider: new ConformanceOAuthProvider({
          clientName: "mcp-adapter-conformance",
          preRegistered: {
            client_id: context.client_id!,
            client_secret: context.client_secret!,
          },
        }),
      }),
      TEST_TOOL,
    );
  },
};

/** The authorization-code scenarios: log in, list tools, call the test tool. */
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
];
for (const name of AUTH_CODE_SCENARIOS) {
  SCENARIOS[name] = (url) =>
    exercise(open(url, oauth("mcp-adapter-conformance")), TEST_TOOL);
}

/** The scenario names this driver knows, for `scripts/conformance.ts`. */
export const DRIVER_SCENARIOS: readonly string[] = Object.keys(SCENARIOS);

/**
 * Runs one scenario against the suite's server at `url`.
 *
 * @param scenario The scenario's name.
 * @param url The server URL the suite passed.
 * @throws {Error} When the scenario is unknown or the client fails.
 */
export async function runScenario(
  scenario: string,
  url: string,
): Promise<void> {
  const run = SCENARIOS[scenario];
  if (run === undefined) throw new Error(`unknown scenario ${scenario}`);
  await run(url);
}

if (import.meta.main) {
  const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
  const url = Deno.args.at(-1);
  const run = SCENARIOS[scenario];
  if (run === undefined || url === undefined) {
    logError(
      `usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance_client.ts <server-url>; scenarios: ${
        DRIVER_SCENARIOS.join(", ")
      }`,
    );
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

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
  EnterpriseAuthProvider,
  withDPoP,
  WorkloadIdentityProvider,
} from "@cleveragents/mcp-adapter/auth";
import {
  approveHeadlesslyRedirect,
  ConformanceOAuthProvider,
} from "./_conformance_auth.ts";
import {
  callTools,
  type Credentials,
  type Exercise,
  main,
  scenarios,
  type ScenarioTool,
  SDK_V1_CREDENTIALS,
} from "./_conformance_shared.ts";
import { logError } from "./_run.ts";

/** Each connect and call. */
const STEP_TIMEOUT_MS = 10_000;
/** Logins per step; `auth/scope-retry-limit` wants at most 3 authorization requests. */
const MAX_AUTHORIZATIONS = 3;
const CLIENT_INFO = { name: "mcp-adapter-conformance", version: "1.0.0" };
/** Answers to every kind of input a scenario server may ask for. */
const ALL_HANDLERS: NonNullable<MCPToolAdapterOptions["handlers"]> = {
  elicitation: () => ({ action: "accept", content: {} }),
  sampling: () => ({
    role: "assistant",
    content: { type: "text", text: "conformance" },
    model: "conformance-model",
    stopReason: "endTurn",
  }),
  roots: () => [{ uri: "file:///conformance", name: "conformance" }],
};

/** One connection under test, with its OAuth provider when it has one. */
interface Session {
  adapter: MCPToolAdapter;
  provider: ConformanceOAuthProvider | undefined;
}

function open(
  serverUrl: string,
  options: MCPToolAdapterOptions,
  headers?: Record<string, string>,
): Session {
  const adapter = new MCPToolAdapter(
    {
      name: "conformance",
      transport: "streamable-http",
      url: serverUrl,
      ...(headers === undefined ? {} : { headers }),
    },
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
      // The whole redirect: finishAuth() checks its iss (RFC 9207).
      const redirect = await approveHeadlesslyRedirect(
        error.authorizationUrl,
        session.provider?.expectedState,
      );
      await session.adapter.finishAuth(redirect);
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
async function exerciseSession(
  session: Session,
  tool?: ScenarioTool | "every",
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
    await callTools(tools, tool, async (call) => {
      const result = await authorized(
        session,
        `invoke("${call.name}")`,
        () => adapter.invoke(call.name, call.args),
        invokeFailure,
      );
      logError(`${call.name}: ${JSON.stringify(result.data)}`);
    });
  } finally {
    await adapter.disconnect();
  }
}

/** A scenario through MCPToolAdapter: its options become adapter options. */
const exercise: Exercise = (url, options, tool) => {
  if (options.headers !== undefined) {
    // Cross-app access: the token comes as a header, configured as a user would.
    return exerciseSession(open(url, {}, options.headers), tool);
  }
  return exerciseSession(
    open(url, {
      ...(options.authProvider === undefined
        ? {}
        : { authProvider: options.authProvider }),
      // Accept with nothing filled in: the adapter adds the schema defaults.
      ...(options.elicitation
        ? {
          handlers: { elicitation: () => ({ action: "accept", content: {} }) },
        }
        : {}),
      ...(options.allHandlers ? { handlers: ALL_HANDLERS } : {}),
    }),
    tool,
  );
};

/**
 * The SDK v1's `client_credentials` providers, the shared authorization-code
 * one, and this library's providers of the authorization extensions
 * (`@cleveragents/mcp-adapter/auth`), configured as a user would.
 */
const CREDENTIALS: Credentials = {
  ...SDK_V1_CREDENTIALS,
  extensions: {
    dpop: (provider) => withDPoP(provider),
    workloadIdentity: (clientId, assertion) =>
      new WorkloadIdentityProvider({ clientId, assertion }),
    enterprise: (context) =>
      new EnterpriseAuthProvider({
        clientId: context.client_id,
        clientSecret: context.client_secret,
        idToken: context.idp_id_token,
        idpTokenEndpoint: context.idp_token_endpoint,
        idpClientId: context.idp_client_id,
      }),
  },
};

const SCENARIOS = scenarios("mcp-adapter-conformance", exercise, CREDENTIALS);

/** The scenario names this driver knows, listed in its usage message. */
const DRIVER_SCENARIOS: readonly string[] = Object.keys(SCENARIOS);

if (import.meta.main) {
  await main(
    SCENARIOS,
    `usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance_client.ts <server-url>; scenarios: ${
      DRIVER_SCENARIOS.join(", ")
    }`,
  );
}

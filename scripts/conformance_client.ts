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
 * Authorization-code scenarios play the user headlessly: the suite's
 * authorization server approves at once and redirects to our redirect URI
 * with the code, so fetching the authorization URL without following
 * redirects yields the code, which `adapter.finishAuth(code)` exchanges.
 * `finishAuth` and `MCPAuthorizationRequiredError` (with `authorizationUrl`)
 * are feature-detected: without them those scenarios fail with a message
 * saying so.
 *
 * @module
 */

import {
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
/** Authorization rounds per step; `auth/scope-retry-limit` wants at most 3. */
const MAX_AUTHORIZATIONS = 3;
/** How long a call may stay pending after a redirect before we approve beside it. */
const PENDING_GRACE_MS = 500;
const CLIENT_INFO = { name: "mcp-adapter-conformance", version: "1.0.0" };

/** What `finishAuth` looks like once the library has it. */
type FinishAuth = (authorizationCode: string) => Promise<void>;

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

/** `adapter.finishAuth`, bound, when this version of the library has it. */
function finishAuthOf(adapter: MCPToolAdapter): FinishAuth | undefined {
  const candidate = (adapter as MCPToolAdapter & { finishAuth?: unknown })
    .finishAuth;
  return typeof candidate === "function"
    ? (code) => candidate.call(adapter, code)
    : undefined;
}

/** The `authorizationUrl` of an `MCPAuthorizationRequiredError`, if `error` is one. */
function authorizationUrlOf(error: unknown): URL | undefined {
  const url = (error as { authorizationUrl?: unknown } | null)
    ?.authorizationUrl;
  return url instanceof URL ? url : undefined;
}

type Outcome<T> = { value: T } | { error: unknown };

function settle<T>(promise: Promise<T>): Promise<Outcome<T>> {
  return promise.then((value) => ({ value }), (error) => ({ error }));
}

function sleep(ms: number): Promise<"timeout"> {
  return new Promise((resolve) => setTimeout(() => resolve("timeout"), ms));
}

/**
 * Runs `step`, completing authorization-code logins it runs into, up to
 * {@linkcode MAX_AUTHORIZATIONS} times. Two library designs are covered: a
 * step that fails once the user must authorize (rejects with
 * `MCPAuthorizationRequiredError`, or fails after the provider was sent to
 * the authorization page) is retried after `finishAuth`; a step that stays
 * pending is let through by calling `finishAuth` beside it.
 *
 * @param failure Says why a settled value counts as failed, or undefined.
 */
async function authorized<T>(
  session: Session,
  what: string,
  step: () => Promise<T>,
  failure: (value: T) => string | undefined = () => undefined,
): Promise<T> {
  const { adapter, provider } = session;
  for (let round = 0;; round++) {
    let redirected: (() => void) | undefined;
    const redirect = new Promise<"redirect">((resolve) =>
      redirected = () => resolve("redirect")
    );
    if (provider !== undefined) provider.onRedirect = () => redirected!();
    const running = settle(step());
    let outcome = await Promise.race([running, redirect]);
    let approvedBeside = false;
    if (outcome === "redirect") {
      const settled = await Promise.race([running, sleep(PENDING_GRACE_MS)]);
      if (settled === "timeout") {
        // The call waits for the login: approve while it is pending.
        await approve(session, undefined, round);
        approvedBeside = true;
        outcome = await running;
      } else outcome = settled;
    }
    if (provider !== undefined) provider.onRedirect = undefined;
    const problem = "error" in outcome ? outcome.error : failure(outcome.value);
    if (problem === undefined) return (outcome as { value: T }).value;
    const url = authorizationUrlOf(problem) ??
      (approvedBeside ? undefined : provider?.takeAuthorizationUrl());
    const reason = problem instanceof Error ? problem.message : String(problem);
    if (url === undefined) throw new Error(`${what} failed: ${reason}`);
    if (finishAuthOf(adapter) === undefined) {
      throw new Error(
        `${what} needs the user to authorize at the authorization server, and this version of the library has no finishAuth() to complete that (${reason})`,
      );
    }
    await approve(session, url, round);
  }
}

/** Plays the user at `url` (or the provider's last one) and hands the code to `finishAuth`. */
async function approve(
  session: Session,
  url: URL | undefined,
  round: number,
): Promise<void> {
  const { adapter, provider } = session;
  const finishAuth = finishAuthOf(adapter);
  const target = url ?? provider?.takeAuthorizationUrl();
  if (finishAuth === undefined || target === undefined) {
    throw new Error(
      "the client was sent to the authorization page, and this version of the library has no finishAuth() to complete that",
    );
  }
  if (round >= MAX_AUTHORIZATIONS) {
    throw new Error(
      `gave up after ${MAX_AUTHORIZATIONS} authorizations: the server keeps asking for more`,
    );
  }
  const code = await approveHeadlessly(target, provider?.expectedState);
  await finishAuth(code);
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

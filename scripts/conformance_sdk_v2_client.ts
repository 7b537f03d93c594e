/**
 * The second reference client for `scripts/conformance.ts`: the same
 * scenarios as `conformance_client.ts`, driven through the official SDK v2's
 * client (`@modelcontextprotocol/client` 2.x: `Client`,
 * `StreamableHTTPClientTransport`, its own `ClientCredentialsProvider` and
 * `PrivateKeyJwtProvider`), so the run can print the score of a client that
 * speaks MCP 2026-07-28 beside ours, measured the same way. Its score is
 * informative: it never fails a run.
 *
 * The client negotiates the era (`versionNegotiation: { mode: "auto" }`:
 * `server/discover` first, `initialize` when the server is a 2025 one), as
 * a client that speaks both would. Authorization-code logins follow the
 * SDK's documented pattern: a step rejects with `UnauthorizedError` after
 * the provider was sent to the authorization page; the driver fetches that
 * page (the suite approves at once and redirects), hands the redirect's
 * query to `transport.finishAuth()` (which checks RFC 9207 `iss` itself),
 * and connects again or retries the step.
 *
 * @module
 */

import {
  Client,
  ClientCredentialsProvider,
  type OAuthClientProvider,
  PrivateKeyJwtProvider,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { ConformanceOAuthProvider } from "./_conformance_auth.ts";
import {
  callTools,
  type Credentials,
  type Exercise,
  type ListedTool,
  main,
  type ScenarioOptions,
  scenarios,
} from "./_conformance_shared.ts";
import { logError } from "./_run.ts";

const MAX_AUTHORIZATIONS = 3;
/** Each connect and call. */
const STEP_TIMEOUT_MS = 10_000;
const CLIENT_INFO = { name: "sdk-v2-conformance", version: "1.0.0" };

/** The SDK v2's own providers; the authorization-code one is shared. */
const CREDENTIALS: Credentials<OAuthClientProvider> = {
  clientSecret: (clientId, clientSecret) =>
    new ClientCredentialsProvider({ clientId, clientSecret }),
  privateKeyJwt: (clientId, privateKey, algorithm) =>
    new PrivateKeyJwtProvider({ clientId, privateKey, algorithm }),
  // Written against the SDK v1's provider interface, which v2 keeps.
  authorizationCode: (options) => new ConformanceOAuthProvider(options),
};

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/**
 * Plays the user at the authorization page: fetches it without following
 * the redirect and returns the redirect's query (`code`, `state`, `iss`).
 */
async function approve(
  authorizationUrl: URL,
  expectedState: string | undefined,
): Promise<URLSearchParams> {
  const response = await fetch(authorizationUrl, {
    redirect: "manual",
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
  });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (location === null) {
    throw new Error(
      `the authorization endpoint answered HTTP ${response.status} without a redirect`,
    );
  }
  const query = new URL(location, authorizationUrl).searchParams;
  if (expectedState !== undefined && query.get("state") !== expectedState) {
    throw new Error("the authorization redirect carries the wrong state");
  }
  return query;
}

/** Completes one login the provider was sent to; false when it was not sent anywhere. */
async function login(
  provider: OAuthClientProvider | undefined,
  transport: StreamableHTTPClientTransport,
): Promise<boolean> {
  if (!(provider instanceof ConformanceOAuthProvider)) return false;
  const url = provider.takeAuthorizationUrl();
  if (url === undefined) return false;
  await transport.finishAuth(await approve(url, provider.expectedState));
  return true;
}

function newClient(options: ScenarioOptions<OAuthClientProvider>): Client {
  const answersInput = options.elicitation || options.allHandlers;
  const client = new Client(CLIENT_INFO, {
    capabilities: {
      ...(answersInput
        ? { elicitation: { form: { applyDefaults: true } } }
        : {}),
      ...(options.allHandlers ? { sampling: {}, roots: {} } : {}),
    },
    versionNegotiation: { mode: "auto" },
  });
  if (answersInput) {
    client.setRequestHandler(
      "elicitation/create",
      () => ({ action: "accept" as const, content: {} }),
    );
  }
  if (options.allHandlers) {
    client.setRequestHandler("sampling/createMessage", () => ({
      role: "assistant" as const,
      content: { type: "text" as const, text: "conformance" },
      model: "conformance-model",
      stopReason: "endTurn",
    }));
    client.setRequestHandler("roots/list", () => ({
      roots: [{ uri: "file:///conformance", name: "conformance" }],
    }));
  }
  return client;
}

async function connect(
  url: string,
  options: ScenarioOptions<OAuthClientProvider>,
): Promise<Connected> {
  for (let round = 0;; round++) {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      ...(options.authProvider === undefined
        ? {}
        : { authProvider: options.authProvider }),
      requestInit: { headers: options.headers ?? {} },
    });
    const client = newClient(options);
    try {
      await client.connect(transport, { timeout: STEP_TIMEOUT_MS });
      return { client, transport };
    } catch (error) {
      await client.close().catch(() => {});
      if (
        round >= MAX_AUTHORIZATIONS ||
        !await login(options.authProvider, transport)
      ) throw error;
    }
  }
}

/** Runs `step`; after a login it asked for, runs it again (bounded). */
async function authorized<T>(
  connected: Connected,
  provider: OAuthClientProvider | undefined,
  step: () => Promise<T>,
): Promise<T> {
  for (let round = 0;; round++) {
    try {
      return await step();
    } catch (error) {
      if (
        round >= MAX_AUTHORIZATIONS ||
        !await login(provider, connected.transport)
      ) throw error;
    }
  }
}

/** A scenario through the SDK v2's Client: connect (logging in when asked), list tools, call `tool`. */
const exercise: Exercise<OAuthClientProvider> = async (url, options, tool) => {
  const connected = await connect(url, options);
  try {
    logError(
      `era: ${connected.client.getProtocolEra()} ${connected.client.getNegotiatedProtocolVersion()}`,
    );
    const { tools } = await authorized<{ tools: ListedTool[] }>(
      connected,
      options.authProvider,
      () => connected.client.listTools(undefined, { timeout: STEP_TIMEOUT_MS }),
    );
    logError(`tools: ${tools.map((t) => t.name).join(", ")}`);
    await callTools(tools, tool, async (call) => {
      const result = await authorized(
        connected,
        options.authProvider,
        () =>
          connected.client.callTool(
            { name: call.name, arguments: call.args },
            { timeout: STEP_TIMEOUT_MS },
          ),
      );
      logError(`${call.name}: ${JSON.stringify(result)}`);
    });
  } finally {
    await connected.client.close();
  }
};

if (import.meta.main) {
  await main(
    scenarios("sdk-v2-conformance", exercise, CREDENTIALS),
    `usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance_sdk_v2_client.ts <server-url>`,
  );
}

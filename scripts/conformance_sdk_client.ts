/**
 * The reference client for `scripts/conformance.ts`: the same scenarios as
 * `conformance_client.ts`, driven through the MCP SDK's own `Client` and
 * `StreamableHTTPClientTransport` (its `authProvider`, `finishAuth`), so the
 * README can put the SDK's score beside ours, measured the same way. The
 * conformance package ships no client of its own (only `dist/`).
 *
 * Authorization-code logins follow the SDK's documented pattern: a call
 * that needs the user rejects with `UnauthorizedError` after the provider
 * was sent to the authorization page; the driver fetches that page (the
 * suite approves at once and redirects with the code), hands the code to
 * `transport.finishAuth()`, and connects again or retries the call.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
} from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  approveHeadlessly,
  CIMD_URL,
  conformanceContext,
  ConformanceOAuthProvider,
  crossAppAccessToken,
} from "./_conformance_auth.ts";
import { logError } from "./_run.ts";

const RUN_TIMEOUT_MS = 25_000;
const MAX_AUTHORIZATIONS = 3;
const CLIENT_INFO = { name: "sdk-conformance", version: "1.0.0" };

interface Options {
  authProvider?: OAuthClientProvider;
  headers?: Record<string, string>;
  elicitation?: boolean;
}

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/** Completes one login the provider was sent to; false when it was not sent anywhere. */
async function login(
  provider: OAuthClientProvider | undefined,
  transport: StreamableHTTPClientTransport,
): Promise<boolean> {
  if (!(provider instanceof ConformanceOAuthProvider)) return false;
  const url = provider.takeAuthorizationUrl();
  if (url === undefined) return false;
  await transport.finishAuth(
    await approveHeadlessly(url, provider.expectedState),
  );
  return true;
}

async function connect(url: string, options: Options): Promise<Connected> {
  for (let round = 0;; round++) {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      authProvider: options.authProvider,
      requestInit: { headers: options.headers ?? {} },
    });
    const client = new Client(CLIENT_INFO, {
      capabilities: options.elicitation
        ? { elicitation: { form: { applyDefaults: true } } }
        : {},
    });
    if (options.elicitation) {
      client.setRequestHandler(
        ElicitRequestSchema,
        () => ({ action: "accept" as const, content: {} }),
      );
    }
    try {
      await client.connect(transport);
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

async function exercise(
  url: string,
  options: Options,
  tool?: { name: string; args: Record<string, unknown> },
): Promise<void> {
  const connected = await connect(url, options);
  try {
    const { tools } = await authorized<{ tools: { name: string }[] }>(
      connected,
      options.authProvider,
      () => connected.client.listTools(),
    );
    logError(`tools: ${tools.map((t) => t.name).join(", ")}`);
    if (tool !== undefined) {
      const result = await authorized(
        connected,
        options.authProvider,
        () =>
          connected.client.callTool({ name: tool.name, arguments: tool.args }),
      );
      logError(`${tool.name}: ${JSON.stringify(result)}`);
    }
  } finally {
    await connected.client.close();
  }
}

const TEST_TOOL = { name: "test-tool", args: {} };

const SCENARIOS: Record<string, (url: string) => Promise<void>> = {
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
      authProvider: new ClientCredentialsProvider({
        clientId: context.client_id!,
        clientSecret: context.client_secret!,
      }),
    });
  },
  "auth/client-credentials-jwt": (url) => {
    const context = conformanceContext();
    return exercise(url, {
      authProvider: new PrivateKeyJwtProvider({
        clientId: context.client_id!,
        privateKey: context.private_key_pem!,
        algorithm: context.signing_algorithm ?? "ES256",
      }),
    });
  },
  "auth/cross-app-access-complete-flow": async (url) => {
    const token = await crossAppAccessToken(url, conformanceContext());
    await exercise(
      url,
      { headers: { Authorization: `Bearer ${token}` } },
      TEST_TOOL,
    );
  },
  "auth/pre-registration": (url) => {
    const context = conformanceContext();
    return exercise(url, {
      authProvider: new ConformanceOAuthProvider({
        clientName: "sdk-conformance",
        preRegistered: {
          client_id: context.client_id!,
          client_secret: context.client_secret!,
        },
      }),
    }, TEST_TOOL);
  },
};

for (
  const name of [
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
  ]
) {
  SCENARIOS[name] = (url) =>
    exercise(url, {
      authProvider: new ConformanceOAuthProvider({
        clientName: "sdk-conformance",
        clientMetadataUrl: CIMD_URL,
      }),
    }, TEST_TOOL);
}

if (import.meta.main) {
  const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
  const url = Deno.args.at(-1);
  const run = SCENARIOS[scenario];
  if (run === undefined || url === undefined) {
    logError(
      `usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance_sdk_client.ts <server-url>`,
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

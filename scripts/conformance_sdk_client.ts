/**
 * The reference client for `scripts/conformance.ts`: the same scenarios as
 * `conformance_client.ts`, driven through the MCP SDK's own `Client` and
 * `StreamableHTTPClientTransport` (its `authProvider`, `finishAuth`), so
 * docs/remote.md can put the SDK's score beside ours, measured the same way.
 * The conformance package ships no client of its own (only `dist/`).
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
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  approveHeadlessly,
  ConformanceOAuthProvider,
} from "./_conformance_auth.ts";
import {
  callTools,
  type Exercise,
  type ListedTool,
  main,
  type ScenarioOptions,
  scenarios,
} from "./_conformance_shared.ts";
import { logError } from "./_run.ts";

const MAX_AUTHORIZATIONS = 3;
const CLIENT_INFO = { name: "sdk-conformance", version: "1.0.0" };

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

async function connect(
  url: string,
  options: ScenarioOptions,
): Promise<Connected> {
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

/** A scenario through the SDK's Client: connect (logging in when asked), list tools, call `tool`. */
const exercise: Exercise = async (url, options, tool) => {
  const connected = await connect(url, options);
  try {
    const { tools } = await authorized<{ tools: ListedTool[] }>(
      connected,
      options.authProvider,
      () => connected.client.listTools(),
    );
    logError(`tools: ${tools.map((t) => t.name).join(", ")}`);
    await callTools(tools, tool, async (call) => {
      const result = await authorized(
        connected,
        options.authProvider,
        () =>
          connected.client.callTool({ name: call.name, arguments: call.args }),
      );
      logError(`${call.name}: ${JSON.stringify(result)}`);
    });
  } finally {
    await connected.client.close();
  }
};

if (import.meta.main) {
  await main(
    scenarios("sdk-conformance", exercise),
    `usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance_sdk_client.ts <server-url>`,
  );
}

/**
 * The library's OAuth flow against hostile and misconfigured authorization
 * servers, through `MCPToolAdapter` (`tests/_hostile_oauth.ts`; loopback
 * only). Every request goes through an injected `fetch` that refuses to
 * leave 127.0.0.1 and records where the client went, so "nothing was sent
 * there" is observed, not assumed.
 */
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import {
  MCPAuthorizationRequiredError,
  MCPConnectionError,
  MCPToolAdapter,
} from "@cleveragents/mcp-adapter";
import {
  type HostileOptions,
  startHostileOAuthServer,
} from "../_hostile_oauth.ts";
import {
  approveHeadlesslyRedirect,
  MemoryOAuthProvider,
  REDIRECT_URL,
} from "../_oauth_client.ts";

const TEST_TIMEOUT_MS = 60_000;
const CLIENT = { id: "agent", secret: "s3cret-client-value" };

type Server = Awaited<ReturnType<typeof startHostileOAuthServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fetch that never leaves the machine, and the URLs it was asked for. */
function loopbackFetch(): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      urls.push(url.href);
      if (url.hostname !== "127.0.0.1") {
        return Promise.reject(
          new Error(`test: ${url.href} would leave the machine`),
        );
      }
      return fetch(input, init);
    },
  };
}

async function serve(options: HostileOptions = {}): Promise<Server> {
  server = await startHostileOAuthServer({
    ...options,
    server: {
      clients: [{
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic",
      }],
      ...options.server,
    },
  });
  return server;
}

/** An adapter with client credentials (the secret goes to the token endpoint). */
function machineAdapter(fetched = loopbackFetch()) {
  const adapter = new MCPToolAdapter(
    { name: "hostile", transport: "streamable-http", url: server!.url },
    {
      fetch: fetched.fetch,
      authProvider: new ClientCredentialsProvider({
        clientId: CLIENT.id,
        clientSecret: CLIENT.secret,
      }),
      connectTimeoutMs: 20_000,
    },
  );
  return { adapter, fetched };
}

/** An adapter with a user's authorization-code login (the URL goes to the user). */
function userAdapter(fetched = loopbackFetch()) {
  const provider = new MemoryOAuthProvider();
  const adapter = new MCPToolAdapter(
    { name: "hostile", transport: "streamable-http", url: server!.url },
    { fetch: fetched.fetch, authProvider: provider, connectTimeoutMs: 20_000 },
  );
  return { adapter, provider, fetched };
}

const events = (kind: string) =>
  server!.events.filter((event) => event.kind === kind);

async function refused(
  connecting: Promise<unknown>,
  said: RegExp,
): Promise<MCPConnectionError> {
  const error = await connecting.then(
    () => assert.fail("connect() succeeded"),
    (error) => error,
  );
  assert.ok(error instanceof MCPConnectionError, String(error));
  assert.ok(!(error instanceof MCPAuthorizationRequiredError));
  assert.match(error.message, said);
  return error;
}

describe("OAuth against hostile authorization servers", {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  it("metadata whose issuer is not where it was fetched from is refused before any use", async () => {
    await serve({
      metadata: (document) => document.issuer = "https://attacker.example.com",
    });
    const machine = machineAdapter();
    await refused(machine.adapter.connect(), /RFC 8414 §3\.3/);
    assert.equal(events("token").length, 0, "the secret was not sent");
    const user = userAdapter();
    await refused(
      user.adapter.connect(),
      /says its issuer is "https:\/\/attacker\.example\.com"/,
    );
    assert.equal(user.provider.redirects.length, 0, "no URL for the user");
    assert.equal(events("register").length, 0);
  });

  it("metadata without PKCE S256 is refused before the user is sent anywhere", async () => {
    await serve({
      metadata: (document) => delete document.code_challenge_methods_supported,
    });
    const user = userAdapter();
    await refused(user.adapter.connect(), /does not advertise PKCE S256/);
    assert.equal(user.provider.redirects.length, 0);
  });

  for (
    const [what, options, said, adapter] of [
      [
        "a token endpoint on plain http of another host",
        {
          metadata: (document: Record<string, unknown>) =>
            document.token_endpoint = "http://evil.example/token",
        },
        /the token_endpoint "http:\/\/evil\.example\/token" is refused: it is plain http: on another machine/,
        "machine",
      ],
      [
        "an authorization server at the link-local metadata address",
        {
          resourceMetadata: (document: Record<string, unknown>) =>
            document.authorization_servers = ["http://169.254.169.254/"],
        },
        /authorization_servers in the resource metadata\) "http:\/\/169\.254\.169\.254\/" is refused: it points at a link-local or cloud-metadata address/,
        "machine",
      ],
      [
        "a registration endpoint file:",
        {
          metadata: (document: Record<string, unknown>) =>
            document.registration_endpoint = "file:///etc/passwd",
        },
        /the registration_endpoint "file:\/\/\/etc\/passwd" is refused/,
        "user",
      ],
      [
        "an authorization endpoint of a custom scheme",
        {
          metadata: (document: Record<string, unknown>) =>
            document.authorization_endpoint = "x-mcp-evil://run/calc",
        },
        /the authorization_endpoint "x-mcp-evil:\/\/run\/calc" is refused/,
        "user",
      ],
      [
        "an authorization endpoint on plain http of another host",
        {
          metadata: (document: Record<string, unknown>) =>
            document.authorization_endpoint = "http://evil.example/authorize",
        },
        /the authorization_endpoint "http:\/\/evil\.example\/authorize" is refused/,
        "user",
      ],
    ] as const
  ) {
    it(`${what}: nothing is fetched there or handed to the user, and the error names the URL and field`, async () => {
      await serve(options);
      const made = adapter === "machine"
        ? { ...machineAdapter(), provider: undefined }
        : userAdapter();
      await refused(made.adapter.connect(), said);
      for (const url of made.fetched.urls) {
        assert.equal(new URL(url).hostname, "127.0.0.1", url);
      }
      assert.equal(made.provider?.redirects.length ?? 0, 0);
      assert.equal(events("token").length, 0);
    });
  }

  it('a token of type "mac" is not sent as Bearer', async () => {
    await serve({ tokenResponse: (document) => document.token_type = "mac" });
    const { adapter } = machineAdapter();
    await refused(
      adapter.connect(),
      /a token of type "mac"; this client sends only Bearer tokens/,
    );
  });

  it("an issuer that is not text is named for what it is", async () => {
    // String() cannot call this toString.
    await serve({
      metadata: (document) => document.issuer = { toString: 1 },
    });
    const user = userAdapter();
    await refused(user.adapter.connect(), /says its issuer is "\[an object\]"/);
    assert.equal(user.provider.redirects.length, 0, "no URL for the user");
  });

  for (
    const [what, options, said] of [
      [
        "a token endpoint",
        {
          metadata: (document: Record<string, unknown>) =>
            document.token_endpoint = { toString: 1 },
        },
        /the token_endpoint "\[an object\]" is refused: it is not an absolute URL/,
      ],
      [
        "an authorization server",
        {
          resourceMetadata: (document: Record<string, unknown>) =>
            document.authorization_servers = [{ toString: 1 }],
        },
        /authorization_servers in the resource metadata\) "\[an object\]" is refused: it is not an absolute URL/,
      ],
    ] as const
  ) {
    it(`${what} that is not text is named for what it is`, async () => {
      // String() cannot call this toString.
      await serve(options);
      const { adapter, fetched } = machineAdapter();
      await refused(adapter.connect(), said);
      for (const url of fetched.urls) {
        assert.equal(new URL(url).hostname, "127.0.0.1", url);
      }
      assert.equal(events("token").length, 0);
    });
  }

  it("a token endpoint that never answers: the flow goes with its caller, and the next connect starts afresh", async () => {
    let hang = true;
    let held: ServerResponse | undefined;
    let reached!: () => void;
    const tokenAsked = new Promise<void>((resolve) => reached = resolve);
    await serve({
      token: (_req, res) => {
        if (!hang) return false;
        held = res; // never answered
        reached();
        return true;
      },
    });
    const { adapter } = machineAdapter();
    const abort = new AbortController();
    const first = adapter.connect({ signal: abort.signal });
    await tokenAsked;
    abort.abort(new Error("the caller gave up"));
    await assert.rejects(first);
    hang = false;
    await adapter.connect({ timeoutMs: 20_000 });
    assert.equal(adapter.connected, true);
    held?.destroy();
    await adapter.disconnect();
  });

  it("a token answer of 1 GB is cut off after a small cap, whatever its Content-Length says", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let written = 0;
    await serve({
      token: (_req, res) => {
        res.writeHead(200, {
          "content-type": "application/json",
          "content-length": String(1024 ** 3),
        });
        const pump = () => {
          while (written < 1024 ** 3 && !res.destroyed) {
            written += chunk.byteLength;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
        };
        res.on("close", () => written = Infinity);
        pump();
        return true;
      },
    });
    const { adapter } = machineAdapter();
    await refused(adapter.connect(), /is larger than 262144 bytes; refused/);
  });

  it("an MCP server that echoes the bearer token never gets it into a result or an error", async () => {
    let seenToken = "";
    await serve({
      mcp: (_req, res, body, token) => {
        const call = body as { id?: unknown; method?: string };
        if (call.method !== "tools/call") return false;
        seenToken = token;
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: call.id,
            error: { code: -32603, message: `bad token ${token} for you` },
          }),
        );
        return true;
      },
    });
    const { adapter } = machineAdapter();
    try {
      await adapter.connect();
      const result = await adapter.invoke("echo", { message: "hi" });
      assert.equal(result.success, false);
      assert.ok(seenToken.length > 8, result.error ?? "");
      assert.ok(!result.error!.includes(seenToken), result.error!);
      assert.match(result.error!, /bad token \[redacted\] for you/);
    } finally {
      await adapter.disconnect();
    }
  });
});

describe("finishAuth() given the redirect as a string", {
  timeout: TEST_TIMEOUT_MS,
}, () => {
  // The authorization server puts its issuer in the redirect (RFC 9207)
  // and says so, so a code alone is refused: only a redirect read as one
  // (its iss checked) logs in.
  const forms: Record<string, (redirect: URL) => string> = {
    "the whole redirect URL": (redirect) => redirect.href,
    "the whole redirect URL, pasted with spaces around": (redirect) =>
      `  ${redirect.href}\n`,
    "its query with the ?": (redirect) => redirect.search,
    "its query without the ?": (redirect) => redirect.search.slice(1),
  };
  for (const [form, write] of Object.entries(forms)) {
    it(`${form}: the code is exchanged after its iss is checked`, async () => {
      await serve({
        metadata: (document) =>
          document.authorization_response_iss_parameter_supported = true,
      });
      const { adapter, provider } = userAdapter();
      try {
        const required = await adapter.connect().then(
          () => assert.fail("connect() succeeded without a login"),
          (error) => error,
        );
        assert.ok(required instanceof MCPAuthorizationRequiredError);
        const params = await approveHeadlesslyRedirect(
          required.authorizationUrl,
          provider.expectedState,
        );
        assert.equal(params.get("iss"), server!.issuer);
        const redirect = new URL(`${REDIRECT_URL}?${params}`);
        await adapter.finishAuth(write(redirect));
        await adapter.connect();
        assert.equal(events("token").length, 1);
      } finally {
        await adapter.disconnect();
      }
    });
  }

  it("a bare code is still a code, and refused where the server sends iss", async () => {
    await serve({
      metadata: (document) =>
        document.authorization_response_iss_parameter_supported = true,
    });
    const { adapter, provider } = userAdapter();
    try {
      const required = await adapter.connect().catch((error) => error);
      assert.ok(required instanceof MCPAuthorizationRequiredError);
      const params = await approveHeadlesslyRedirect(
        required.authorizationUrl,
        provider.expectedState,
      );
      await assert.rejects(
        adapter.finishAuth(params.get("code")!),
        /finishAuth\(\) got only the code: pass it the whole redirect URL/,
      );
      assert.equal(events("token").length, 0);
    } finally {
      await adapter.disconnect();
    }
  });
});

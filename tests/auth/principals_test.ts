/**
 * One fleet, many users: logins are kept per principal (`tokenStoreAuth(store,
 * { principal })`), and a principal's calls carry only tokens of their own
 * login, also when every user's access token has expired and they refresh
 * at the same time; a principal without a login gets
 * `MCPAuthorizationRequiredError`, never somebody else's token. Against
 * the real OAuth servers of the tests (loopback), which record the token
 * of every MCP request and the login (token family) it came from.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  MCPAuthorizationRequiredError,
  MCPToolAdapter,
} from "@cleveragents/mcp-adapter";
import {
  MemoryTokenStore,
  tokenKey,
  tokenStoreAuth,
} from "@cleveragents/mcp-adapter/auth";
import { loginAt, startHostileOAuthServer } from "../_hostile_oauth.ts";

const CALLS = 4;

describe("principals", () => {
  it("a principal's calls carry only tokens of its own login, through refreshes", async () => {
    /** Every MCP call: whose it says it is, and the login its token is of. */
    const seen: { who: unknown; family: string | undefined }[] = [];
    const refused: string[] = [];
    let familyOf: (token: string) => string | undefined = () => undefined;
    const server = await startHostileOAuthServer({
      server: { revokeFamilyOnReuse: true },
      refused: (token) => refused.push(token),
      mcp: (_req, _res, body, token) => {
        const rpc = body as {
          method?: string;
          params?: { arguments?: { message?: unknown } };
        };
        if (rpc.method === "tools/call") {
          seen.push({
            who: rpc.params?.arguments?.message,
            family: familyOf(token),
          });
        }
        return false;
      },
    });
    familyOf = server.familyOf;
    const adapters: MCPToolAdapter[] = [];
    try {
      const store = new MemoryTokenStore();
      const families = new Map<string, string>();
      for (const principal of ["ada", "bob"]) {
        const login = await loginAt(server);
        families.set(principal, server.familyOf(login.tokens.access_token)!);
        await store.set(
          tokenKey({ resource: server.url, principal }),
          { ...login, generation: 1 },
        );
      }
      assert.notEqual(families.get("ada"), families.get("bob"));
      server.expireAccessTokens(); // both refresh at once on their first call

      const adapterOf = (principal: string) => {
        const entry = {
          config: {
            name: "notes",
            transport: "streamable-http" as const,
            url: server.url,
          },
          namespace: "notes",
          enabled: true,
          auth: { type: "oauth" as const },
        };
        const adapter = new MCPToolAdapter(entry.config, {
          authProvider: tokenStoreAuth(store, { principal })(entry),
        });
        adapters.push(adapter);
        return adapter;
      };
      const calls = ["ada", "bob"].map(async (principal) => {
        const adapter = adapterOf(principal);
        await adapter.connect();
        for (let call = 0; call < CALLS; call++) {
          const result = await adapter.invoke("echo", { message: principal });
          assert.equal(result.success, true, result.error ?? "");
        }
      });
      await Promise.all(calls);
      assert.equal(seen.length, 2 * CALLS);
      for (const { who, family } of seen) {
        assert.equal(family, families.get(String(who)), `a call of ${who}`);
      }
      for (const principal of ["ada", "bob"]) {
        const stored = await store.get(
          tokenKey({ resource: server.url, principal }),
        );
        assert.equal(stored?.generation, 2, `${principal} refreshed once`);
        assert.equal(
          server.familyOf(stored!.tokens!.access_token),
          families.get(principal),
        );
      }

      // Nobody's login is lent to a principal without one.
      refused.length = 0;
      const carol = adapterOf("carol");
      await assert.rejects(
        carol.connect(),
        (error) => error instanceof MCPAuthorizationRequiredError,
      );
      assert.deepEqual(refused, [""], "carol's request carried no token");
    } finally {
      await Promise.all(adapters.map((adapter) => adapter.disconnect()));
      await server.close();
    }
  });
});

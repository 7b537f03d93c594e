/**
 * What both conformance drivers share: the OAuth client provider they hand
 * to their client and the headless "user" (both from `tests/_oauth_client.ts`,
 * where the OAuth tests use them too), the scenario context, and the
 * cross-app access exchange that no client library implements yet.
 *
 * @module
 */

export {
  approveHeadlessly,
  approveHeadlesslyRedirect,
  MemoryOAuthProvider as ConformanceOAuthProvider,
} from "../tests/_oauth_client.ts";

/**
 * The client ID metadata document URL the conformance suite expects in
 * `auth/basic-cimd` (`CIMD_CLIENT_METADATA_URL` in the suite's
 * `basic-cimd.ts`); it never needs to resolve.
 */
export const CIMD_URL = "https://conformance-test.local/client-metadata.json";

/** The scenario's extra data (`MCP_CONFORMANCE_CONTEXT`), or `{}`. */
export function conformanceContext(): Record<string, string> {
  const raw = Deno.env.get("MCP_CONFORMANCE_CONTEXT");
  return raw === undefined ? {} : JSON.parse(raw);
}

/**
 * Cross-app access (SEP-990) without SDK support: discovers the MCP
 * server's authorization server, trades the IdP's ID token for an ID-JAG at
 * the IdP (RFC 8693), and the ID-JAG for an access token at the
 * authorization server (RFC 7523, client_secret_basic).
 *
 * @param serverUrl The MCP server.
 * @param context The scenario's context: IdP endpoint, ID token, client credentials.
 * @returns The access token.
 * @throws {Error} When a step fails; the message names the step.
 */
export async function crossAppAccessToken(
  serverUrl: string,
  context: Record<string, string>,
): Promise<string> {
  const json = async (what: string, response: Response) => {
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`${what} answered HTTP ${response.status}`);
    }
    return await response.json();
  };
  const timeout = () => AbortSignal.timeout(10_000);
  const prm = await json(
    "protected resource metadata",
    await fetch(
      new URL("/.well-known/oauth-protected-resource/mcp", serverUrl),
      {
        signal: timeout(),
      },
    ),
  );
  const as = await json(
    "authorization server metadata",
    await fetch(
      new URL(
        "/.well-known/oauth-authorization-server",
        prm.authorization_servers[0],
      ),
      { signal: timeout() },
    ),
  );
  const form = (fields: Record<string, string>) => new URLSearchParams(fields);
  const exchanged = await json(
    "the IdP token exchange",
    await fetch(context.idp_token_endpoint!, {
      method: "POST",
      body: form({
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
        audience: as.issuer,
        resource: prm.resource,
        subject_token: context.idp_id_token!,
        subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
        client_id: context.idp_client_id!,
      }),
      signal: timeout(),
    }),
  );
  const basic = btoa(
    `${encodeURIComponent(context.client_id!)}:${
      encodeURIComponent(context.client_secret!)
    }`,
  );
  const granted = await json(
    "the JWT bearer grant",
    await fetch(as.token_endpoint, {
      method: "POST",
      headers: { authorization: `Basic ${basic}` },
      body: form({
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion: exchanged.access_token,
      }),
      signal: timeout(),
    }),
  );
  return granted.access_token;
}

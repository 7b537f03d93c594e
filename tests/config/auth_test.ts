/**
 * `auth:` of a remote server beyond a user's login: the machine grants
 * (`workload-identity`, `enterprise-managed`) and `dpop`, read with their
 * `${VAR}`s replaced and their secrets declared, refused with a message
 * that says what to write; and `configAuth()`, which turns an entry into
 * its provider.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseConfig } from "@cleveragents/mcp-adapter/config";
import {
  configAuth,
  EnterpriseAuthProvider,
  WorkloadIdentityProvider,
} from "@cleveragents/mcp-adapter/auth";
import { configSecrets } from "../../src/util/redact.ts";
import { parseError, yaml } from "./_config_errors.ts";

const REMOTE = [
  "servers:",
  "  - name: a",
  "    transport: streamable-http",
  "    url: https://mcp.example.com/mcp",
];

function authOf(lines: string[], env: Record<string, string> = {}) {
  const { servers } = parseConfig(yaml([...REMOTE, ...lines]), "yaml", { env });
  return servers[0]!;
}

describe("parseConfig(): auth for machine clients", () => {
  it("reads workload-identity with the JWT from a variable, declared secret", () => {
    const entry = authOf([
      "    auth:",
      "      type: workload-identity",
      "      clientId: ${CLIENT}",
      "      assertion: ${WORKLOAD_JWT}",
      "      scopes: [tools]",
      "      expectedIssuer: https://auth.example.com",
      "      dpop: true",
    ], { CLIENT: "agent", WORKLOAD_JWT: "eyJ.jwt-from-env.sig" });
    assert.deepEqual(entry.auth, {
      type: "workload-identity",
      clientId: "agent",
      assertion: "eyJ.jwt-from-env.sig",
      scopes: ["tools"],
      expectedIssuer: "https://auth.example.com",
      dpop: true,
    });
    assert.ok(configSecrets(entry.config).includes("eyJ.jwt-from-env.sig"));
  });

  it("reads enterprise-managed with an ID token file, its secrets declared", () => {
    const entry = authOf([
      "    auth:",
      "      type: enterprise-managed",
      "      clientId: crm-agent",
      "      clientSecret: ${SECRET}",
      "      idpTokenEndpoint: https://login.example.com/oauth2/token",
      "      idpClientId: agent-at-idp",
      "      idpClientSecret: ${IDP_SECRET}",
      "      idTokenFile: /run/user/1000/id_token",
    ], { SECRET: "the-client-secret", IDP_SECRET: "the-idp-secret" });
    assert.deepEqual(entry.auth, {
      type: "enterprise-managed",
      clientId: "crm-agent",
      clientSecret: "the-client-secret",
      idpTokenEndpoint: "https://login.example.com/oauth2/token",
      idpClientId: "agent-at-idp",
      idpClientSecret: "the-idp-secret",
      idTokenFile: "/run/user/1000/id_token",
    });
    const secrets = configSecrets(entry.config);
    assert.ok(secrets.includes("the-client-secret"));
    assert.ok(secrets.includes("the-idp-secret"));
  });

  it("says what each kind needs, and which fields it takes", () => {
    const auth = (...lines: string[]) =>
      yaml([...REMOTE, "    auth:", ...lines.map((l) => `      ${l}`)]);
    parseError(auth("type: workload-identity", "assertion: x"), {
      path: "servers[0].auth",
      message: /type workload-identity needs clientId/,
    });
    parseError(auth("type: workload-identity", "clientId: a"), {
      path: "servers[0].auth",
      message: /needs assertion \(the token, e.g. \$\{VAR\}\) or assertionFile/,
    });
    parseError(
      auth(
        "type: workload-identity",
        "clientId: a",
        "assertion: x",
        "assertionFile: /t",
      ),
      { message: /takes assertion or assertionFile, not both/ },
    );
    parseError(
      auth(
        "type: workload-identity",
        "clientId: a",
        "assertion: x",
        "idToken: y",
      ),
      {
        path: "servers[0].auth",
        message:
          /type workload-identity takes only clientId, assertion, assertionFile, scopes, expectedIssuer, dpop/,
      },
    );
    parseError(auth("type: oauth", "dpop: true"), {
      message: /type oauth takes only clientId, scopes/,
    });
    parseError(
      auth(
        "type: enterprise-managed",
        "clientId: a",
        "idToken: t",
        "idpClientId: i",
      ),
      {
        message:
          /type enterprise-managed needs clientId, clientSecret, idpTokenEndpoint, idpClientId/,
      },
    );
    parseError(auth("type: basic"), {
      path: "servers[0].auth.type",
      message: /expected oauth, workload-identity or enterprise-managed/,
    });
    parseError(auth("type: workload-identity", "clientId: a", "asertion: x"), {
      path: "servers[0].auth.asertion",
      message: /did you mean "assertion"/,
    });
  });

  it("wants absolute token files and an http(s) identity provider endpoint, after ${VAR} replacement", () => {
    parseError(
      yaml([
        ...REMOTE,
        "    auth: { type: workload-identity, clientId: a, assertionFile: token.jwt }",
      ]),
      {
        path: "servers[0].auth.assertionFile",
        message: /must be an absolute path/,
      },
    );
    parseError(
      yaml([
        ...REMOTE,
        "    auth:",
        "      type: enterprise-managed",
        "      clientId: a",
        "      clientSecret: s",
        "      idpTokenEndpoint: ${IDP}",
        "      idpClientId: i",
        "      idToken: t",
      ]),
      {
        path: "servers[0].auth.idpTokenEndpoint",
        message: /expected an http\(s\) URL/,
      },
      { env: { IDP: "login.example.com/token" } },
    );
    parseError(
      yaml([
        ...REMOTE,
        "    auth: { type: workload-identity, clientId: a, assertion: '${UNSET}' }",
      ]),
      { path: "servers[0].auth.assertion", message: /UNSET/ },
    );
  });

  it('a ${VAR} that is set but empty breaks the non-empty rule as a literal "" does, at its line and column', () => {
    const auth = (value: string) =>
      yaml([
        ...REMOTE,
        "    auth:",
        "      type: workload-identity",
        "      clientId: agent",
        `      assertion: ${value}`,
      ]);
    const literal = parseError(auth("''"), {
      path: "servers[0].auth.assertion",
      message: /expected a non-empty string, got an empty string/,
    });
    const empty = parseError(auth("${EMPTY}"), {
      path: "servers[0].auth.assertion",
      message: /expected a non-empty string, got an empty string/,
    }, { env: { EMPTY: "" } });
    assert.equal(empty.line, literal.line);
    assert.equal(empty.column, literal.column);
    assert.equal(empty.file, "mcp.yaml");
  });
});

describe("configAuth()", () => {
  it("builds the provider an entry's auth names, once per entry; none for oauth or no auth", () => {
    const { servers } = parseConfig(
      yaml([
        "servers:",
        "  - name: wif",
        "    transport: streamable-http",
        "    url: https://a.example.com/mcp",
        "    auth: { type: workload-identity, clientId: a, assertion: eyJ.x.y, dpop: true }",
        "  - name: ema",
        "    transport: sse",
        "    url: https://b.example.com/sse",
        "    auth:",
        "      type: enterprise-managed",
        "      clientId: a",
        "      clientSecret: s",
        "      idpTokenEndpoint: https://idp.example.com/token",
        "      idpClientId: i",
        "      idToken: t",
        "  - name: login",
        "    transport: streamable-http",
        "    url: https://c.example.com/mcp",
        "    auth: oauth",
        "  - name: open",
        "    transport: streamable-http",
        "    url: https://d.example.com/mcp",
      ]),
      "yaml",
    );
    const [wif, ema, login, open] = servers;
    const provider = configAuth(wif!);
    assert.ok(provider instanceof WorkloadIdentityProvider);
    assert.equal(typeof provider.dpop, "function", "dpop: true");
    assert.equal(configAuth(wif!), provider, "the same provider for the entry");
    assert.ok(configAuth(ema!) instanceof EnterpriseAuthProvider);
    assert.equal(configAuth(login!), undefined);
    assert.equal(configAuth(open!), undefined);
  });
});

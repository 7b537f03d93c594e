/**
 * What a stdio server inherits: the allow-list (what every program needs,
 * the CA and proxy variables, where caches live) and what `inheritEnv`
 * adds, exact or by prefix; nothing else of the parent's environment.
 * Pinned as pure functions of a fake parent (every entry of the lists,
 * both platforms), and end to end through a real child that reports its
 * environment (tests/fixtures/env.mjs).
 */

import assert from "node:assert/strict";
import process from "node:process";
import { after, describe, it } from "node:test";
import { StdioTransport } from "@cleveragents/mcp-adapter";
import type { JSONRPCMessage } from "@cleveragents/mcp-adapter";
import {
  NETWORK_ENV_KEYS,
  type ParentEnvironment,
  POSIX_ENV_KEYS,
  POSIX_NETWORK_ENV_KEYS,
  posixChildEnvironment,
} from "../../src/util/child_env.ts";
import { windowsChildEnvironment } from "../../src/util/windows.ts";
import { fixturePath, runtimeCommand } from "../_helpers.ts";

const TEST_TIMEOUT_MS = 30_000;
const isWindows = process.platform === "win32";

/** A parent environment made of `vars`; `listable: false` hides the names (a narrow --allow-env). */
function parentOf(
  vars: Record<string, string>,
  { listable = true, ignoreCase = false } = {},
): ParentEnvironment {
  return {
    getEnv: (name) =>
      ignoreCase
        ? Object.entries(vars).find(([key]) =>
          key.toUpperCase() === name.toUpperCase()
        )?.[1]
        : vars[name],
    envNames: () => listable ? Object.keys(vars) : undefined,
  };
}

/** What a machine behind a TLS-inspecting proxy has, and secrets beside it. */
const COMPANY_LAPTOP: Record<string, string> = {
  PATH: "/usr/bin",
  HOME: "/home/ada",
  NODE_EXTRA_CA_CERTS: "/etc/ssl/corp-ca.pem",
  NODE_USE_SYSTEM_CA: "1",
  SSL_CERT_FILE: "/etc/ssl/certs/ca-certificates.crt",
  SSL_CERT_DIR: "/etc/ssl/certs",
  REQUESTS_CA_BUNDLE: "/etc/ssl/certs/ca-certificates.crt",
  CURL_CA_BUNDLE: "/etc/ssl/certs/ca-certificates.crt",
  DENO_CERT: "/etc/ssl/corp-ca.pem",
  DENO_TLS_CA_STORE: "mozilla,system",
  UV_NATIVE_TLS: "1",
  HTTP_PROXY: "http://proxy.corp:3128",
  HTTPS_PROXY: "http://ada:s3cr3t-proxy-pw@proxy.corp:3128",
  ALL_PROXY: "socks5://proxy.corp:1080",
  NO_PROXY: "localhost,127.0.0.1,.corp",
  http_proxy: "http://proxy.corp:3128",
  https_proxy: "http://proxy.corp:3128",
  all_proxy: "socks5://proxy.corp:1080",
  no_proxy: "localhost,127.0.0.1",
  NPM_CONFIG_REGISTRY: "https://npm.corp/",
  npm_config_registry: "https://npm.corp/",
  NPM_CONFIG_CACHE: "/home/ada/.npm",
  npm_config_cache: "/home/ada/.npm",
  DENO_DIR: "/home/ada/.cache/deno",
  UV_CACHE_DIR: "/home/ada/.cache/uv",
  XDG_CACHE_HOME: "/home/ada/.cache",
  XDG_CONFIG_HOME: "/home/ada/.config",
  XDG_DATA_HOME: "/home/ada/.local/share",
  XDG_STATE_HOME: "/home/ada/.local/state",
  // Never passed on unless a config asks.
  OPENAI_API_KEY: "sk-do-not-leak",
  AWS_SECRET_ACCESS_KEY: "aws-do-not-leak",
  AWS_REGION: "eu-north-1",
  GITHUB_TOKEN: "ghp-do-not-leak",
  NODE_OPTIONS: "--require /tmp/evil.js",
};

describe("the environment a stdio server inherits (POSIX)", () => {
  it("holds the CA, proxy (both cases) and cache variables, and no secret", () => {
    const { env, warnings, secrets } = posixChildEnvironment(
      parentOf(COMPANY_LAPTOP),
      undefined,
    );
    assert.deepEqual(warnings, []);
    for (
      const name of [
        ...NETWORK_ENV_KEYS,
        ...POSIX_NETWORK_ENV_KEYS,
        "PATH",
        "HOME",
      ]
    ) {
      assert.equal(env[name], COMPANY_LAPTOP[name], name);
    }
    for (
      const name of [
        "OPENAI_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_REGION",
        "GITHUB_TOKEN",
        "NODE_OPTIONS",
      ]
    ) {
      assert.equal(env[name], undefined, name);
    }
    // The proxy's password reaches the server, and is kept out of messages.
    assert.ok(secrets.includes("s3cr3t-proxy-pw"), secrets.join(", "));
    assert.ok(!secrets.includes("/etc/ssl/corp-ca.pem"));
  });

  it("adds what inheritEnv names, exact or by prefix, and masks those values", () => {
    const { env, secrets } = posixChildEnvironment(
      parentOf(COMPANY_LAPTOP),
      { AWS_REGION: "us-east-1" },
      ["GITHUB_TOKEN", "AWS_*", "NOT_SET_ANYWHERE"],
    );
    assert.equal(env.GITHUB_TOKEN, "ghp-do-not-leak");
    assert.equal(env.AWS_SECRET_ACCESS_KEY, "aws-do-not-leak");
    assert.equal(env.AWS_REGION, "us-east-1", "the config's env wins");
    assert.equal(env.OPENAI_API_KEY, undefined);
    assert.equal("NOT_SET_ANYWHERE" in env, false);
    assert.ok(secrets.includes("ghp-do-not-leak"));
    assert.ok(secrets.includes("aws-do-not-leak"));
  });

  it("never passes a shell function, and says when a prefix cannot be matched", () => {
    const { env, warnings } = posixChildEnvironment(
      parentOf(
        { PATH: "/bin", HTTPS_PROXY: "() { :; }; curl evil", AWS_REGION: "x" },
        { listable: false },
      ),
      undefined,
      ["AWS_*"],
    );
    assert.equal(env.HTTPS_PROXY, undefined);
    assert.equal(env.AWS_REGION, undefined);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /"AWS_\*" matched nothing.*--allow-env/);
  });

  it("keeps the base list small: what every program needs, then the network", () => {
    assert.deepEqual(POSIX_ENV_KEYS, [
      "HOME",
      "LOGNAME",
      "PATH",
      "SHELL",
      "TERM",
      "USER",
      "LANG",
      "LC_ALL",
      "LC_CTYPE",
      "TMPDIR",
      "TZ",
    ]);
    for (const name of [...NETWORK_ENV_KEYS, ...POSIX_NETWORK_ENV_KEYS]) {
      assert.doesNotMatch(name, /TOKEN|SECRET|KEY|PASSWORD|AUTH|OPTIONS/, name);
    }
  });
});

describe("the environment a stdio server inherits (Windows)", () => {
  it("holds the network and cache variables, matched case-insensitively, and inheritEnv", () => {
    const parent = {
      SystemRoot: "C:\\Windows",
      Path: "C:\\Windows",
      https_proxy: "http://proxy.corp:3128",
      Node_Extra_CA_Certs: "C:\\corp-ca.pem",
      DENO_DIR: "C:\\cache\\deno",
      Aws_Region: "eu-north-1",
      GITHUB_TOKEN: "ghp-do-not-leak",
    };
    const { names } = { names: Object.keys(parent) };
    const { env, warnings } = windowsChildEnvironment(
      parentOf(parent, { ignoreCase: true }).getEnv,
      undefined,
      { inherit: ["AWS_*"], envNames: () => names },
    );
    assert.deepEqual(warnings, []);
    assert.equal(env.HTTPS_PROXY, "http://proxy.corp:3128");
    assert.equal(env.NODE_EXTRA_CA_CERTS, "C:\\corp-ca.pem");
    assert.equal(env.DENO_DIR, "C:\\cache\\deno");
    assert.equal(env.Aws_Region, "eu-north-1");
    assert.equal(env.GITHUB_TOKEN, undefined);
  });
});

describe("a real stdio server's environment", {
  skip: isWindows && "POSIX names (Windows: windows_live_test.ts)",
}, () => {
  const transports: StdioTransport[] = [];
  after(async () => {
    await Promise.all(transports.map((transport) => transport.close()));
  });

  /** Starts env.mjs, which writes the variables `echo` names to stderr; resolves with its environment. */
  async function childEnv(
    options: { inheritEnv?: string[]; env?: Record<string, string> },
    echo: string[] = [],
  ): Promise<{ env: Record<string, string>; transport: StdioTransport }> {
    const { command, args } = runtimeCommand(fixturePath("env.mjs"));
    const transport = new StdioTransport({
      command,
      args: [...args, ...echo],
      closeTimeoutMs: 1000,
      ...options,
    });
    transports.push(transport);
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    const message = new Promise<JSONRPCMessage>((resolve) => {
      transport.onmessage = resolve;
    });
    await transport.start();
    const report = await message as { params: Record<string, string> };
    await closed; // its stderr is read to the end by then
    return { env: report.params, transport };
  }

  /** Sets variables of this process for the length of `run`. */
  async function withVars<T>(
    vars: Record<string, string>,
    run: () => Promise<T>,
  ): Promise<T> {
    const saved = Object.keys(vars).map((name) => [name, process.env[name]]);
    Object.assign(process.env, vars);
    try {
      return await run();
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name!];
        else process.env[name!] = value;
      }
    }
  }

  it(
    "gets the CA bundle and cache folders of this process, and what inheritEnv names",
    {
      timeout: TEST_TIMEOUT_MS,
    },
    async () => {
      // Variables neither Deno nor Node read for themselves: setting them
      // here changes nothing for the tests running beside this one.
      const vars = {
        REQUESTS_CA_BUNDLE: "/etc/ssl/mcp-test-ca.pem",
        CURL_CA_BUNDLE: "/etc/ssl/mcp-test-ca.pem",
        UV_CACHE_DIR: "/tmp/mcp-test-uv-cache",
        MCP_TEST_TOKEN: "mcp-test-do-not-leak-1",
        MCP_TEST_PREFIX_ONE: "one-9f2c7a1b",
        MCP_TEST_PREFIX_TWO: "two-9f2c7a1b",
        MCP_TEST_OTHER: "other",
      };
      const { env, transport } = await withVars(
        vars,
        () =>
          childEnv(
            { inheritEnv: ["MCP_TEST_TOKEN", "MCP_TEST_PREFIX_*"] },
            ["MCP_TEST_TOKEN", "MCP_TEST_PREFIX_ONE", "UV_CACHE_DIR"],
          ),
      );
      assert.equal(env.REQUESTS_CA_BUNDLE, vars.REQUESTS_CA_BUNDLE);
      assert.equal(env.CURL_CA_BUNDLE, vars.CURL_CA_BUNDLE);
      assert.equal(env.UV_CACHE_DIR, vars.UV_CACHE_DIR);
      assert.equal(env.MCP_TEST_TOKEN, vars.MCP_TEST_TOKEN);
      assert.equal(env.MCP_TEST_PREFIX_ONE, vars.MCP_TEST_PREFIX_ONE);
      assert.equal(env.MCP_TEST_PREFIX_TWO, vars.MCP_TEST_PREFIX_TWO);
      assert.equal(env.MCP_TEST_OTHER, undefined);
      // What inheritEnv brought is masked like env's values; paths are not.
      const tail = transport.stderrTail.join("\n");
      assert.ok(!tail.includes("mcp-test-do-not-leak-1"), tail);
      assert.ok(!tail.includes("one-9f2c7a1b"), tail);
      assert.match(tail, /UV_CACHE_DIR=\/tmp\/mcp-test-uv-cache/);
    },
  );
});

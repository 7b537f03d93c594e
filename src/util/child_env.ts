/**
 * What a stdio server inherits from the process that starts it: a short,
 * documented allow-list, never the whole environment (a host's API keys
 * stay with the host). Besides what every program needs (`PATH`, `HOME`,
 * locale), the list holds what makes the network work on a company
 * machine — the CA bundle and the proxy — and where caches live, so an
 * `npx -y …` or `deno run npm:…` server can download itself through a
 * TLS-inspecting proxy and reuse what is cached. None of it is a secret by
 * nature; a proxy URL may carry a password, which is passed on (the server
 * needs it) and masked in every message. A server config adds names with
 * `inheritEnv` (exact, or `PREFIX_*`). docs/runtimes.md lists each entry
 * and why it is there. Loaded with the process backend. Internal.
 *
 * @module
 */

import { type NamedValue, secretsOf } from "./redact.ts";

/** The parent's environment, as the allow-list reads it. */
export interface ParentEnvironment {
  /** One variable; `undefined` when unset or not permitted. */
  getEnv(name: string): string | undefined;
  /**
   * Every variable's name (for `PREFIX_*` patterns), or `undefined` when
   * listing them is not permitted (Deno without a full `--allow-env`).
   */
  envNames(): readonly string[] | undefined;
}

/** A child's environment, and what the caller should be warned of. */
export interface ChildEnvironment {
  /** The whole environment of the child. */
  env: Record<string, string>;
  /** Warnings, e.g. that `SYSTEMROOT` could not be read. */
  warnings: string[];
  /**
   * Inherited values to keep out of messages: what `inheritEnv` named, and
   * the password of a proxy URL.
   */
  secrets: string[];
}

/** What every program needs on POSIX: the SDK's `getDefaultEnvironment()` list and locale. */
export const POSIX_ENV_KEYS: readonly string[] = [
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
];

/**
 * What makes the network work and where caches live, on every platform
 * (upper case: Windows matches names case-insensitively). Each is a path,
 * a URL or a switch; docs/runtimes.md says why each is here.
 */
export const NETWORK_ENV_KEYS: readonly string[] = [
  // Extra CA certificates: Node.js (npm, npx) and Deno read this one.
  "NODE_EXTRA_CA_CERTS",
  // Node.js ≥ 23.8: trust the operating system's certificate store.
  "NODE_USE_SYSTEM_CA",
  // OpenSSL's and rustls' bundle: Python, curl, git, uv, Go, Rust programs.
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  // Python's requests and curl's own bundle variables.
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  // Deno: a CA file, and which stores to trust ("system" for the OS's).
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  // uv (uvx): use the operating system's certificates.
  "UV_NATIVE_TLS",
  // The proxy, read by npm, Deno, Python, curl, Go and most HTTP clients.
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  // A company npm mirror.
  "NPM_CONFIG_REGISTRY",
  // Where downloads are cached: npm/npx, Deno, uv.
  "NPM_CONFIG_CACHE",
  "DENO_DIR",
  "UV_CACHE_DIR",
];

/**
 * POSIX spellings beside {@linkcode NETWORK_ENV_KEYS}: the lower-case proxy
 * variables (curl reads only `http_proxy` in lower case), npm's own
 * lower-case config variables, and the XDG base folders (caches, configs).
 */
export const POSIX_NETWORK_ENV_KEYS: readonly string[] = [
  "http_proxy",
  "https_proxy",
  "all_proxy",
  "no_proxy",
  "npm_config_registry",
  "npm_config_cache",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
];

/** Whether a value may be passed on: `() {` starts an exported bash function, a code-injection vector. */
export function passable(value: string | undefined): value is string {
  return value !== undefined && !value.startsWith("()");
}

/**
 * The names `patterns` select among the parent's variables: exact names as
 * they are, `PREFIX_*` matched against every name (case-insensitively on
 * Windows). A prefix needs the list of names; when it cannot be read the
 * warning says so.
 *
 * @param parent The parent's environment.
 * @param patterns The `inheritEnv` entries.
 * @param ignoreCase Whether names match case-insensitively (Windows).
 * @returns The names, and a warning when a prefix could not be matched.
 */
export function inheritedNames(
  parent: ParentEnvironment,
  patterns: readonly string[] | undefined,
  ignoreCase = false,
): { names: string[]; warnings: string[] } {
  const names: string[] = [];
  const prefixes: string[] = [];
  for (const pattern of patterns ?? []) {
    if (pattern.endsWith("*")) prefixes.push(pattern.slice(0, -1));
    else names.push(pattern);
  }
  if (prefixes.length === 0) return { names, warnings: [] };
  const all = parent.envNames();
  if (all === undefined) {
    return {
      names,
      warnings: [
        `inheritEnv ${
          prefixes.map((prefix) => `"${prefix}*"`).join(", ")
        } matched nothing: this process may not list its environment (with Deno, grant --allow-env without a list of names); name the variables instead`,
      ],
    };
  }
  const fold = (text: string) => ignoreCase ? text.toUpperCase() : text;
  const wanted = prefixes.map(fold);
  for (const name of all) {
    if (wanted.some((prefix) => fold(name).startsWith(prefix))) {
      names.push(name);
    }
  }
  return { names, warnings: [] };
}

/**
 * The values to mask among inherited ones: those `inheritEnv` asked for (a
 * user passes their own secrets that way), and the password of a URL (a
 * proxy's `http://user:password@host`).
 *
 * @param inherited Every inherited variable, by name.
 * @param chosen The names `inheritEnv` selected.
 * @returns The secrets, longest first.
 */
export function inheritedSecrets(
  inherited: Readonly<Record<string, string>>,
  chosen: readonly string[],
): string[] {
  const named: NamedValue[] = [];
  for (const [name, value] of Object.entries(inherited)) {
    if (chosen.includes(name)) named.push([name, value]);
    if (!value.includes("@")) continue;
    try {
      const password = decodeURIComponent(new URL(value).password);
      if (password !== "") named.push(["password", password]);
    } catch {
      // Not a URL with credentials.
    }
  }
  return secretsOf(named);
}

/**
 * The child's whole environment on POSIX: the allow-listed variables of the
 * parent ({@linkcode POSIX_ENV_KEYS}, {@linkcode NETWORK_ENV_KEYS},
 * {@linkcode POSIX_NETWORK_ENV_KEYS}) and those `inherit` names, then
 * `extra` (the config's `env`), which wins.
 *
 * @param parent The parent's environment.
 * @param extra The config's variables.
 * @param inherit The config's `inheritEnv` entries.
 * @returns The environment, warnings and the inherited values to mask.
 */
export function posixChildEnvironment(
  parent: ParentEnvironment,
  extra: Readonly<Record<string, string>> | undefined,
  inherit?: readonly string[],
): ChildEnvironment {
  const { names, warnings } = inheritedNames(parent, inherit);
  const env: Record<string, string> = {};
  for (
    const key of [
      ...POSIX_ENV_KEYS,
      ...NETWORK_ENV_KEYS,
      ...POSIX_NETWORK_ENV_KEYS,
      ...names,
    ]
  ) {
    const value = parent.getEnv(key);
    if (passable(value)) env[key] = value;
  }
  const secrets = inheritedSecrets(env, names);
  return {
    env: extra === undefined ? env : Object.assign(env, extra),
    warnings,
    secrets,
  };
}

/** A process backend, as far as the child's environment needs it. */
export interface EnvironmentHost extends ParentEnvironment {
  /** The Windows decisions, on Windows only. */
  readonly windows?: {
    windowsChildEnvironment(
      getEnv: (name: string) => string | undefined,
      extra: Readonly<Record<string, string>> | undefined,
      options?: {
        inherit?: readonly string[] | undefined;
        envNames?: () => readonly string[] | undefined;
      },
    ): ChildEnvironment;
  } | undefined;
}

/**
 * The child's whole environment: on Windows the Windows list, merged
 * case-insensitively (`windowsChildEnvironment()` in `windows.ts`), else
 * {@linkcode posixChildEnvironment}.
 *
 * @param host The process backend.
 * @param extra The config's `env`.
 * @param inherit The config's `inheritEnv`.
 * @returns The environment, warnings and the inherited values to mask.
 */
export function childEnvironment(
  host: EnvironmentHost,
  extra: Readonly<Record<string, string>> | undefined,
  inherit: readonly string[] | undefined,
): ChildEnvironment {
  if (host.windows !== undefined) {
    return host.windows.windowsChildEnvironment(
      (name) => host.getEnv(name),
      extra,
      { inherit, envNames: () => host.envNames() },
    );
  }
  return posixChildEnvironment(host, extra, inherit);
}

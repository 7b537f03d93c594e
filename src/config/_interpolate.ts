/**
 * Internal: `${VAR}` / `${VAR:-default}` interpolation in config strings,
 * VS Code's `${workspaceFolder}`, `${userHome}` and `${input:id}`, and the
 * lazy default environment.
 *
 * Grammar: `${NAME}` is the variable's value and an error when it is unset;
 * `${NAME:-default}` is the default when the variable is unset or empty (the
 * default runs to the first `}` and is not interpolated again); `${env:NAME}`
 * (VS Code's spelling) is `${NAME}`; `$${` is a literal `${`. NAME is letters,
 * digits and `_`, not starting with a digit. `${workspaceFolder}`,
 * `${userHome}` and `${input:ID}` are VS Code's variables (so an environment
 * variable named `workspaceFolder` is written `${env:workspaceFolder}`). A
 * `$` not followed by `{` is literal. Messages name variables, never their
 * values.
 *
 * @module
 */

import { setOwn } from "../util/values.ts";
import { ConfigProblem, type Path } from "../util/problem.ts";

/** Looks up one environment variable; `undefined` when it is unset. */
export type EnvLookup = (name: string) => string | undefined;

/** Thrown by an {@linkcode EnvLookup} that may not read the environment. */
export class EnvAccessDenied extends Error {
  /**
   * Creates the error.
   *
   * @param hint How to grant access, e.g. `run deno with --allow-env`.
   */
  constructor(hint: string) {
    super(hint);
    this.name = "EnvAccessDenied";
  }
}

const REFERENCE = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^]*))?$/;
const INPUT = "input:";

/** What `${…}` references resolve against. */
export interface Variables {
  /** Environment variables, for `${NAME}` and `${env:NAME}`. */
  env: EnvLookup;
  /**
   * `${workspaceFolder}`: the folder, or why there is none (continues "uses
   * ${workspaceFolder}, ").
   */
  workspaceFolder: string | { missing: string };
  /** `${userHome}` when given explicitly; else `HOME`, then `USERPROFILE`. */
  userHome?: string;
  /**
   * `${input:id}`: the value, or why there is none (continues "uses
   * ${input:id}, ").
   */
  input(id: string): string | { missing: string };
}

/**
 * Builds the lookup for `options.env`, or for the process environment when
 * none is given. The process environment is read one variable at a time, on
 * first use, so a file without variables needs no env permission (and Deno's
 * `--allow-env=NAME` is enough for the variables a file uses).
 *
 * @param env Variables to use instead of the process environment.
 * @returns The lookup.
 */
export function envLookup(env?: Record<string, string | undefined>): EnvLookup {
  if (env !== undefined) {
    return (name) => Object.hasOwn(env, name) ? env[name] : undefined;
  }
  return processEnvLookup;
}

interface DenoEnv {
  env: { get(name: string): string | undefined };
}

function processEnvLookup(name: string): string | undefined {
  const deno = (globalThis as { Deno?: DenoEnv }).Deno;
  if (deno !== undefined) {
    try {
      return deno.env.get(name);
    } catch {
      throw new EnvAccessDenied(
        `Deno may not read it; run deno with --allow-env or --allow-env=${name}`,
      );
    }
  }
  const process = (globalThis as {
    process?: { env?: Record<string, string | undefined> };
  }).process;
  const env = process?.env;
  return env !== undefined && Object.hasOwn(env, name) ? env[name] : undefined;
}

/**
 * Whether a string needs {@linkcode interpolate} at all.
 *
 * @param value A config string.
 * @returns `true` when it contains `${`.
 */
export function hasReference(value: string): boolean {
  return value.includes("${");
}

/**
 * Replaces the variable references in one config string.
 *
 * @param value The string as written in the file.
 * @param vars Where variables come from.
 * @param path Where the string is, for messages.
 * @returns The string with every reference replaced.
 * @throws {ConfigProblem} When a variable is unset and has no default, an
 * input or the workspace folder has no value, a reference is malformed or
 * unclosed, or the environment may not be read.
 */
export function interpolate(
  value: string,
  vars: Variables,
  path: Path,
): string {
  if (!hasReference(value)) return value;
  let result = "";
  let index = 0;
  while (index < value.length) {
    const dollar = value.indexOf("$", index);
    if (dollar === -1) break;
    result += value.slice(index, dollar);
    if (value.startsWith("$${", dollar)) {
      result += "${";
      index = dollar + 3;
      continue;
    }
    if (value[dollar + 1] !== "{") {
      result += "$";
      index = dollar + 1;
      continue;
    }
    const close = value.indexOf("}", dollar + 2);
    if (close === -1) {
      throw new ConfigProblem(
        path,
        'has a "${" without a closing "}"; close it, or write "$${" for a literal "${"',
      );
    }
    const reference = value.slice(dollar + 2, close);
    result += resolve(reference, vars, path);
    index = close + 1;
  }
  return result + value.slice(index);
}

function resolve(reference: string, vars: Variables, path: Path): string {
  const uses = `uses \${${reference}}, `;
  if (reference === "workspaceFolder") {
    const folder = vars.workspaceFolder;
    if (typeof folder === "string") return folder;
    throw new ConfigProblem(path, uses + folder.missing, {
      continuesPath: true,
    });
  }
  if (reference === "userHome") return userHome(vars, path);
  if (reference.startsWith(INPUT)) {
    const value = vars.input(reference.slice(INPUT.length));
    if (typeof value === "string") return value;
    throw new ConfigProblem(path, uses + value.missing, {
      continuesPath: true,
    });
  }
  const match = REFERENCE.exec(reference);
  if (match === null) {
    throw new ConfigProblem(
      path,
      `uses \${${reference}}, which is not a variable reference this loader understands; write \${NAME} or \${NAME:-default} (NAME made of letters, digits and _), \${workspaceFolder}, \${userHome} or \${input:ID}, or "$\${" for a literal "\${"`,
      { continuesPath: true },
    );
  }
  const name = match[1]!;
  const fallback = match[2];
  let found: string | undefined;
  try {
    found = vars.env(name);
  } catch (error) {
    if (!(error instanceof EnvAccessDenied)) throw error;
    if (fallback !== undefined) return fallback;
    throw new ConfigProblem(
      path,
      `uses \${${name}}, which cannot be read: ${error.message}`,
      { continuesPath: true },
    );
  }
  if (fallback !== undefined) {
    return found === undefined || found === "" ? fallback : found;
  }
  if (found === undefined) {
    throw new ConfigProblem(
      path,
      `uses \${${name}}, which is not set; export it or write \${${name}:-default}`,
      { continuesPath: true },
    );
  }
  return found;
}

/** `${userHome}`: given, else `HOME`, else `USERPROFILE` (Windows). */
function userHome(vars: Variables, path: Path): string {
  if (vars.userHome !== undefined) return vars.userHome;
  try {
    const home = vars.env("HOME") || vars.env("USERPROFILE");
    if (home) return home;
  } catch (error) {
    if (!(error instanceof EnvAccessDenied)) throw error;
    throw new ConfigProblem(
      path,
      `uses \${userHome}, which is read from HOME, which cannot be read: ${error.message}`,
      { continuesPath: true },
    );
  }
  throw new ConfigProblem(
    path,
    "uses ${userHome}, but neither HOME nor USERPROFILE is set; set one, or pass the userHome option",
    { continuesPath: true },
  );
}

/**
 * The ids of the `${input:id}` references in a string, a list of strings
 * or an object of strings, in order (malformed references are skipped:
 * {@linkcode interpolate} reports them).
 *
 * @param value What a config field holds.
 * @returns The ids, repeats included.
 */
export function inputReferences(value: unknown): string[] {
  const strings = typeof value === "string"
    ? [value]
    : Array.isArray(value)
    ? value
    : typeof value === "object" && value !== null
    ? Object.values(value)
    : [];
  const ids: string[] = [];
  for (const text of strings) {
    if (typeof text !== "string" || !hasReference(text)) continue;
    for (const reference of references(text)) {
      if (reference.startsWith(INPUT)) ids.push(reference.slice(INPUT.length));
    }
  }
  return ids;
}

/**
 * The first `${…}` reference of a string (`$${` escapes skipped), for the
 * fields that are not interpolated: they say so.
 *
 * @param value A config string.
 * @returns The reference as written, e.g. `${TEAM}`, or `undefined`.
 */
export function firstReference(value: string): string | undefined {
  if (!hasReference(value)) return undefined;
  const [first] = references(value);
  return first === undefined ? undefined : `\${${first}}`;
}

/** The `${…}` references of a string, without `$${` escapes; stops at an unclosed one. */
function references(value: string): string[] {
  const found: string[] = [];
  let index = 0;
  while (true) {
    const dollar = value.indexOf("$", index);
    if (dollar === -1) return found;
    if (value.startsWith("$${", dollar)) {
      index = dollar + 3;
    } else if (value[dollar + 1] !== "{") {
      index = dollar + 1;
    } else {
      const close = value.indexOf("}", dollar + 2);
      if (close === -1) return found;
      found.push(value.slice(dollar + 2, close));
      index = close + 1;
    }
  }
}

/**
 * Interpolates a string, or every string of a list or a string map.
 *
 * @param value A string, a list of strings or an object of strings.
 * @param vars Where variables come from.
 * @param path Where `value` is.
 * @param problems Receives the problem of each string that cannot be
 * interpolated (that string is then left as it was).
 * @returns A copy with every string interpolated; other values unchanged.
 */
export function interpolateValue(
  value: unknown,
  vars: Variables,
  path: Path,
  problems: ConfigProblem[],
): unknown {
  const one = (text: string, at: Path) => {
    try {
      return interpolate(text, vars, at);
    } catch (error) {
      if (!(error instanceof ConfigProblem)) throw error;
      problems.push(error);
      return text;
    }
  };
  if (typeof value === "string") return one(value, path);
  if (Array.isArray(value)) {
    return value.map((item, index) =>
      typeof item === "string" ? one(item, [...path, index]) : item
    );
  }
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      setOwn(
        copy,
        key,
        typeof item === "string" ? one(item, [...path, key]) : item,
      );
    }
    return copy;
  }
  return value;
}

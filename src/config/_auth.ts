/**
 * Internal: the `auth` of a server entry, read after the schema has
 * checked its shape. The machine grants' text fields have their `${…}`
 * references replaced (their secrets usually come from the environment);
 * their files must be absolute paths and the identity provider's endpoint
 * an http(s) URL. The values that are secrets are returned to be declared
 * so (never in a message).
 *
 * @module
 */

import type { ServerAuth } from "./types.ts";
import { interpolateValue, type Variables } from "./_interpolate.ts";
import { ConfigProblem, type Path } from "../util/problem.ts";
import { isRecord } from "../util/values.ts";

/** Fields whose values are secrets. */
const SECRET_FIELDS = [
  "assertion",
  "clientSecret",
  "idpClientSecret",
  "idToken",
];
/** Fields naming a file to read. */
const FILE_FIELDS = ["assertionFile", "idTokenFile"];
/** Every text field of the machine grants. */
const TEXT_FIELDS = [
  "clientId",
  "expectedIssuer",
  "idpTokenEndpoint",
  "idpClientId",
  ...SECRET_FIELDS,
  ...FILE_FIELDS,
];

/** A server's `auth` read, and the secrets it holds. */
export interface ReadAuth {
  auth: ServerAuth;
  secrets: string[];
}

/**
 * Reads `raw` (the schema-checked `auth` of a server at `path`), adding
 * problems to `problems`.
 */
export function readAuth(
  raw: unknown,
  vars: Variables,
  path: Path,
  problems: ConfigProblem[],
): ReadAuth {
  const value = isRecord(raw) ? raw : { type: "oauth" };
  const at = [...path, "auth"];
  const scopes = Array.isArray(value.scopes)
    ? { scopes: value.scopes.map(String) }
    : {};
  if (
    value.type !== "workload-identity" && value.type !== "enterprise-managed"
  ) {
    const auth: ServerAuth = { type: "oauth", ...scopes };
    if (typeof value.clientId === "string") auth.clientId = value.clientId;
    return { auth, secrets: [] };
  }
  const fields: Record<string, unknown> = { type: value.type, ...scopes };
  const secrets: string[] = [];
  for (const field of TEXT_FIELDS) {
    const written = value[field];
    if (typeof written !== "string") continue;
    const before = problems.length;
    const text = interpolateValue(written, vars, [...at, field], problems);
    if (problems.length > before || typeof text !== "string") continue;
    if (text === "") {
      // The schema saw the text as written; `${VAR}` of an empty variable
      // breaks the same rule as a literal "".
      problems.push(
        new ConfigProblem(
          [...at, field],
          "expected a non-empty string, got an empty string (a variable it names is set but empty)",
        ),
      );
      continue;
    }
    fields[field] = text;
    if (SECRET_FIELDS.includes(field)) secrets.push(text);
    if (FILE_FIELDS.includes(field) && !isAbsolute(text)) {
      problems.push(
        new ConfigProblem(
          [...at, field],
          "must be an absolute path (a relative one would depend on where the program runs); write e.g. /var/run/secrets/tokens/mcp or ${workspaceFolder}/token",
        ),
      );
    }
  }
  const endpoint = fields.idpTokenEndpoint;
  if (typeof endpoint === "string" && !isWebUrl(endpoint)) {
    problems.push(
      new ConfigProblem(
        [...at, "idpTokenEndpoint"],
        'expected an http(s) URL; write e.g. "https://login.example.com/oauth2/token"',
      ),
    );
  }
  if (typeof value.dpop === "boolean") fields.dpop = value.dpop;
  return { auth: fields as unknown as ServerAuth, secrets };
}

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) ||
    path.startsWith("\\\\");
}

function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

/**
 * Property: the machine-grant `auth` of a server, its fields written as
 * text and `${VAR}` references to variables set, set but empty, or unset,
 * either parses into fields that are all non-empty — and `configAuth()`
 * builds its provider — or is refused with an `MCPConfigFileError` that
 * names the field, its line and its column. A literal and a variable that
 * holds the same text are judged alike.
 *
 * Bounded in time (`FUZZ_TIME_MS`, default 3 s) and seeded: the seed is
 * printed, and `FUZZ_SEED=<seed>` replays a run.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzParameters } from "./_fuzz.ts";
import {
  MCPConfigFileError,
  parseConfig,
} from "@cleveragents/mcp-adapter/config";
import { configAuth } from "@cleveragents/mcp-adapter/auth";

/** Values a variable or a literal may hold. */
const TEXT = fc.constantFrom(
  "",
  "agent",
  "eyJ.jwt.sig",
  "/run/token",
  "https://login.example.com/token",
);

/** One field: its text, and how it is written. */
const field = fc.record({
  text: TEXT,
  as: fc.constantFrom("literal", "variable", "unset"),
});

const KINDS = {
  "workload-identity": ["clientId", "assertion"],
  "enterprise-managed": [
    "clientId",
    "clientSecret",
    "idpTokenEndpoint",
    "idpClientId",
    "idToken",
  ],
} as const;

describe("machine-grant auth from a config file (property)", () => {
  it("is all non-empty and builds its provider, or is refused at a line and column", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          "workload-identity",
          "enterprise-managed",
        ) as fc.Arbitrary<keyof typeof KINDS>,
        fc.array(field, { minLength: 5, maxLength: 5 }),
        (type, fields) => {
          const env: Record<string, string> = {};
          const lines = KINDS[type].map((name, i) => {
            const { text, as } = fields[i]!;
            if (as === "literal") {
              return `      ${name}: ${JSON.stringify(text)}`;
            }
            if (as === "variable") env[`V${i}`] = text;
            return `      ${name}: \${V${i}}`;
          });
          const yaml = [
            "servers:",
            "  - name: a",
            "    transport: streamable-http",
            "    url: https://mcp.example.com/mcp",
            "    auth:",
            `      type: ${type}`,
            ...lines,
          ].join("\n");
          let servers;
          try {
            ({ servers } = parseConfig(yaml, "yaml", {
              env,
              source: "mcp.yaml",
            }));
          } catch (error) {
            assert.ok(error instanceof MCPConfigFileError, String(error));
            assert.ok(
              error.line !== undefined && error.line >= 6,
              error.message,
            );
            assert.ok(error.column !== undefined && error.column >= 1);
            return;
          }
          const auth = servers[0]!.auth as unknown as Record<string, unknown>;
          for (const name of KINDS[type]) {
            assert.equal(typeof auth[name], "string", name);
            assert.notEqual(auth[name], "", `${name} is empty`);
          }
          assert.ok(configAuth(servers[0]!));
        },
      ),
      fuzzParameters("config auth"),
    );
  });
});

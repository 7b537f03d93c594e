import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  requirementTable,
  scoredScenarios,
} from "../../scripts/conformance.ts";

describe("scripts/conformance.ts: scoredScenarios()", () => {
  it("reads the scored scenarios of a requirement-set summary, leaving out the unscored ones", () => {
    const lines = [
      "Results saved to /tmp/x",
      "=== SUITE SUMMARY ===",
      "",
      "✓ tools_call: 2 passed, 0 failed",
      "✗ auth/iss-supported: 0 passed, 1 failed",
      "✓ auth/client-credentials-jwt: 6 passed, 0 failed",
      "✗ json-schema-2020-12-preservation: 3 passed, 6 failed",
      "",
      "Total: 11 passed, 7 failed, 0 warnings",
      "",
      "Not scored for 2026-07-28: 2 scenario(s) run, 1 failing.",
      "  ✓ auth/client-credentials-jwt (extension)",
      "  ✗ json-schema-2020-12-preservation (added-after-release)",
    ];
    assert.deepEqual(
      [...scoredScenarios(lines)],
      [["tools_call", true], ["auth/iss-supported", false]],
    );
    assert.equal(scoredScenarios(["no summary here"]).size, 0);
  });
});

describe("scripts/conformance.ts: requirementTable()", () => {
  it("puts the SDK v2's result beside ours, and fails only on ours", () => {
    const { lines, unexpected } = requirementTable(
      "2026-07-28",
      {
        scored: new Map([["tools_call", true], ["auth/iss-supported", false], [
          "http-custom-headers",
          false,
        ]]),
        seconds: 2.44,
      },
      {
        scored: new Map([["tools_call", false], ["auth/iss-supported", true], [
          "http-custom-headers",
          true,
        ]]),
        seconds: 3.06,
      },
      { "auth/iss-supported": "authorization" },
    );
    assert.deepEqual(lines, [
      "scenario             ours    sdk v2  note",
      "tools_call           pass    FAIL",
      "auth/iss-supported   FAIL    pass    expected (authorization)",
      "http-custom-headers  FAIL    pass    UNEXPECTED FAILURE",
      "ours at 2026-07-28: 1/3 scored scenarios pass (1 expected failures); took 2.4 s",
      "sdk v2 at 2026-07-28: 2/3 scored scenarios pass; took 3.1 s (informative)",
    ]);
    assert.deepEqual(unexpected, ["http-custom-headers"]);
  });

  it("says why a client has no score, and leaves the SDK out when it did not run", () => {
    const ours = { scored: new Map([["tools_call", true]]), seconds: 1 };
    assert.deepEqual(requirementTable("2025-11-25", ours).lines, [
      "scenario    ours    note",
      "tools_call  pass",
      "ours at 2025-11-25: 1/1 scored scenarios pass (0 expected failures); took 1.0 s",
    ]);
    const { lines, unexpected } = requirementTable("2025-11-25", ours, {
      scored: new Map(),
      problem: "no result within 240000 ms",
      seconds: 240,
    });
    assert.equal(lines[1], "tools_call  pass    -");
    assert.equal(
      lines.at(-1),
      "sdk v2 at 2025-11-25: no score (no result within 240000 ms)",
    );
    assert.deepEqual(unexpected, []);
  });
});

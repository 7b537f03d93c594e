import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { scoredScenarios } from "../../scripts/conformance.ts";

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

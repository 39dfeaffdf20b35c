import { describe, expect, it } from "vitest";
import type { LineOutcome } from "../run/judge.js";
import { renderJunit } from "./junit.js";
import { renderTable } from "./table.js";

const outcome = (ok: boolean): LineOutcome => ({
  test: "a/kyverno-test.yaml",
  policy: "p",
  rule: "r",
  resource: "pod<1>",
  kind: "Pod",
  expected: "pass",
  actual: ok ? "pass" : "fail",
  ok,
  reason: ok ? "Ok" : "Want pass, got fail",
  message: ok ? "" : 'value "x" & more',
});

describe("renderTable", () => {
  it("draws upstream's box table with padded columns", () => {
    expect(renderTable(["ID", "POLICY"], [["1", "require-labels"]])).toBe(
      [
        "│────│────────────────│",
        "│ ID │ POLICY         │",
        "│────│────────────────│",
        "│ 1  │ require-labels │",
        "│────│────────────────│",
      ].join("\n"),
    );
  });
});

describe("renderJunit", () => {
  it("writes one suite per test file and escapes XML", () => {
    const xml = renderJunit([outcome(true), outcome(false)], 1.5);
    expect(xml).toContain('<testsuites name="kyverno-ts test" tests="2" failures="1" time="1.500">');
    expect(xml).toContain('<testsuite name="a/kyverno-test.yaml" tests="2" failures="1">');
    expect(xml).toContain('name="p/r/Pod/pod&lt;1&gt;"');
    expect(xml).toContain('<failure message="Want pass, got fail" type="fail">');
    expect(xml).toContain("value &quot;x&quot; &amp; more");
  });
});

import type { PolicyReportResult } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import type { AdmissionPhase } from "../controllers/admission/results.js";
import { mergePhased, phaseAnnotations, policiesByPhase } from "./ephemeral-phases.js";

const row = (policy: string, rule: string, result: PolicyReportResult["result"]): PolicyReportResult => ({
  policy,
  rule,
  result,
  source: "kyverno",
});

/** A report holding `rows`, each answered in its phase, with `phase`'s policies evaluated. */
function report(
  rows: Array<[PolicyReportResult, AdmissionPhase]>,
  evaluated: Array<[AdmissionPhase, string]> = [],
) {
  const byPhase = new Map<AdmissionPhase, Set<string>>();
  for (const [phase, policy] of [...evaluated, ...rows.map(([r, p]) => [p, r.policy] as const)])
    byPhase.set(phase, new Set([...(byPhase.get(phase) ?? []), policy]));
  return {
    metadata: { annotations: phaseAnnotations(byPhase, rows) },
    spec: { results: rows.map(([r]) => r) },
  };
}

describe("ephemeral report phases", () => {
  it("a mutating webhook's answer replaces the policy's mutate results and keeps its validate results", () => {
    const older = report([
      [row("p", "add-label", "pass"), "mutate"],
      [row("p", "require-team", "fail"), "validate"],
    ]);
    const newer = report([[row("p", "add-label", "skip"), "mutate"]]);
    const merged = mergePhased(older, newer);
    expect(merged.results.map((r) => [r.rule, r.result])).toEqual([
      ["require-team", "fail"],
      ["add-label", "skip"],
    ]);
    const again = { metadata: { annotations: merged.annotations }, spec: { results: merged.results } };
    expect(Object.fromEntries([...policiesByPhase(again)].map(([k, v]) => [k, [...v]]))).toEqual({
      validate: ["p"],
      mutate: ["p"],
    });
  });

  it("a policy evaluated without results in a phase drops its older results of that phase only", () => {
    const older = report([
      [row("p", "copy", "pass"), "generate"],
      [row("p", "require-team", "fail"), "validate"],
    ]);
    const newer = report([], [["validate", "p"]]);
    expect(mergePhased(older, newer).results.map((r) => r.rule)).toEqual(["copy"]);
  });

  it("reads results without phase annotations as the validating webhook's", () => {
    const plain = { metadata: { annotations: {} }, spec: { results: [row("q", "r", "pass")] } };
    expect([...policiesByPhase(plain)]).toEqual([["validate", new Set(["q"])]]);
  });
});

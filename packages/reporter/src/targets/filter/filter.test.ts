import { describe, expect, it } from "vitest";
import { sampleResult } from "../testing/receiver.js";
import type { NotifiableResult, SendContext, Target } from "../types.js";
import { matchesFilter, matchesIncludeExclude, matchesReportLabels, withFilter } from "./filter.js";
import { matchWildcard } from "./wildcard.js";

/** A target that records the IDs it gets. */
function recorder(): Target & { got: string[][] } {
  const got: string[][] = [];
  return {
    name: "rec",
    got,
    send: async (r) => {
      got.push([r.id]);
    },
    sendBatch: async (rs) => {
      got.push(rs.map((r) => r.id));
    },
  };
}

describe("wildcards and include / exclude", () => {
  it.each([
    ["team-*", "team-a", true],
    ["team-*", "teams", false],
    ["?at", "cat", true],
    ["a*b*c", "aXbYc", true],
    ["plain", "plainer", false],
  ])("%s vs %s → %s", (p, v, expected) => {
    expect(matchWildcard(p, v)).toBe(expected);
  });

  it("needs an include match and no exclude match", () => {
    expect(matchesIncludeExclude("dev", { include: ["dev*"] })).toBe(true);
    expect(matchesIncludeExclude("prod", { include: ["dev*"] })).toBe(false);
    expect(matchesIncludeExclude("kube-system", { exclude: ["kube-*"] })).toBe(false);
    expect(matchesIncludeExclude("dev-1", { include: ["dev-*"], exclude: ["dev-1"] })).toBe(false);
    expect(matchesIncludeExclude("x", {})).toBe(true);
    expect(matchesIncludeExclude("Kyverno", { include: ["kyverno"] }, true)).toBe(true);
  });

  it("matches report labels by key or key:valuePattern", () => {
    const labels = { app: "web", owner: "team-a" };
    expect(matchesReportLabels(labels, { include: ["app"] })).toBe(true);
    expect(matchesReportLabels(labels, { include: ["owner:team-b"] })).toBe(false);
    expect(matchesReportLabels(labels, { include: ["owner:team-*"] })).toBe(true);
    expect(matchesReportLabels(labels, { exclude: ["app:web"] })).toBe(false);
    expect(matchesReportLabels(undefined, { include: ["app"] })).toBe(false);
  });
});

describe("matchesFilter", () => {
  const ns = (namespace: string | undefined): NotifiableResult =>
    sampleResult({
      resource: namespace === undefined ? { kind: "Node", name: "n" } : { kind: "Pod", namespace },
    });

  it("applies minimumSeverity; results without severity never reach a threshold", () => {
    expect(matchesFilter(sampleResult({ severity: "medium" }), { minimumSeverity: "medium" })).toBe(true);
    expect(matchesFilter(sampleResult({ severity: "low" }), { minimumSeverity: "medium" })).toBe(false);
    expect(matchesFilter(sampleResult({ severity: undefined }), { minimumSeverity: "info" })).toBe(false);
    expect(matchesFilter(sampleResult({ severity: undefined }), {})).toBe(true);
  });

  it("applies sources case-insensitively", () => {
    expect(matchesFilter(sampleResult({ source: "Kyverno" }), { sources: ["kyverno"] })).toBe(true);
    expect(matchesFilter(sampleResult({ source: "trivy" }), { sources: ["kyverno"] })).toBe(false);
  });

  it("filters namespaces of namespaced results only", () => {
    const spec = { filter: { namespaces: { include: ["team-*"] } } };
    expect(matchesFilter(ns("team-a"), spec)).toBe(true);
    expect(matchesFilter(ns("default"), spec)).toBe(false);
    expect(matchesFilter(ns(undefined), spec)).toBe(true);
  });

  it("filters status, severities, priorities, policies, sources and report labels", () => {
    const r = sampleResult();
    expect(matchesFilter(r, { filter: { status: { include: ["warn"] } } })).toBe(false);
    expect(matchesFilter(r, { filter: { severities: { exclude: ["high"] } } })).toBe(false);
    expect(matchesFilter(r, { filter: { priorities: { include: ["error"] } } })).toBe(true);
    expect(matchesFilter(r, { filter: { policies: { include: ["require-*"] } } })).toBe(true);
    expect(matchesFilter(r, { filter: { policies: { exclude: ["require-*"] } } })).toBe(false);
    expect(matchesFilter(r, { filter: { sources: { exclude: ["KYVERNO"] } } })).toBe(false);
    expect(
      matchesFilter(r, { filter: { reportLabels: { include: ["app"] } } }, { name: "x", labels: {} }),
    ).toBe(false);
  });
});

describe("withFilter", () => {
  it("passes only matching results and sends nothing for an empty batch", async () => {
    const rec = recorder();
    const target = withFilter(rec, { minimumSeverity: "high" });
    await target.sendBatch([
      sampleResult({ id: "1", severity: "critical" }),
      sampleResult({ id: "2", severity: "low" }),
    ]);
    await target.sendBatch([sampleResult({ id: "3", severity: "low" })]);
    await target.send(sampleResult({ id: "4", severity: "high" }));
    await target.send(sampleResult({ id: "5", severity: "info" }));
    expect(rec.got).toEqual([["1"], ["4"]]);
    expect(target.name).toBe("rec");
  });

  it("looks namespace labels up for a selector", async () => {
    const rec = recorder();
    const labels: Record<string, Record<string, string>> = { a: { env: "prod" }, b: { env: "dev" } };
    const target = withFilter(
      rec,
      { filter: { namespaces: { selector: { env: "pr*" } } } },
      { namespaceLabels: async (n) => labels[n] },
    );
    await target.sendBatch([
      sampleResult({ id: "a", resource: { namespace: "a" } }),
      sampleResult({ id: "b", resource: { namespace: "b" } }),
      sampleResult({ id: "c", resource: { namespace: "unknown" } }),
      sampleResult({ id: "cluster", resource: { kind: "Node" } }),
    ]);
    expect(rec.got).toEqual([["a", "cluster"]]);
  });

  it("judges a resolved result by its previous status", async () => {
    const rec = recorder();
    const target = withFilter(rec, { filter: { status: { include: ["fail"] } } });
    const pass = sampleResult({ id: "p", result: "pass" });
    const context: SendContext = { event: "resolved", previousStatus: { p: "fail" } };
    await target.sendBatch([pass], context);
    await target.sendBatch([pass], { event: "resolved", previousStatus: { p: "warn" } });
    expect(rec.got).toEqual([["p"]]);
  });
});

import { describe, expect, it } from "vitest";
import { normalized, pod, report, result } from "../testing/fixtures.js";
import { fnv1a64 } from "./fnv.js";
import { reportId, resourceId, resultId } from "./ids.js";
import { FIELD_LIMITS, TRUNCATION_MARKER } from "./limits.js";
import { normalizeReport } from "./normalize.js";

describe("IDs", () => {
  it("report ID is fnv-1a 64 of namespace__name, or of the name for cluster reports", () => {
    expect(reportId("team-a", "pol-web")).toBe(fnv1a64("team-a__pol-web"));
    expect(reportId("", "cpol-ns")).toBe(fnv1a64("cpol-ns"));
    const r = normalized(report({ name: "pol-web", namespace: "team-a" }));
    expect(r.id).toBe(reportId("team-a", "pol-web"));
  });

  it("result ID is fnv-1a 64 of resource name + uid, policy, rule, result, category and message", () => {
    const r = normalized(
      report({
        name: "pol-web",
        namespace: "team-a",
        scope: pod("web", "team-a"),
        results: [result({ result: "fail", category: "Security", message: "nope" })],
      }),
    );
    const expected = fnv1a64(
      ["webuid-team-a-web", "require-labels", "check", "fail", "Security", "nope"].join("__"),
    );
    expect(r.results[0]?.id).toBe(expected);
    expect(
      resultId({
        resourceName: "web",
        resourceUid: "uid-team-a-web",
        policy: "require-labels",
        rule: "check",
        status: "fail",
        category: "Security",
        message: "nope",
      }),
    ).toBe(expected);
  });

  it("uses the resultID property verbatim when present", () => {
    const r = normalized(
      report({
        name: "r",
        namespace: "ns",
        results: [result({ properties: { resultID: "trivy-42", extra: "x" } })],
      }),
    );
    expect(r.results[0]?.id).toBe("trivy-42");
  });

  it("resource ID is fnv-1a 64 of the uid, or of apiVersion/kind/namespace/name", () => {
    expect(resourceId({ apiVersion: "v1", kind: "Pod", namespace: "a", name: "b", uid: "u-1" })).toBe(
      fnv1a64("u-1"),
    );
    expect(resourceId({ apiVersion: "v1", kind: "Pod", namespace: "a", name: "b", uid: "" })).toBe(
      fnv1a64("v1/Pod/a/b"),
    );
  });
});

describe("normalizeReport", () => {
  it("normalises a Kyverno PolicyReport", () => {
    const out = normalizeReport(
      report({
        name: "pol-web",
        namespace: "team-a",
        scope: pod("web", "team-a"),
        labels: { team: "a" },
        results: [result({ result: "FAIL", severity: "High", category: "" }), result({ rule: "other" })],
      }),
    );
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.issues).toEqual([]);
    const { report: r } = out;
    expect(r).toMatchObject({
      kind: "PolicyReport",
      name: "pol-web",
      namespace: "team-a",
      source: "kyverno",
    });
    expect(r.labels).toEqual({ team: "a" });
    expect(r.created).toBe(Date.UTC(2026, 0, 1));
    expect(r.results[0]).toMatchObject({
      status: "fail",
      severity: "high",
      category: "Other",
      timestamp: 1767225600,
    });
    expect(r.results[0]?.resource).toMatchObject({
      kind: "Pod",
      name: "web",
      namespace: "team-a",
      uid: "uid-team-a-web",
    });
    expect(r.results[1]?.severity).toBe("");
  });

  it("accepts ClusterPolicyReport, openreports Report / ClusterReport, and list items without a kind", () => {
    const cluster = normalizeReport(report({ name: "c" }));
    expect(cluster.ok && cluster.report.namespace).toBe("");
    const or = normalizeReport(
      report({ name: "r", namespace: "n", apiVersion: "openreports.io/v1alpha1", kind: "Report" }),
    );
    expect(or.ok && or.report.kind).toBe("Report");
    const orc = normalizeReport(
      report({ name: "r", apiVersion: "openreports.io/v1alpha1", kind: "ClusterReport" }),
    );
    expect(orc.ok && orc.report.kind).toBe("ClusterReport");
    const item = { metadata: { name: "x", namespace: "n" }, results: [] };
    expect(normalizeReport(item, { kind: "PolicyReport" }).ok).toBe(true);
    expect(normalizeReport(item).ok).toBe(false);
  });

  it.each([
    ["not an object", 42, "kind"],
    ["an unknown kind", { kind: "ConfigMap", metadata: { name: "x" } }, "kind"],
    [
      "a mismatched apiVersion",
      { ...report({ name: "x", namespace: "n" }), apiVersion: "openreports.io/v1alpha1" },
      "apiVersion",
    ],
    ["no name", { kind: "PolicyReport", metadata: { namespace: "n" } }, "metadata.name"],
    [
      "a namespaced report without namespace",
      { kind: "PolicyReport", metadata: { name: "x" } },
      "metadata.namespace",
    ],
    ["results that are not a list", { ...report({ name: "x", namespace: "n" }), results: {} }, "results"],
  ])("rejects a report with %s", (_what, input, path) => {
    const out = normalizeReport(input);
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.error.code).toBe("REPORT_INVALID");
      if (typeof input === "object") expect(out.error.path).toBe(path);
    }
  });

  it("drops malformed results with a located issue and keeps the rest", () => {
    const out = normalizeReport(
      report({
        name: "x",
        namespace: "n",
        scope: pod("p", "n"),
        results: [
          result(),
          "oops" as never,
          result({ policy: undefined }),
          result({ result: "maybe" }),
          result({ result: undefined, rule: "r2" }),
          result({ severity: "urgent", rule: "r3" }),
          result({ rule: "r4", properties: { count: 3, ok: "yes" } }),
          result({ rule: "r5", resources: ["bad"] }),
          result(),
        ],
      }),
    );
    if (!out.ok) throw new Error("rejected");
    expect(out.issues.map((i) => `${i.code}@${i.path}`)).toEqual([
      "RESULT_INVALID@results[1]",
      "RESULT_MISSING_POLICY@results[2].policy",
      "RESULT_UNKNOWN_STATUS@results[3].result",
      "RESULT_UNKNOWN_STATUS@results[4].result",
      "RESULT_UNKNOWN_SEVERITY@results[5].severity",
      "PROPERTY_INVALID@results[6].properties.count",
      "RESOURCE_INVALID@results[7].resources[0]",
      "RESULT_DUPLICATE_ID@results[8]",
    ]);
    expect(out.report.results.map((r) => r.rule)).toEqual(["check", "r3", "r4", "r5"]);
    expect(out.report.results[2]?.properties).toEqual({ count: "3", ok: "yes" });
    expect(out.report.results[3]?.resource).toBeUndefined();
  });

  it("truncates huge messages and long names, recording the issue", () => {
    const huge = "x".repeat(1_000_000);
    const out = normalizeReport(
      report({ name: "x", namespace: "n", results: [result({ message: huge, policy: "p".repeat(400) })] }),
    );
    if (!out.ok) throw new Error("rejected");
    const [r] = out.report.results;
    expect(r?.message).toHaveLength(FIELD_LIMITS.message);
    expect(r?.message.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(r?.policy).toHaveLength(FIELD_LIMITS.policy);
    expect(out.issues.map((i) => i.code)).toEqual(["FIELD_TRUNCATED", "FIELD_TRUNCATED"]);
    // the ID is computed from the full values
    expect(r?.id).toBe(fnv1a64(["", "p".repeat(400), "check", "pass", "", huge].join("__")));
  });

  it("never splits a surrogate pair when truncating", () => {
    const message = `${"a".repeat(FIELD_LIMITS.message - 2)}🚀🚀`;
    const out = normalizeReport(report({ name: "x", namespace: "n", results: [result({ message })] }));
    if (!out.ok) throw new Error("rejected");
    const text = out.report.results[0]?.message ?? "";
    expect(text.endsWith(`a${TRUNCATION_MARKER}`)).toBe(true);
  });

  it("splits a result naming several resources into one result per resource", () => {
    const r = normalized(
      report({
        name: "x",
        namespace: "n",
        results: [result({ resources: [pod("a", "n"), pod("b", "n")] })],
      }),
    );
    expect(r.results.map((x) => x.resource?.name)).toEqual(["a", "b"]);
    expect(new Set(r.results.map((x) => x.id)).size).toBe(2);
  });
});

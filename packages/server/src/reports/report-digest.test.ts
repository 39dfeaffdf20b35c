import type { AnyPolicyReport, PolicyReportResult } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { buildResourceReport, sameReportContent } from "./report-builder.js";
import { reportDigest } from "./report-digest.js";

const pod = { apiVersion: "v1", kind: "Pod", name: "web", namespace: "prod", uid: "1234" };
const result = (status: PolicyReportResult["result"], seconds: number): PolicyReportResult => ({
  source: "kyverno",
  policy: "p",
  rule: "r",
  result: status,
  message: "m",
  scored: true,
  timestamp: { seconds, nanos: 0 },
});

function reordered(report: AnyPolicyReport): AnyPolicyReport {
  const reverse = (o: object): object => Object.fromEntries(Object.entries(o).reverse());
  return { ...report, results: (report.results ?? []).map((r) => reverse(r) as PolicyReportResult) };
}

describe("reportDigest", () => {
  it("agrees with sameReportContent, ignoring timestamps and key order", () => {
    const a = buildResourceReport(pod, [result("fail", 1)]);
    const b = buildResourceReport(pod, [result("fail", 99)]);
    const c = buildResourceReport(pod, [result("pass", 1)]);
    expect(sameReportContent(a, b)).toBe(true);
    expect(reportDigest(a)).toBe(reportDigest(b));
    expect(reportDigest(a)).toBe(reportDigest(reordered(b)));
    expect(sameReportContent(a, c)).toBe(false);
    expect(reportDigest(a)).not.toBe(reportDigest(c));
  });
});

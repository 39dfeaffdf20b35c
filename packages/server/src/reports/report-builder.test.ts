import type { PolicyReportResult } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import {
  buildResourceReport,
  mergeResults,
  sameReportContent,
  TRUNCATED_ANNOTATION,
} from "./report-builder.js";

const pod = { apiVersion: "v1", kind: "Pod", name: "web", namespace: "prod", uid: "1234" };
const result = (
  policy: string,
  rule: string,
  status: PolicyReportResult["result"],
  seconds = 1,
): PolicyReportResult => ({
  source: "kyverno",
  policy,
  rule,
  result: status,
  message: `${policy}/${rule} ${status}`,
  resources: [pod],
  scored: true,
  timestamp: { seconds, nanos: 0 },
});

describe("buildResourceReport", () => {
  it("names the report after the resource uid, scopes and owns it, and counts exactly", () => {
    const report = buildResourceReport(pod, [
      result("a", "r1", "fail"),
      result("a", "r2", "pass"),
      result("b", "r", "skip"),
    ]);
    expect(report).toMatchObject({
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "PolicyReport",
      metadata: {
        name: "1234",
        namespace: "prod",
        labels: { "app.kubernetes.io/managed-by": "kyverno" },
        ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "web", uid: "1234" }],
      },
      scope: pod,
      summary: { pass: 1, fail: 1, warn: 0, error: 0, skip: 1 },
    });
  });
  it("writes apiVersion and kind before the rest (the writer reads only the answer's head), merged results as given", () => {
    const results = [result("b", "r", "skip"), result("a", "r2", "pass"), result("a", "r1", "fail")];
    const report = buildResourceReport(pod, results);
    expect(Object.keys(report).slice(0, 3)).toEqual(["apiVersion", "kind", "metadata"]);
    expect(JSON.stringify(buildResourceReport(pod, mergeResults(results), undefined, { merged: true }))).toBe(
      JSON.stringify(report),
    );
  });
  it("writes a ClusterPolicyReport for cluster-scoped resources", () => {
    const ns = { apiVersion: "v1", kind: "Namespace", name: "prod", uid: "ns-1" };
    expect(buildResourceReport(ns, []).kind).toBe("ClusterPolicyReport");
  });
  it("never holds duplicate results: the newest evaluation of a rule wins", () => {
    const merged = mergeResults([result("a", "r", "fail", 1)], [result("a", "r", "pass", 2)]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ result: "pass", timestamp: { seconds: 2 } });
  });
  it("bounds results and messages, keeping failures first", () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      result(`p${String(i).padStart(2, "0")}`, "r", i === 29 ? "fail" : "pass"),
    );
    const report = buildResourceReport(
      pod,
      [...many, { ...result("long", "r", "warn"), message: "x".repeat(100) }],
      {
        maxResults: 5,
        maxMessageLength: 20,
      },
    );
    expect(report.results).toHaveLength(5);
    expect(report.results?.[0]).toMatchObject({ policy: "p29", result: "fail" });
    expect(report.results?.find((r) => r.policy === "long")?.message).toHaveLength(20);
    // The summary still counts every result; an annotation says the report was cut.
    expect(report.summary).toEqual({ fail: 1, warn: 1, pass: 29, error: 0, skip: 0 });
    expect(report.metadata.annotations?.[TRUNCATED_ANNOTATION]).toBe(
      "kept 5 of 31 results (limits: 5 results, 1000000 bytes)",
    );
  });
  it("keeps results within a byte budget, failures first, the same way every time", () => {
    const many = Array.from({ length: 400 }, (_, i) => ({
      ...result(`p${String(i).padStart(3, "0")}`, "r", i % 50 === 7 ? "fail" : "pass"),
      message: `${"é".repeat(1000)} ${i}`, // two bytes a character: the budget counts bytes
    }));
    const limits = { maxResults: 1000, maxMessageLength: 4096, maxResultBytes: 20_000 };
    const report = buildResourceReport(pod, many, limits);
    const kept = report.results ?? [];
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(20_000);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.slice(0, 8).every((r) => r.result === "fail")).toBe(true);
    expect(report.summary).toEqual({ fail: 8, pass: 392, warn: 0, error: 0, skip: 0 });
    expect(report.metadata.annotations?.[TRUNCATED_ANNOTATION]).toBe(
      `kept ${kept.length} of 400 results (limits: 1000 results, 20000 bytes)`,
    );
    const again = buildResourceReport(pod, [...many].reverse(), limits);
    expect(again.results).toEqual(kept);
    // Within the default budget nothing is cut and nothing is said.
    const small = buildResourceReport(pod, many.slice(0, 10));
    expect(small.results).toHaveLength(10);
    expect(small.metadata.annotations).toBeUndefined();
  });
  it("compares content without timestamps", () => {
    const a = buildResourceReport(pod, [result("a", "r", "pass", 1)]);
    const b = buildResourceReport(pod, [result("a", "r", "pass", 9)]);
    expect(sameReportContent(a, b)).toBe(true);
    expect(sameReportContent(a, buildResourceReport(pod, [result("a", "r", "fail", 1)]))).toBe(false);
  });
});

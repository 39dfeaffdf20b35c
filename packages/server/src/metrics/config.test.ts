import { describe, expect, it } from "vitest";
import { METRIC_FAMILIES } from "./catalog.js";
import { DEFAULT_BUCKETS, exposureOf, namespaceFilter, parseMetricsConfig } from "./config.js";
import { createAdmissionMetrics } from "./metrics.js";

/** The ConfigMap data upstream's chart writes from `metricsConfig`. */
const CHART_DATA = {
  namespaces: '{"exclude":["kube-system"],"include":[]}',
  bucketBoundaries: "0.005, 0.01, 0.025, 0.05, 0.1",
  metricsExposure:
    '{"kyverno_admission_requests":{"disabledLabelDimensions":["resource_namespace"]},"kyverno_policy_rule_info_total":{"enabled":false},"kyverno_policy_execution_duration_seconds":{"bucketBoundaries":[0.5,1]}}',
};

const request = (namespace: string) => ({
  resourceKind: "Pod",
  resourceNamespace: namespace,
  operation: "CREATE",
  allowed: true,
  webhook: "ValidatingWebhookConfiguration" as const,
});

describe("kyverno-metrics ConfigMap", () => {
  it("reads the keys upstream's chart writes", () => {
    const { config, problems } = parseMetricsConfig(CHART_DATA, "ConfigMap kyverno/kyverno-metrics");
    expect(problems).toEqual([]);
    expect(config.namespaces).toEqual({ include: [], exclude: ["kube-system"] });
    expect(config.bucketBoundaries).toEqual([0.005, 0.01, 0.025, 0.05, 0.1]);
    // `_total` or not: upstream's docs and chart spell the counters both ways.
    expect(exposureOf(config, METRIC_FAMILIES.admissionRequests).kept).toEqual([0, 2, 3, 4]);
    expect(exposureOf(config, METRIC_FAMILIES.ruleInfo).enabled).toBe(false);
    expect(exposureOf(config, METRIC_FAMILIES.policyExecution).buckets).toEqual([0.5, 1]);
    expect(exposureOf(config, METRIC_FAMILIES.admissionReview).buckets).toEqual([
      0.005, 0.01, 0.025, 0.05, 0.1,
    ]);
  });

  it("keeps the defaults of a setting it cannot read and says which key is wrong", () => {
    const { config, problems } = parseMetricsConfig(
      {
        bucketBoundaries: "1, 0.5",
        namespaces: "{",
        metricsExposure: '{"x":{"enabled":"no"}}',
        maxSeriesPerMetric: "-3",
      },
      "ConfigMap kyverno/kyverno-metrics",
    );
    expect(config.bucketBoundaries).toEqual(DEFAULT_BUCKETS);
    expect(config.maxSeriesPerMetric).toBe(10_000);
    expect(problems).toEqual([
      expect.stringMatching(/^ConfigMap kyverno\/kyverno-metrics: data\.namespaces: not JSON/),
      'ConfigMap kyverno/kyverno-metrics: data.bucketBoundaries: bucket boundaries must increase, got "1, 0.5"',
      "ConfigMap kyverno/kyverno-metrics: data.metricsExposure.x.enabled: expected true or false",
      'ConfigMap kyverno/kyverno-metrics: data.maxSeriesPerMetric: expected a positive integer, got "-3"',
    ]);
  });

  it("records only the included namespaces, never the excluded ones, and cluster-scoped resources always", () => {
    const only = namespaceFilter(
      parseMetricsConfig({ namespaces: '{"include":["a","b"],"exclude":["b"]}' }, "x").config,
    );
    expect(["a", "b", "c", ""].map(only)).toEqual([true, false, false, true]);
  });

  it("shapes the admission metrics: dropped dimensions merge series, disabled metrics disappear", async () => {
    const { config } = parseMetricsConfig(CHART_DATA, "x");
    const metrics = createAdmissionMetrics({ version: "x", config });
    for (const ns of ["a", "b", "kube-system"]) metrics.admissionRequest(request(ns), 0.7);
    metrics.setRuleInfo("p", [
      {
        policy: { validationMode: "audit", type: "cluster", background: true, namespace: "-", name: "p" },
        rule: "r",
        ruleType: "validate",
        ready: true,
      },
    ]);
    const text = await metrics.render();
    // kube-system is excluded; a and b share one series once resource_namespace is dropped.
    expect(text).toContain(
      'kyverno_admission_requests_total{resource_kind="Pod",resource_request_operation="create",request_allowed="true",request_webhook="ValidatingWebhookConfiguration"} 2',
    );
    expect(text).toMatch(
      /kyverno_admission_review_duration_seconds_count\{[^}]*resource_namespace="a"[^}]*\} 1/,
    );
    expect(text).not.toContain('resource_namespace="kube-system"');
    expect(text).not.toContain("kyverno_policy_rule_info_total");
    expect(text).toContain('kyverno_admission_review_duration_seconds_bucket{le="0.1",');
    expect(text).not.toContain('kyverno_admission_review_duration_seconds_bucket{le="0.25",');
  });
});

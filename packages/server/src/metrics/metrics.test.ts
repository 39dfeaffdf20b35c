import { describe, expect, it } from "vitest";
import { createAdmissionMetrics } from "./metrics.js";

const policy = {
  validationMode: "enforce" as const,
  type: "cluster" as const,
  background: true,
  namespace: "-",
  name: "p",
};

describe("admission metrics", () => {
  it("exports upstream's names, label sets and label values", async () => {
    const metrics = createAdmissionMetrics({ version: "1.2.3" });
    metrics.ruleResult(
      {
        policy,
        rule: "r",
        result: "fail",
        ruleType: "validate",
        resourceKind: "Pod",
        resourceNamespace: "default",
        operation: "CREATE",
        dryRun: false,
      },
      0.002,
    );
    metrics.admissionRequest(
      {
        resourceKind: "Pod",
        resourceNamespace: "default",
        operation: "CREATE",
        allowed: false,
        webhook: "ValidatingWebhookConfiguration",
      },
      0.004,
    );
    metrics.httpRequest("POST", "/validate/fail", 0.005);
    metrics.resultsDropped(3);
    metrics.updateRequestsDropped(2);
    metrics.clientQuery({
      operation: "get",
      clientType: "admission-controller",
      kind: "Secret",
      namespace: "kyverno",
    });
    const text = await metrics.render();
    expect(text).toContain(
      'kyverno_client_queries_total{operation="get",client_type="admission-controller",resource_kind="Secret",resource_namespace="kyverno"} 1',
    );
    expect(text).toContain(
      'kyverno_policy_results_total{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="p",resource_kind="Pod",resource_namespace="default",resource_request_operation="create",rule_name="r",rule_result="fail",rule_type="validate",rule_execution_cause="admission_request",dry_run="false"} 1',
    );
    expect(text).toContain(
      'kyverno_policy_execution_duration_seconds_bucket{le="0.005",policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="p",resource_kind="Pod",resource_namespace="default",resource_request_operation="create",rule_name="r",rule_result="fail",rule_type="validate",rule_execution_cause="admission_request",dry_run="false"} 1',
    );
    expect(text).toContain(
      'kyverno_admission_requests_total{resource_kind="Pod",resource_namespace="default",resource_request_operation="create",request_allowed="false",request_webhook="ValidatingWebhookConfiguration"} 1',
    );
    expect(text).toContain(
      'kyverno_admission_review_duration_seconds_count{resource_kind="Pod",resource_namespace="default",resource_request_operation="create",request_allowed="false",request_webhook="ValidatingWebhookConfiguration"} 1',
    );
    expect(text).toContain('kyverno_http_requests_total{http_method="POST",http_url="/validate/fail"} 1');
    expect(text).toContain(
      'kyverno_http_requests_duration_seconds_bucket{le="0.005",http_method="POST",http_url="/validate/fail"} 1',
    );
    expect(text).toContain('kyverno_info{version="1.2.3"} 1');
    expect(text).toContain("kyverno_admission_results_dropped_total 3");
    expect(text).toContain("kyverno_admission_updaterequests_dropped_total 2");
    expect(text).toContain("# TYPE kyverno_policy_results_total counter");
    expect(text).toContain("# TYPE kyverno_policy_execution_duration_seconds histogram");
    for (const le of [
      "0.005",
      "0.01",
      "0.025",
      "0.05",
      "0.1",
      "0.25",
      "0.5",
      "1",
      "2.5",
      "5",
      "10",
      "15",
      "20",
      "25",
      "30",
      "+Inf",
    ])
      expect(text).toContain(`kyverno_http_requests_duration_seconds_bucket{le="${le}",`);
  });

  it("counts requests sent to the evaluation pool by reason, and its workers", async () => {
    let pool = { workers: 0, started: 0 };
    const metrics = createAdmissionMetrics({ version: "x", poolStats: () => pool });
    // Every reason is exported from the start, so a rate has data.
    expect(await metrics.render()).toContain('kyverno_admission_offloaded_total{reason="cut"} 0');
    metrics.offloaded("slow_policy");
    metrics.offloaded("slow_policy");
    metrics.offloaded("large_body");
    pool = { workers: 1, started: 3 };
    const text = await metrics.render();
    expect(text).toContain('kyverno_admission_offloaded_total{reason="slow_policy"} 2');
    expect(text).toContain('kyverno_admission_offloaded_total{reason="large_body"} 1');
    expect(text).toContain('kyverno_admission_offloaded_total{reason="deadline"} 0');
    expect(text).toContain("kyverno_evaluation_workers 1");
    expect(text).toContain("kyverno_evaluation_worker_starts_total 3");
  });

  it("replaces a policy's rule-info series", async () => {
    const metrics = createAdmissionMetrics({ version: "x" });
    metrics.setRuleInfo("p", [{ policy, rule: "a", ruleType: "validate", ready: true }]);
    metrics.setRuleInfo("p", [{ policy, rule: "b", ruleType: "mutate", ready: true }]);
    const text = await metrics.render();
    expect(text).toContain(
      'kyverno_policy_rule_info_total{policy_namespace="-",policy_name="p",status_ready="true",policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="true",rule_name="b",rule_type="mutate"} 1',
    );
    expect(text).not.toContain('rule_name="a"');
  });

  it("stops adding series past its bound but keeps counting existing ones", async () => {
    const metrics = createAdmissionMetrics({ version: "x", maxSeries: 1 });
    const request = (ns: string) =>
      metrics.admissionRequest(
        {
          resourceKind: "Pod",
          resourceNamespace: ns,
          operation: "CREATE",
          allowed: true,
          webhook: "MutatingWebhookConfiguration",
        },
        0.001,
      );
    for (const ns of ["a", "b", "a"]) request(ns);
    const text = await metrics.render();
    expect(text).toContain('kyverno_admission_requests_total{resource_kind="Pod",resource_namespace="a",');
    expect(text).toMatch(/resource_namespace="a",[^}]*\} 2/);
    expect(text).not.toContain('resource_namespace="b"');
    expect(text).toContain(
      'kyverno_metrics_series_dropped_total{metric_name="kyverno_admission_requests_total"} 1',
    );
  });

  it("escapes label values", async () => {
    const metrics = createAdmissionMetrics({ version: "x" });
    metrics.httpRequest("GET", '/a"b\\c', 0.001);
    expect(await metrics.render()).toContain('http_url="/a\\"b\\\\c"} 1');
  });

  it("records a request's rule results through a recorder into the same series as ruleResult", async () => {
    const metrics = createAdmissionMetrics({ version: "x" });
    const request = { resourceKind: "Pod", resourceNamespace: "ns", operation: "CREATE", dryRun: true };
    metrics.ruleResult(
      { ...request, policy, rule: "r", result: "pass", ruleType: "validate", validationMode: "audit" },
      0.001,
    );
    const recorder = metrics.ruleResults(request);
    recorder.record(policy, "r", "pass", "audit", "validate", 0.001);
    recorder.record({ ...policy }, "r", "pass", "audit", "validate", 0.001);
    metrics.ruleResults(request).record(policy, "r", "fail", "enforce", "validate", 0.001);
    recorder.record(policy, "r", "unusual", "enforce", "mutate", 0.001);
    const text = await metrics.render();
    const labels = (mode: string, result: string, type = "validate") =>
      `policy_validation_mode="${mode}",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="p",resource_kind="Pod",resource_namespace="ns",resource_request_operation="create",rule_name="r",rule_result="${result}",rule_type="${type}",rule_execution_cause="admission_request",dry_run="true"`;
    expect(text).toContain(`kyverno_policy_results_total{${labels("audit", "pass")}} 3`);
    expect(text).toContain(`kyverno_policy_results_total{${labels("enforce", "fail")}} 1`);
    expect(text).toContain(`kyverno_policy_results_total{${labels("enforce", "unusual", "mutate")}} 1`);
  });

  it("bounds the rule-result series recorded through recorders", async () => {
    const metrics = createAdmissionMetrics({ version: "x", maxSeries: 1 });
    for (const ns of ["a", "b", "a"])
      metrics
        .ruleResults({ resourceKind: "Pod", resourceNamespace: ns, operation: "CREATE", dryRun: false })
        .record(policy, "r", "pass", "enforce", "validate", 0.001);
    const text = await metrics.render();
    expect(text).toMatch(/kyverno_policy_results_total\{[^}]*resource_namespace="a"[^}]*\} 2/);
    expect(text).not.toContain('resource_namespace="b"');
  });
  it("counts requests in the series of their own labels when label sets alternate or repeat", async () => {
    const metrics = createAdmissionMetrics({ version: "x" });
    const request = (namespace: string, allowed: boolean) => ({
      resourceKind: "Pod",
      resourceNamespace: namespace,
      operation: "CREATE",
      allowed,
      webhook: "ValidatingWebhookConfiguration" as const,
    });
    for (const [ns, allowed] of [
      ["a", true],
      ["a", true],
      ["b", true],
      ["a", false],
      ["a", true],
    ] as const)
      metrics.admissionRequest(request(ns, allowed), 0.001);
    for (const url of ["/validate/fail", "/validate/fail", "/mutate/fail", "/validate/fail"])
      metrics.httpRequest("POST", url, 0.001);
    const text = await metrics.render();
    const admission = (ns: string, allowed: boolean) =>
      `kyverno_admission_requests_total{resource_kind="Pod",resource_namespace="${ns}",resource_request_operation="create",request_allowed="${allowed}",request_webhook="ValidatingWebhookConfiguration"}`;
    expect(text).toContain(`${admission("a", true)} 3`);
    expect(text).toContain(`${admission("a", false)} 1`);
    expect(text).toContain(`${admission("b", true)} 1`);
    expect(text).toMatch(
      /kyverno_admission_review_duration_seconds_count\{[^}]*resource_namespace="a"[^}]*request_allowed="true"[^}]*\} 3/,
    );
    expect(text).toMatch(/kyverno_http_requests_total\{[^}]*"\/validate\/fail"[^}]*\} 3/);
    expect(text).toMatch(/kyverno_http_requests_total\{[^}]*"\/mutate\/fail"[^}]*\} 1/);
  });
});

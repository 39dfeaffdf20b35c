// The kyverno-ts dashboard (our own, not upstream's): admission traffic and latency, policy results
// and execution time, background scans and reports, and the controllers' resources and certificate.
// Every metric it names is one the controllers emit (checked by monitoring.test.ts).
//
// Plain Node 24 type stripping: erasable TypeScript only.
import type { DashboardSpec } from "./dashboard.ts";

const RATE = "[$__rate_interval]";

/** The kyverno-ts dashboard. */
export const KYVERNO_DASHBOARD: DashboardSpec = {
  uid: "kyverno-ts",
  title: "kyverno-ts",
  description: "Admission, policies, background scans and controllers of kyverno-ts (Kyverno in TypeScript).",
  tags: ["kyverno", "kyverno-ts"],
  rows: [
    {
      title: "Admission",
      panels: [
        {
          title: "Admission requests",
          description:
            "Admission reviews answered per second, by webhook (kyverno_admission_requests_total).",
          type: "timeseries",
          unit: "reqps",
          queries: [
            {
              expr: `sum by (request_webhook) (rate(kyverno_admission_requests_total${RATE}))`,
              legend: "{{request_webhook}}",
            },
          ],
        },
        {
          title: "Allowed vs denied",
          description: "Admission reviews per second by answer (request_allowed).",
          type: "timeseries",
          unit: "reqps",
          stacked: true,
          queries: [
            {
              expr: `sum by (request_allowed) (rate(kyverno_admission_requests_total${RATE}))`,
              legend: "allowed={{request_allowed}}",
            },
          ],
        },
        {
          title: "Admission latency",
          description: "p50, p95 and p99 of kyverno_admission_review_duration_seconds.",
          type: "timeseries",
          unit: "s",
          queries: [0.5, 0.95, 0.99].map((q) => ({
            expr: `histogram_quantile(${q}, sum by (le) (rate(kyverno_admission_review_duration_seconds_bucket${RATE})))`,
            legend: `p${Math.round(q * 100)}`,
          })),
        },
        {
          title: "Webhook errors and timeouts",
          description:
            "Requests past the evaluation deadline, internal failures and unreadable reviews (kyverno_admission_errors_total), and rules ending in error.",
          type: "timeseries",
          unit: "reqps",
          queries: [
            {
              expr: `sum by (error_type) (rate(kyverno_admission_errors_total${RATE}))`,
              legend: "{{error_type}}",
            },
            {
              expr: `sum(rate(kyverno_policy_results_total{rule_result="error",rule_execution_cause="admission_request"}${RATE}))`,
              legend: "rule errors",
            },
          ],
        },
        {
          title: "Webhook HTTP requests",
          description: "Requests per second by route of the webhook server (kyverno_http_requests_total).",
          type: "timeseries",
          unit: "reqps",
          queries: [
            { expr: `sum by (http_url) (rate(kyverno_http_requests_total${RATE}))`, legend: "{{http_url}}" },
          ],
        },
        {
          title: "Requests by kind",
          description: "Admission reviews per second by resource kind and operation.",
          type: "timeseries",
          unit: "reqps",
          queries: [
            {
              expr: `topk(10, sum by (resource_kind, resource_request_operation) (rate(kyverno_admission_requests_total${RATE})))`,
              legend: "{{resource_kind}} {{resource_request_operation}}",
            },
          ],
        },
      ],
    },
    {
      title: "Policies",
      panels: [
        {
          title: "Policy results by status",
          description:
            "Rule results per second by outcome, admission and background (kyverno_policy_results_total).",
          type: "timeseries",
          unit: "ops",
          stacked: true,
          queries: [
            {
              expr: `sum by (rule_result) (rate(kyverno_policy_results_total${RATE}))`,
              legend: "{{rule_result}}",
            },
          ],
        },
        {
          title: "Results by policy",
          description: "Rule results in the last hour by policy and outcome.",
          type: "table",
          queries: [
            {
              expr: "sum by (policy_name, rule_result) (increase(kyverno_policy_results_total[1h]))",
              instant: true,
            },
          ],
        },
        {
          title: "Failing rules",
          description: "The ten rules with the most fail results in the last hour.",
          type: "bargauge",
          queries: [
            {
              expr: 'topk(10, sum by (policy_name, rule_name) (increase(kyverno_policy_results_total{rule_result="fail"}[1h])))',
              legend: "{{policy_name}} / {{rule_name}}",
              instant: true,
            },
          ],
        },
        {
          title: "Execution time by policy (p95)",
          description: "p95 of kyverno_policy_execution_duration_seconds per policy.",
          type: "timeseries",
          unit: "s",
          queries: [
            {
              expr: `histogram_quantile(0.95, sum by (le, policy_name) (rate(kyverno_policy_execution_duration_seconds_bucket${RATE})))`,
              legend: "{{policy_name}}",
            },
          ],
        },
        {
          title: "Policies and rules",
          description:
            "Loaded policies, rules, and rules of policies that are not ready (kyverno_policy_rule_info_total).",
          type: "stat",
          queries: [
            {
              expr: "count(count by (policy_namespace, policy_name) (kyverno_policy_rule_info_total))",
              legend: "policies",
            },
            { expr: "count(kyverno_policy_rule_info_total)", legend: "rules" },
            {
              expr: 'count(kyverno_policy_rule_info_total{status_ready="false"}) or vector(0)',
              legend: "not ready",
            },
          ],
        },
        {
          title: "Policy changes",
          description:
            "Policy creations, updates and deletions in the last hour (kyverno_policy_changes_total).",
          type: "timeseries",
          queries: [
            {
              expr: "sum by (policy_change_type) (increase(kyverno_policy_changes_total[1h]))",
              legend: "{{policy_change_type}}",
            },
          ],
        },
      ],
    },
    {
      title: "Background scans and reports",
      panels: [
        {
          title: "Background scan progress",
          description:
            "Keys waiting in the reports controller's queue, and reconciliations per second (a full scan queues every watched resource).",
          type: "timeseries",
          queries: [
            { expr: "sum by (controller_name) (kyverno_controller_queue_depth)", legend: "queued" },
            {
              expr: `sum by (controller_name) (rate(kyverno_controller_reconcile_total${RATE}))`,
              legend: "reconciled/s",
            },
          ],
        },
        {
          title: "Last full scan",
          description: "Duration of the last completed full scan and the time since it completed.",
          type: "stat",
          unit: "dtdurations",
          queries: [
            { expr: "max(kyverno_background_scan_duration_seconds)", legend: "duration" },
            { expr: "time() - max(kyverno_background_scan_last_completed_timestamp_seconds)", legend: "ago" },
          ],
        },
        {
          title: "Reports",
          description:
            "PolicyReports and ClusterPolicyReports maintained, and full scans completed in the last hour.",
          type: "stat",
          queries: [
            { expr: "max(kyverno_policy_reports)", legend: "reports" },
            { expr: "sum(increase(kyverno_background_scans_total[1h]))", legend: "scans (1h)" },
          ],
        },
        {
          title: "Requeues and drops",
          description:
            "Keys retried after a failure and keys given up (kyverno_controller_requeue_total, _drop_total).",
          type: "timeseries",
          unit: "ops",
          queries: [
            {
              expr: `sum by (controller_name) (rate(kyverno_controller_requeue_total${RATE}))`,
              legend: "requeued {{controller_name}}",
            },
            {
              expr: `sum by (controller_name) (rate(kyverno_controller_drop_total${RATE}))`,
              legend: "dropped {{controller_name}}",
            },
          ],
        },
        {
          title: "API requests",
          description:
            "Kubernetes API requests per second by client and operation (kyverno_client_queries_total).",
          type: "timeseries",
          unit: "reqps",
          queries: [
            {
              expr: `sum by (client_type, operation) (rate(kyverno_client_queries_total${RATE}))`,
              legend: "{{client_type}} {{operation}}",
            },
          ],
        },
        {
          title: "Series dropped",
          description:
            "Label sets refused because a metric family reached maxSeriesPerMetric (kyverno_metrics_series_dropped_total): narrow the metrics with the kyverno-metrics ConfigMap.",
          type: "timeseries",
          unit: "ops",
          queries: [
            {
              expr: `sum by (metric_name) (rate(kyverno_metrics_series_dropped_total${RATE}))`,
              legend: "{{metric_name}}",
            },
          ],
        },
      ],
    },
    {
      title: "Controllers",
      panels: [
        {
          title: "CPU",
          description: "CPU cores used by each controller process.",
          type: "timeseries",
          unit: "short",
          queries: [
            {
              expr: `sum by (job, instance) (rate(process_cpu_seconds_total${RATE}))`,
              legend: "{{job}} {{instance}}",
            },
          ],
        },
        {
          title: "Memory",
          description: "Resident memory and V8 heap in use of each controller process.",
          type: "timeseries",
          unit: "bytes",
          queries: [
            {
              expr: "sum by (job, instance) (process_resident_memory_bytes)",
              legend: "RSS {{job}} {{instance}}",
            },
            {
              expr: "sum by (job, instance) (nodejs_heap_size_used_bytes)",
              legend: "heap {{job}} {{instance}}",
            },
          ],
        },
        {
          title: "Certificate expiry",
          description: "Time left on the webhook server's certificate (renewed 15 days before expiry).",
          type: "stat",
          unit: "dtdurations",
          queries: [
            {
              expr: "min by (certificate) (kyverno_tls_certificate_expiration_timestamp_seconds) - time()",
              legend: "{{certificate}}",
            },
          ],
        },
        {
          title: "Versions",
          description: "kyverno_info of every scraped controller.",
          type: "table",
          width: 24,
          queries: [{ expr: "kyverno_info", instant: true }],
        },
      ],
    },
  ],
};

// The Policy Reporter dashboard (our own): results of PolicyReports and ClusterPolicyReports by
// status, namespace, policy and severity, from `policy_report_result` / `cluster_policy_report_result`
// (the labels kept in every `metrics.mode`: namespace, policy, status, severity), and the reporter's
// notification errors.
//
// Plain Node 24 type stripping: erasable TypeScript only.
import type { DashboardSpec } from "./dashboard.ts";

const RATE = "[$__rate_interval]";

/** The Policy Reporter dashboard. */
export const POLICY_REPORTER_DASHBOARD: DashboardSpec = {
  uid: "kyverno-ts-policy-reporter",
  title: "Policy Reporter (kyverno-ts)",
  description: "Policy report results as Policy Reporter exports them, and its notification errors.",
  tags: ["kyverno", "kyverno-ts", "policy-reporter"],
  rows: [
    {
      title: "Results",
      panels: [
        {
          title: "Namespaced results by status",
          description: "Results of PolicyReports by status (policy_report_result).",
          type: "stat",
          queries: [{ expr: "sum by (status) (policy_report_result)", legend: "{{status}}", instant: true }],
        },
        {
          title: "Cluster results by status",
          description: "Results of ClusterPolicyReports by status (cluster_policy_report_result).",
          type: "stat",
          queries: [
            { expr: "sum by (status) (cluster_policy_report_result)", legend: "{{status}}", instant: true },
          ],
        },
        {
          title: "Results by severity",
          description: "Failing and erroring results of both report kinds by severity.",
          type: "bargauge",
          queries: [
            {
              expr: 'sum by (severity) (policy_report_result{status=~"fail|error"})',
              legend: "{{severity}}",
              instant: true,
            },
            {
              expr: 'sum by (severity) (cluster_policy_report_result{status=~"fail|error"})',
              legend: "{{severity}} (cluster)",
              instant: true,
            },
          ],
        },
        {
          title: "Failing results by namespace",
          description: "The namespaces with the most fail and error results.",
          type: "bargauge",
          queries: [
            {
              expr: 'topk(15, sum by (namespace) (policy_report_result{status=~"fail|error"}))',
              legend: "{{namespace}}",
              instant: true,
            },
          ],
        },
        {
          title: "Failing results by policy",
          description: "The policies with the most fail results, namespaced and cluster reports together.",
          type: "bargauge",
          queries: [
            {
              expr: 'topk(15, sum by (policy) (policy_report_result{status="fail"}))',
              legend: "{{policy}}",
              instant: true,
            },
            {
              expr: 'topk(15, sum by (policy) (cluster_policy_report_result{status="fail"}))',
              legend: "{{policy}} (cluster)",
              instant: true,
            },
          ],
        },
        {
          title: "Results over time",
          description: "Results by status over time, both report kinds.",
          type: "timeseries",
          stacked: true,
          queries: [
            { expr: "sum by (status) (policy_report_result)", legend: "{{status}}" },
            { expr: "sum by (status) (cluster_policy_report_result)", legend: "{{status}} (cluster)" },
          ],
        },
        {
          title: "Results by namespace and policy",
          description: "Every namespace and policy with its results by status.",
          type: "table",
          width: 24,
          queries: [
            { expr: "sum by (namespace, policy, status, severity) (policy_report_result)", instant: true },
          ],
        },
      ],
    },
    {
      title: "Policy Reporter",
      panels: [
        {
          title: "Notification errors",
          description:
            "Failed and dropped notifications per second by target (policy_reporter_notification_errors_total).",
          type: "timeseries",
          unit: "ops",
          queries: [
            {
              expr: `sum by (target, code) (rate(policy_reporter_notification_errors_total${RATE}))`,
              legend: "{{target}} {{code}}",
            },
          ],
        },
      ],
    },
  ],
};

// The alert rules the kyverno-ts chart ships in its PrometheusRule (`prometheusRule.enabled`), as
// data: `generate.ts` writes them to charts/kyverno-ts/files/prometheus-rules.yaml, the template puts
// in the admission controller's scrape job, and `monitoring.test.ts` runs `promtool check rules` and
// `promtool test rules` (alerts.promtool.yaml) on the rendered PrometheusRule.
//
// Every expression reads labels our metrics carry. Upstream's operations guide speaks of an admission
// "failure rate"; no metric has a `success` label: `kyverno_admission_requests_total` carries
// `request_allowed`, so the rate below is the share of denied requests, and evaluation errors and
// timeouts have their own alerts on `kyverno_admission_errors_total` and rule results in `error`.
//
// Plain Node 24 type stripping: erasable TypeScript only.

/** One alerting rule, as Prometheus reads it. */
export interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: "warning" | "critical" };
  annotations: { summary: string; description: string };
}

/** A rule group. */
export interface RuleGroup {
  name: string;
  rules: AlertRule[];
}

/** Replaced by the chart with the admission controller's scrape job (its metrics Service's name). */
export const ADMISSION_JOB = "__ADMISSION_METRICS_JOB__";

/** The groups, in order. */
export const ALERT_GROUPS: readonly RuleGroup[] = [
  {
    name: "kyverno-ts.admission",
    rules: [
      {
        alert: "KyvernoAdmissionHighLatency",
        expr: "histogram_quantile(0.99, sum by (le) (rate(kyverno_admission_review_duration_seconds_bucket[5m]))) > 1",
        for: "5m",
        labels: { severity: "warning" },
        annotations: {
          summary: "Admission review p99 latency is above 1s",
          description:
            "The p99 of kyverno_admission_review_duration_seconds is {{ $value | humanizeDuration }} (threshold 1s); the API server gives up at the webhook timeout (10s by default).",
        },
      },
      {
        alert: "KyvernoAdmissionFailureRateHigh",
        expr: 'sum(rate(kyverno_admission_requests_total{request_allowed="false"}[5m])) / sum(rate(kyverno_admission_requests_total[5m])) > 0.2',
        for: "10m",
        labels: { severity: "warning" },
        annotations: {
          summary: "More than 20% of admission requests are denied",
          description:
            '{{ $value | humanizePercentage }} of admission requests were denied (request_allowed="false") over 5 minutes: a new Enforce policy or a broken deployment pipeline.',
        },
      },
      {
        alert: "KyvernoWebhookErrors",
        expr: '(sum(rate(kyverno_admission_errors_total{error_type=~"internal|bad_request"}[5m])) or vector(0)) + (sum(rate(kyverno_policy_results_total{rule_result="error",rule_execution_cause="admission_request"}[5m])) or vector(0)) > 0',
        for: "5m",
        labels: { severity: "warning" },
        annotations: {
          summary: "The admission webhooks answer with errors",
          description:
            '{{ printf "%.2f" $value }} errors per second (unreadable reviews, internal failures or rules ending in error) for 5 minutes; with failurePolicy Fail they deny requests.',
        },
      },
      {
        alert: "KyvernoWebhookTimeouts",
        expr: 'sum by (request_webhook) (rate(kyverno_admission_errors_total{error_type="timeout"}[5m])) > 0',
        for: "5m",
        labels: { severity: "critical" },
        annotations: {
          summary: "Admission requests run past their deadline",
          description:
            '{{ $labels.request_webhook }} answered {{ printf "%.2f" $value }} requests per second after the evaluation deadline (below the webhook timeout): the API server may time out and apply the failure policy.',
        },
      },
      {
        alert: "KyvernoAdmissionControllerDown",
        expr: `absent(up{job="${ADMISSION_JOB}"} == 1)`,
        for: "5m",
        labels: { severity: "critical" },
        annotations: {
          summary: "No admission controller replica is scraped as up",
          description:
            "Prometheus has no up admission controller target for 5 minutes: webhooks with failurePolicy Fail block every matching request.",
        },
      },
      {
        alert: "KyvernoCertificateExpiringSoon",
        expr: "min by (certificate) (kyverno_tls_certificate_expiration_timestamp_seconds) - time() < 7 * 86400",
        for: "1h",
        labels: { severity: "warning" },
        annotations: {
          summary: "The webhook certificate expires within 7 days",
          description:
            "The {{ $labels.certificate }} certificate expires in {{ $value | humanizeDuration }}; it is renewed 15 days before expiry, so renewal is failing (check the leader's logs and its Secrets).",
        },
      },
    ],
  },
  {
    name: "kyverno-ts.policies",
    rules: [
      {
        alert: "KyvernoPolicyNotReady",
        expr: 'max by (policy_namespace, policy_name) (kyverno_policy_rule_info_total{status_ready="false"}) > 0',
        for: "5m",
        labels: { severity: "warning" },
        annotations: {
          summary: "A policy is not ready",
          description:
            "Policy {{ $labels.policy_namespace }}/{{ $labels.policy_name }} is not ready: it is not applied to admission requests. Its status (kubectl get cpol,pol -A) says why.",
        },
      },
    ],
  },
  {
    name: "kyverno-ts.reports",
    rules: [
      {
        alert: "KyvernoReportsControllerFallingBehind",
        expr: "min_over_time(kyverno_controller_queue_depth[30m]) > 0",
        for: "0m",
        labels: { severity: "warning" },
        annotations: {
          summary: "A controller's work queue has not emptied for 30 minutes",
          description:
            "{{ $labels.controller_name }} still has at least {{ $value }} keys queued after 30 minutes: reports lag behind the cluster (raise backgroundScanWorkers or the client rate limits).",
        },
      },
      {
        alert: "KyvernoControllerDroppingKeys",
        expr: "sum by (controller_name) (increase(kyverno_controller_drop_total[15m])) > 0",
        for: "0m",
        labels: { severity: "warning" },
        annotations: {
          summary: "A controller gives up on resources",
          description:
            "{{ $labels.controller_name }} dropped {{ $value | humanize }} keys after repeated failures in 15 minutes: their reports are stale until the next full scan.",
        },
      },
    ],
  },
  {
    name: "kyverno-ts.policy-reporter",
    rules: [
      {
        alert: "PolicyReporterNotificationErrors",
        expr: "sum by (target) (rate(policy_reporter_notification_errors_total[5m])) > 0",
        for: "10m",
        labels: { severity: "warning" },
        annotations: {
          summary: "Policy Reporter cannot deliver notifications",
          description:
            'Target {{ $labels.target }} fails {{ printf "%.3f" $value }} deliveries per second for 10 minutes: new policy results are not reaching it.',
        },
      },
    ],
  },
];

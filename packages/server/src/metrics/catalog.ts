/**
 * Every metric family the controllers expose, in one table: name, type, labels (in exposition
 * order), description, which binary serves it and how it stands against upstream Kyverno. The
 * recorders build their families from it, the docs table (`docs/monitoring.md`, scripts/monitoring/generate.ts) is generated from it,
 * and the scrape tests compare each binary's `/metrics` with it.
 */

/** Prometheus metric types used here. */
export type MetricType = "counter" | "gauge" | "histogram";

/** The binaries that serve `/metrics`. */
export type MetricsBinary = "admission" | "reports" | "background" | "cleanup";

/**
 * How a family stands against upstream: `upstream` has upstream's name, type, labels and buckets;
 * `kyverno-ts` is this project's own (upstream has no equivalent); `process` is the standard process
 * collector every Prometheus client exposes (upstream's Go client has the same names).
 */
export type MetricOrigin = "upstream" | "kyverno-ts" | "process";

/** One metric family. */
export interface MetricFamilySpec {
  readonly name: string;
  readonly type: MetricType;
  readonly labels: readonly string[];
  readonly help: string;
  readonly binaries: readonly MetricsBinary[];
  readonly origin: MetricOrigin;
  /** How it differs from upstream, or why it exists. */
  readonly note?: string;
}

/** Labels of `kyverno_policy_results_total` and `kyverno_policy_execution_duration_seconds`, as upstream. */
export const POLICY_RESULT_LABELS = [
  "policy_validation_mode",
  "policy_type",
  "policy_background_mode",
  "policy_namespace",
  "policy_name",
  "resource_kind",
  "resource_namespace",
  "resource_request_operation",
  "rule_name",
  "rule_result",
  "rule_type",
  "rule_execution_cause",
  "dry_run",
] as const;

const ADMISSION_LABELS = [
  "resource_kind",
  "resource_namespace",
  "resource_request_operation",
  "request_allowed",
  "request_webhook",
] as const;

const POLICY_LABELS = [
  "policy_validation_mode",
  "policy_type",
  "policy_background_mode",
  "policy_namespace",
  "policy_name",
] as const;

const BOTH: readonly MetricsBinary[] = ["admission", "reports"];

/** Labels of the CEL policy kinds' execution histograms, as upstream documents them. */
const CEL_EXECUTION_LABELS = [
  "policy_background_mode",
  "policy_name",
  "resource_kind",
  "resource_namespace",
  "resource_request_operation",
  "execution_cause",
  "result",
] as const;
/** The same with `policy_validation_mode` (validating and image validating policies). */
const CEL_VALIDATION_EXECUTION_LABELS = [
  "policy_background_mode",
  "policy_name",
  "policy_validation_mode",
  ...CEL_EXECUTION_LABELS.slice(2),
] as const;
const CEL_NOTE =
  "execution_cause admission_request (admission controller) or background_scan (reports controller); result is the policy's outcome upper-cased (PASS, FAIL, ERROR, SKIP)";
const CEL_ADMISSION_NOTE =
  "admission requests only (execution_cause admission_request); result is the policy's outcome upper-cased (PASS, FAIL, ERROR, SKIP)";
/** Families every controller binary serves (the client, work queues, build info, process figures). */
const EVERY: readonly MetricsBinary[] = ["admission", "reports", "background", "cleanup"];

const family = (spec: MetricFamilySpec): MetricFamilySpec => spec;

/** Labels of the cleanup policy families, as upstream. */
const CLEANUP_LABELS = [
  "policy_type",
  "policy_namespace",
  "policy_name",
  "resource_kind",
  "resource_namespace",
];
/** Labels of the TTL label families, as upstream. */
const TTL_LABELS = ["resource_group", "resource_version", "resource_resource", "resource_namespace"];
/** Labels of the DeletingPolicy families, as upstream. */
const DELETING_LABELS = ["policy_type", "policy_namespace", "policy_name", "resource"];

/** The families, by the key the recorders use. */
export const METRIC_FAMILIES = {
  policyResults: family({
    name: "kyverno_policy_results_total",
    type: "counter",
    labels: POLICY_RESULT_LABELS,
    help: "Number of rule results, by policy, rule, resource and outcome (admission requests and background scans).",
    binaries: BOTH,
    origin: "upstream",
    note: "results are lower-case (`pass`, `fail`, `warn`, `error`, `skip`) as upstream emits them",
  }),
  policyExecution: family({
    name: "kyverno_policy_execution_duration_seconds",
    type: "histogram",
    labels: POLICY_RESULT_LABELS,
    help: "Time taken to evaluate a rule, in seconds.",
    binaries: BOTH,
    origin: "upstream",
    note: "the engine times policies: a policy's time is split evenly across its rule results",
  }),
  ruleInfo: family({
    name: "kyverno_policy_rule_info_total",
    type: "gauge",
    labels: [
      "policy_namespace",
      "policy_name",
      "status_ready",
      "policy_validation_mode",
      "policy_type",
      "policy_background_mode",
      "rule_name",
      "rule_type",
    ],
    help: "1 for every rule of every loaded policy; status_ready tells whether the policy serves requests.",
    binaries: ["admission"],
    origin: "upstream",
  }),
  policyChanges: family({
    name: "kyverno_policy_changes_total",
    type: "counter",
    labels: [...POLICY_LABELS, "policy_change_type"],
    help: "Number of policy creations, updates and deletions seen.",
    binaries: ["admission"],
    origin: "upstream",
  }),
  admissionRequests: family({
    name: "kyverno_admission_requests_total",
    type: "counter",
    labels: ADMISSION_LABELS,
    help: "Number of admission requests answered, by resource, operation, webhook and answer.",
    binaries: ["admission"],
    origin: "upstream",
  }),
  admissionReview: family({
    name: "kyverno_admission_review_duration_seconds",
    type: "histogram",
    labels: ADMISSION_LABELS,
    help: "Time taken to answer an admission review, in seconds.",
    binaries: ["admission"],
    origin: "upstream",
  }),
  validatingPolicyExecution: family({
    name: "kyverno_validating_policy_execution_duration_seconds",
    type: "histogram",
    labels: CEL_VALIDATION_EXECUTION_LABELS,
    help: "Time taken to evaluate a ValidatingPolicy, in seconds.",
    binaries: BOTH,
    origin: "upstream",
    note: CEL_NOTE,
  }),
  mutatingPolicyExecution: family({
    name: "kyverno_mutating_policy_execution_duration_seconds",
    type: "histogram",
    labels: CEL_EXECUTION_LABELS,
    help: "Time taken to evaluate a MutatingPolicy, in seconds.",
    binaries: ["admission"],
    origin: "upstream",
    note: CEL_ADMISSION_NOTE,
  }),
  generatingPolicyExecution: family({
    name: "kyverno_generating_policy_execution_duration_seconds",
    type: "histogram",
    labels: CEL_EXECUTION_LABELS,
    help: "Time taken to evaluate a GeneratingPolicy for a trigger, in seconds.",
    binaries: ["background"],
    origin: "upstream",
    note: "recorded by the background controller per cel-generate UpdateRequest evaluated (the resource reads it needs included); execution_cause admission_request for a trigger an admission request handed over, background_scan for generateExisting and synchronization; result is the policy's outcome upper-cased (PASS, FAIL, ERROR, SKIP)",
  }),
  imageValidatingPolicyExecution: family({
    name: "kyverno_image_validating_policy_execution_duration_seconds",
    type: "histogram",
    labels: CEL_VALIDATION_EXECUTION_LABELS,
    help: "Time taken to evaluate an ImageValidatingPolicy (an error until image verification exists), in seconds.",
    binaries: BOTH,
    origin: "upstream",
    note: CEL_NOTE,
  }),
  httpRequests: family({
    name: "kyverno_http_requests_total",
    type: "counter",
    labels: ["http_method", "http_url"],
    help: "Number of HTTP requests served by the webhook server, by method and route.",
    binaries: ["admission"],
    origin: "upstream",
    note: "`http_url` is the route (`/validate/fail`), not the raw URL with its query",
  }),
  httpDuration: family({
    name: "kyverno_http_requests_duration_seconds",
    type: "histogram",
    labels: ["http_method", "http_url"],
    help: "Time taken to serve an HTTP request of the webhook server, in seconds.",
    binaries: ["admission"],
    origin: "upstream",
  }),
  clientQueries: family({
    name: "kyverno_client_queries_total",
    type: "counter",
    labels: ["operation", "client_type", "resource_kind", "resource_namespace"],
    help: "Number of Kubernetes API requests made, by operation, client and resource.",
    binaries: EVERY,
    origin: "upstream",
  }),
  controllerReconcile: family({
    name: "kyverno_controller_reconcile_total",
    type: "counter",
    labels: ["controller_name"],
    help: "Number of reconciliations performed, by controller.",
    binaries: EVERY,
    note: "the admission controller's leader duties (certificates, webhook configurations, policy statuses) run on one queue, `admission-leader`",
    origin: "upstream",
  }),
  controllerRequeue: family({
    name: "kyverno_controller_requeue_total",
    type: "counter",
    labels: ["controller_name", "num_requeues"],
    help: "Number of keys queued again after a failure, by controller and consecutive requeues.",
    binaries: EVERY,
    origin: "upstream",
  }),
  controllerDrop: family({
    name: "kyverno_controller_drop_total",
    type: "counter",
    labels: ["controller_name"],
    help: "Number of keys given up after too many failures, by controller.",
    binaries: EVERY,
    origin: "upstream",
  }),
  info: family({
    name: "kyverno_info",
    type: "gauge",
    labels: ["version"],
    help: "Build information of the running controller (always 1).",
    binaries: EVERY,
    origin: "upstream",
  }),
  admissionErrors: family({
    name: "kyverno_admission_errors_total",
    type: "counter",
    labels: ["request_webhook", "error_type"],
    help: "Admission requests that could not be evaluated normally: error_type is `timeout` (answered past the evaluation deadline), `internal` (a failure outside the engine) or `bad_request` (an unreadable AdmissionReview).",
    binaries: ["admission"],
    origin: "kyverno-ts",
    note: 'upstream has no error metric; rule errors are also `kyverno_policy_results_total{rule_result="error"}`',
  }),
  resultsDropped: family({
    name: "kyverno_admission_results_dropped_total",
    type: "counter",
    labels: [],
    help: "Admission results dropped because the queue to the reports controller was full.",
    binaries: ["admission"],
    origin: "kyverno-ts",
  }),
  updateRequestsDropped: family({
    name: "kyverno_admission_updaterequests_dropped_total",
    type: "counter",
    labels: [],
    help: "Generate and mutate-existing work of admitted requests dropped because the UpdateRequest intake was full (10,000 waiting to be created).",
    binaries: ["admission"],
    origin: "kyverno-ts",
  }),
  admissionOffloaded: family({
    name: "kyverno_admission_offloaded_total",
    type: "counter",
    labels: ["reason"],
    help: "Admission requests evaluated by the evaluation pool's worker threads instead of the serving thread: reason is `slow_policy` (a selected policy was found slow lately), `cut` (its inline attempts overran the inline budget), `deadline` (too little time left to try inline), `inline_off` (inline attempts disabled) or `large_body` (a review large enough to be parsed by a worker).",
    binaries: ["admission"],
    origin: "kyverno-ts",
    note: "upstream evaluates every request on a goroutine; a steady rate of `cut` or `slow_policy` means costly policies, and each started worker adds memory",
  }),
  evaluationWorkers: family({
    name: "kyverno_evaluation_workers",
    type: "gauge",
    labels: [],
    help: "Evaluation pool worker threads running now (each a V8 isolate of about 30 MiB or more).",
    binaries: ["admission"],
    origin: "kyverno-ts",
  }),
  evaluationWorkerStarts: family({
    name: "kyverno_evaluation_worker_starts_total",
    type: "counter",
    labels: [],
    help: "Evaluation pool worker threads started: prestarted, wanted by a queued job, or replacing one that died or overran a deadline.",
    binaries: ["admission"],
    origin: "kyverno-ts",
  }),
  certificateExpiry: family({
    name: "kyverno_tls_certificate_expiration_timestamp_seconds",
    type: "gauge",
    labels: ["certificate"],
    help: "When the certificate the webhook server presents expires (Unix time, seconds); certificate is `serving`.",
    binaries: ["admission"],
    origin: "kyverno-ts",
    note: "upstream renews silently; this lets an alert fire before a failed renewal breaks the webhooks",
  }),
  queueDepth: family({
    name: "kyverno_controller_queue_depth",
    type: "gauge",
    labels: ["controller_name"],
    help: "Keys waiting in a controller's work queue.",
    binaries: ["reports", "background"],
    origin: "kyverno-ts",
  }),
  scansCompleted: family({
    name: "kyverno_background_scans_total",
    type: "counter",
    labels: [],
    help: "Full background scans completed (every watched resource reconciled).",
    binaries: ["reports"],
    origin: "kyverno-ts",
  }),
  scanDuration: family({
    name: "kyverno_background_scan_duration_seconds",
    type: "gauge",
    labels: [],
    help: "Duration of the last completed full background scan, in seconds.",
    binaries: ["reports"],
    origin: "kyverno-ts",
  }),
  scanCompleted: family({
    name: "kyverno_background_scan_last_completed_timestamp_seconds",
    type: "gauge",
    labels: [],
    help: "When the last full background scan completed (Unix time, seconds); 0 before the first.",
    binaries: ["reports"],
    origin: "kyverno-ts",
  }),
  reports: family({
    name: "kyverno_policy_reports",
    type: "gauge",
    labels: [],
    help: "PolicyReports and ClusterPolicyReports the reports controller maintains.",
    binaries: ["reports"],
    origin: "kyverno-ts",
  }),
  updateRequestsProcessed: family({
    name: "kyverno_updaterequest_processed_total",
    type: "counter",
    labels: ["request_type", "state"],
    help: "UpdateRequests the background controller processed, by request type (`generate`, `mutate`) and the state they ended in (`Completed`, `Skip`, `Failed`).",
    binaries: ["background"],
    origin: "kyverno-ts",
    note: "upstream's background controller counts only its queue (`kyverno_controller_*`)",
  }),
  updateRequestDuration: family({
    name: "kyverno_updaterequest_processing_duration_seconds",
    type: "histogram",
    labels: ["request_type"],
    help: "Time taken to process one UpdateRequest (reading the trigger, evaluating, writing), in seconds.",
    binaries: ["background"],
    origin: "kyverno-ts",
  }),
  updateRequestsPending: family({
    name: "kyverno_updaterequest_pending",
    type: "gauge",
    labels: [],
    help: "UpdateRequests in Kyverno's namespace not yet processed (Pending or Failed with retries left).",
    binaries: ["background"],
    origin: "kyverno-ts",
  }),
  cleanupDeleted: family({
    name: "kyverno_cleanup_controller_deletedobjects_total",
    type: "counter",
    labels: CLEANUP_LABELS,
    help: "Objects deleted by CleanupPolicies and ClusterCleanupPolicies.",
    binaries: ["cleanup"],
    origin: "upstream",
    note: "policy_type is `cluster` or `namespaced` and policy_namespace `-` for a ClusterCleanupPolicy, as upstream's docs",
  }),
  cleanupErrors: family({
    name: "kyverno_cleanup_controller_errors_total",
    type: "counter",
    labels: CLEANUP_LABELS,
    help: "Errors of cleanup policies while listing or deleting objects.",
    binaries: ["cleanup"],
    origin: "upstream",
  }),
  ttlDeleted: family({
    name: "kyverno_ttl_controller_deletedobjects_total",
    type: "counter",
    labels: TTL_LABELS,
    help: "Objects deleted for their cleanup.kyverno.io/ttl label.",
    binaries: ["cleanup"],
    origin: "upstream",
    note: "upstream's docs name the OpenTelemetry counter (`kyverno_ttl_controller_deletedobjects`); its Prometheus exporter adds `_total`",
  }),
  ttlErrors: family({
    name: "kyverno_ttl_controller_errors_total",
    type: "counter",
    labels: TTL_LABELS,
    help: "Errors deleting objects for their cleanup.kyverno.io/ttl label.",
    binaries: ["cleanup"],
    origin: "upstream",
    note: "upstream's docs name the OpenTelemetry counter (`kyverno_ttl_controller_errors`); its Prometheus exporter adds `_total`",
  }),
  deletingDeleted: family({
    name: "kyverno_deleting_controller_deletedobjects_total",
    type: "counter",
    labels: DELETING_LABELS,
    help: "Objects deleted by DeletingPolicies and NamespacedDeletingPolicies.",
    binaries: ["cleanup"],
    origin: "upstream",
  }),
  deletingErrors: family({
    name: "kyverno_deleting_controller_errors_total",
    type: "counter",
    labels: DELETING_LABELS,
    help: "Errors of DeletingPolicies while listing, evaluating or deleting objects.",
    binaries: ["cleanup"],
    origin: "upstream",
  }),
  seriesDropped: family({
    name: "kyverno_metrics_series_dropped_total",
    type: "counter",
    labels: ["metric_name"],
    help: "Observations not recorded because their family already held its maximum number of series.",
    binaries: EVERY,
    origin: "kyverno-ts",
    note: "the bound of the `kyverno-metrics` ConfigMap's `maxSeriesPerMetric` (default 10,000)",
  }),
  processCpu: family({
    name: "process_cpu_seconds_total",
    type: "counter",
    labels: [],
    help: "Total user and system CPU time spent, in seconds.",
    binaries: EVERY,
    origin: "process",
  }),
  processRss: family({
    name: "process_resident_memory_bytes",
    type: "gauge",
    labels: [],
    help: "Resident memory size, in bytes.",
    binaries: EVERY,
    origin: "process",
  }),
  processHeap: family({
    name: "nodejs_heap_size_used_bytes",
    type: "gauge",
    labels: [],
    help: "V8 heap in use, in bytes.",
    binaries: EVERY,
    origin: "process",
    note: "Node.js's equivalent of Go's `go_memstats_heap_inuse_bytes`",
  }),
  processStart: family({
    name: "process_start_time_seconds",
    type: "gauge",
    labels: [],
    help: "Start time of the process since the Unix epoch, in seconds.",
    binaries: EVERY,
    origin: "process",
  }),
} as const satisfies Record<string, MetricFamilySpec>;

/** The key of a family in `METRIC_FAMILIES`. */
export type MetricFamilyKey = keyof typeof METRIC_FAMILIES;

/** Upstream families kyverno-ts does not emit, with the reason (the feature is not built yet). */
export const UPSTREAM_NOT_EMITTED: ReadonlyArray<{ names: readonly string[]; reason: string }> = [
  {
    names: ["validating", "mutating", "generating", "image_validating"].map(
      (k) => `kyverno_${k}_policy_results_total`,
    ),
    reason:
      "per-result counters of the CEL policy kinds are not emitted yet (their execution histograms are)",
  },
];

/** The families one binary serves, in table order. */
export function familiesOf(binary: MetricsBinary): MetricFamilySpec[] {
  return Object.values(METRIC_FAMILIES).filter((f: MetricFamilySpec) => f.binaries.includes(binary));
}

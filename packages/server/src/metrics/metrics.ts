/**
 * The admission controller's Prometheus metrics, with upstream Kyverno's names, label sets and label
 * values (lower-case results and operations, `-` as the namespace of cluster policies), shaped by the
 * `kyverno-metrics` ConfigMap (namespaces, buckets, disabled metrics and label dimensions) and bounded
 * per family. The families are those of `catalog.ts` served by the `admission` binary.
 */
import { METRIC_FAMILIES, type MetricFamilySpec, UPSTREAM_NOT_EMITTED } from "./catalog.js";
import {
  defaultMetricsConfig,
  exposureOf,
  exposureProblems,
  type MetricsConfig,
  namespaceFilter,
} from "./config.js";
import {
  createExposition,
  type MetricsSource,
  type ProcessProbe,
  processFamilies,
  systemProcessProbe,
} from "./exposition.js";
import {
  type CollectedSample,
  type CounterSeries,
  createCollectedFamily,
  createCounterFamily,
  createHistogramFamily,
  type FamilyLimits,
  type HistogramSeries,
} from "./family.js";
import {
  OFFLOAD_REASONS,
  type OffloadReason,
  type PolicyLabels,
  type RequestRuleLabels,
  type RuleResultRecorder,
} from "./recorder-types.js";
import { createRecorderCache } from "./rule-results.js";

export type { PolicyLabels, RequestRuleLabels, RuleResultRecorder } from "./recorder-types.js";

/** One rule result of an admission request (`kyverno_policy_results_total` and execution duration). */
export interface RuleResultLabels {
  policy: PolicyLabels;
  /** The rule's own failure action when it differs from the policy's (rule-level `failureAction`). */
  validationMode?: "enforce" | "audit";
  rule: string;
  /** `pass`, `fail`, `warn`, `error` or `skip`. */
  result: string;
  ruleType: "validate" | "mutate" | "generate";
  resourceKind: string;
  resourceNamespace: string;
  /** Upper-case admission operation; exported lower-case as upstream does. */
  operation: string;
  dryRun: boolean;
}

/** The `request_webhook` label values. */
export type WebhookKind = "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration";

/** Labels of one admission review (`kyverno_admission_requests_total` and review duration). */
export interface AdmissionRequestLabels {
  resourceKind: string;
  resourceNamespace: string;
  operation: string;
  allowed: boolean;
  webhook: WebhookKind;
}

/** One rule of a loaded policy (`kyverno_policy_rule_info_total`). */
export interface RuleInfoLabels {
  policy: PolicyLabels;
  rule: string;
  ruleType: "validate" | "mutate" | "generate" | "imageVerify";
  ready: boolean;
}

/** Labels of `kyverno_client_queries_total` (the kube client's `QueryEvent` fits). */
export interface ClientQueryLabels {
  operation: string;
  clientType: string;
  kind: string;
  namespace: string;
}

/** The `error_type` of `kyverno_admission_errors_total`. */
export type AdmissionErrorType = "timeout" | "internal" | "bad_request";

/** Recorder of the admission controller's metrics; create one per process with `createAdmissionMetrics`. */
export interface AdmissionMetrics extends MetricsSource {
  admissionRequest(labels: AdmissionRequestLabels, durationSeconds: number): void;
  /** One rule result; for many results of the same request, `ruleResults` is cheaper. */
  ruleResult(labels: RuleResultLabels, durationSeconds: number): void;
  /** A recorder for the rule results of one request (the admission hot path). */
  ruleResults(request: RequestRuleLabels): RuleResultRecorder;
  httpRequest(method: string, url: string, durationSeconds: number): void;
  policyChange(policy: PolicyLabels, change: "create" | "update" | "delete"): void;
  /** Replaces the rule-info series of one policy (`key`); an empty list removes them. */
  setRuleInfo(key: string, rules: readonly RuleInfoLabels[]): void;
  /** Counts admission results dropped by a bounded result sink. */
  resultsDropped(count: number): void;
  /** Counts generate / mutate-existing intents the UpdateRequest intake dropped (it was full). */
  updateRequestsDropped(count: number): void;
  /** A request evaluated by the evaluation pool instead of the serving thread (`kyverno_admission_offloaded_total`). */
  offloaded(reason: OffloadReason): void;
  /** One API request of the controller's client (`kyverno_client_queries_total`); wire it to `onQuery`. */
  clientQuery(event: ClientQueryLabels): void;
  /** A request that could not be evaluated normally (`kyverno_admission_errors_total`). */
  admissionError(webhook: WebhookKind, errorType: AdmissionErrorType): void;
  /** The expiry of the certificate the webhook server presents. */
  certificateExpiry(certificate: "serving", notAfter: Date): void;
  /** One evaluation of a CEL policy at admission (`kyverno_<kind>_policy_execution_duration_seconds`). */
  celPolicyExecution(labels: CelExecutionLabels, durationSeconds: number): void;
  /** A reconciliation of a controller queue (the leader's duties). */
  reconcile(controller: string): void;
  /** A key queued again after its `retries`-th consecutive failure. */
  requeue(controller: string, retries: number): void;
}

/** Labels of one CEL policy evaluation. */
export interface CelExecutionLabels {
  type: "validate" | "mutate" | "imageValidate";
  policyName: string;
  background: boolean;
  /** `enforce` with the Deny action, else `audit` (validating kinds). */
  validationMode: "enforce" | "audit";
  resourceKind: string;
  resourceNamespace: string;
  operation: string;
  /** The policy's outcome: its rule's status (pass, fail, error, skip). */
  result: string;
}

/** Options of `createAdmissionMetrics`. */
export interface AdmissionMetricsOptions {
  /** Reported by `kyverno_info{version}`. */
  version: string;
  /** The `kyverno-metrics` ConfigMap (default: every namespace, metric and label; upstream's buckets). */
  config?: MetricsConfig;
  /** Overrides the config's `maxSeriesPerMetric`. */
  maxSeries?: number;
  /** Process figures (default: this process). */
  processProbe?: ProcessProbe;
  /** The evaluation pool's workers now and started so far (none without a pool). */
  poolStats?: () => { workers: number; started: number };
}

const F = METRIC_FAMILIES;
/** The leader's duty queue (as `ADMISSION_LEADER_QUEUE` of cluster/leader-duties.ts). */
const ADMISSION_LEADER_QUEUE = "admission-leader";

/** The admission controller's families, in exposition order. */
const ADMISSION_FAMILIES: readonly MetricFamilySpec[] = Object.values(F).filter((f: MetricFamilySpec) =>
  f.binaries.includes("admission"),
);

/** Problems of a `kyverno-metrics` ConfigMap for the admission controller (logged at start). */
export function admissionConfigProblems(config: MetricsConfig, source: string): string[] {
  const others = [
    ...UPSTREAM_NOT_EMITTED.flatMap((u) => u.names),
    ...Object.values(F)
      .filter((f: MetricFamilySpec) => !f.binaries.includes("admission"))
      .map((f) => f.name),
  ];
  return exposureProblems(config, ADMISSION_FAMILIES, others, source);
}

/** The admission controller's families (`all` in exposition order) and the state its collected ones read. */
function createAdmissionFamilies(options: AdmissionMetricsOptions, config: MetricsConfig) {
  const maxSeries = options.maxSeries ?? config.maxSeriesPerMetric;
  const exposure = (spec: MetricFamilySpec) => exposureOf(config, spec);
  const dropped = createCounterFamily(F.seriesDropped, exposure(F.seriesDropped), { maxSeries: 1000 });
  const limits: FamilyLimits = {
    maxSeries,
    onDropped: (name) => dropped.series(name, () => [name])?.inc(),
  };
  const counter = (spec: MetricFamilySpec) => createCounterFamily(spec, exposure(spec), limits);
  const histogram = (spec: MetricFamilySpec) => createHistogramFamily(spec, exposure(spec), limits);
  const collected = (spec: MetricFamilySpec, collect: () => Iterable<CollectedSample>) =>
    createCollectedFamily(spec, exposure(spec), collect);
  const ruleInfo = new Map<string, string[][]>();
  const pool = options.poolStats ?? (() => ({ workers: 0, started: 0 }));
  const certificates = new Map<string, number>();
  const f = {
    dropped,
    policyResults: counter(F.policyResults),
    policyExecution: histogram(F.policyExecution),
    admissionRequests: counter(F.admissionRequests),
    admissionReview: histogram(F.admissionReview),
    celExecution: {
      validate: histogram(F.validatingPolicyExecution),
      mutate: histogram(F.mutatingPolicyExecution),
      imageValidate: histogram(F.imageValidatingPolicyExecution),
    },
    httpRequests: createCounterFamily(F.httpRequests, exposure(F.httpRequests), {
      ...limits,
      maxSeries: 1000,
    }),
    httpDuration: createHistogramFamily(F.httpDuration, exposure(F.httpDuration), {
      ...limits,
      maxSeries: 1000,
    }),
    policyChanges: counter(F.policyChanges),
    clientQueries: counter(F.clientQueries),
    admissionErrors: counter(F.admissionErrors),
    resultsDropped: counter(F.resultsDropped),
    updateRequestsDropped: counter(F.updateRequestsDropped),
    offloaded: counter(F.admissionOffloaded),
    reconciles: counter(F.controllerReconcile),
    requeues: counter(F.controllerRequeue),
    // The leader's duty queue retries forever: nothing is ever dropped, the family stays at 0.
    drops: counter(F.controllerDrop),
    ruleInfo,
    certificates,
  };
  const all = [
    f.policyResults,
    f.policyExecution,
    f.admissionRequests,
    f.admissionReview,
    f.celExecution.validate,
    f.celExecution.mutate,
    f.celExecution.imageValidate,
    f.httpRequests,
    f.httpDuration,
    collected(F.ruleInfo, function* () {
      for (const rows of ruleInfo.values()) for (const values of rows) yield { values, value: 1 };
    }),
    f.policyChanges,
    f.clientQueries,
    f.reconciles,
    f.requeues,
    f.drops,
    collected(F.info, () => [{ values: [options.version], value: 1 }]),
    f.admissionErrors,
    f.resultsDropped,
    f.updateRequestsDropped,
    f.offloaded,
    collected(F.evaluationWorkers, () => [{ values: [], value: pool().workers }]),
    collected(F.evaluationWorkerStarts, () => [{ values: [], value: pool().started }]),
    collected(F.certificateExpiry, () =>
      [...certificates].map(([certificate, seconds]) => ({ values: [certificate], value: seconds })),
    ),
    dropped,
    ...processFamilies(options.processProbe ?? systemProcessProbe(), exposure),
  ];
  return { ...f, all };
}
type AdmissionFamilies = ReturnType<typeof createAdmissionFamilies>;

/** Counters an alert or a dashboard reads exist from the start (at 0), so a query has data to rate. */
function seedSeries(f: AdmissionFamilies): void {
  for (const webhook of ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"] as const)
    for (const type of ["timeout", "internal", "bad_request"] as const)
      f.admissionErrors.series(`${webhook}\u0000${type}`, () => [webhook, type])?.inc(0);
  f.resultsDropped.series("", () => [])?.inc(0);
  f.updateRequestsDropped.series("", () => [])?.inc(0);
  for (const reason of OFFLOAD_REASONS) f.offloaded.series(reason, () => [reason])?.inc(0);
  f.drops.series(ADMISSION_LEADER_QUEUE, () => [ADMISSION_LEADER_QUEUE])?.inc(0);
  f.requeues.series(`${ADMISSION_LEADER_QUEUE}\u00001`, () => [ADMISSION_LEADER_QUEUE, "1"])?.inc(0);
  for (const spec of [F.policyResults, F.policyExecution, F.admissionRequests, F.admissionReview])
    f.dropped.series(spec.name, () => [spec.name])?.inc(0);
}

const policyValues = (p: PolicyLabels): string[] => [
  p.validationMode,
  p.type,
  String(p.background),
  p.namespace,
  p.name,
];

/** The label values of a CEL policy execution (mutating kinds have no validation mode). */
function celExecutionValues(l: CelExecutionLabels): string[] {
  return [
    String(l.background),
    l.policyName,
    ...(l.type === "mutate" ? [] : [l.validationMode]),
    l.resourceKind,
    l.resourceNamespace,
    l.operation.toLowerCase(),
    "admission_request",
    l.result.toUpperCase(),
  ];
}

/** The `kyverno_policy_rule_info_total` rows of a policy's rules. */
function ruleInfoRows(rules: readonly RuleInfoLabels[]): string[][] {
  return rules.map((r) => [
    r.policy.namespace,
    r.policy.name,
    String(r.ready),
    r.policy.validationMode,
    r.policy.type,
    String(r.policy.background),
    r.rule,
    r.ruleType,
  ]);
}

/** The series of the last label set recorded (`R`: the labels compared), kept only when both exist. */
type LastSeries<R> = R & { count: CounterSeries; duration: HistogramSeries };

/** Creates the metrics; nothing is shared between two instances. */
export function createAdmissionMetrics(options: AdmissionMetricsOptions): AdmissionMetrics {
  const config = options.config ?? defaultMetricsConfig();
  const f = createAdmissionFamilies(options, config);
  seedSeries(f);
  const acceptNamespace = namespaceFilter(config);
  const recorders = createRecorderCache(f.policyResults, f.policyExecution, acceptNamespace);
  let lastAdmission:
    | LastSeries<{
        kind: string;
        namespace: string;
        operation: string;
        allowed: boolean;
        webhook: WebhookKind;
      }>
    | undefined;
  let lastHttp: LastSeries<{ method: string; url: string }> | undefined;

  return {
    ...createExposition(() => f.all),
    ruleResult(l, seconds) {
      recorders
        .get(l)
        .record(l.policy, l.rule, l.result, l.validationMode ?? l.policy.validationMode, l.ruleType, seconds);
    },
    ruleResults: (request) => recorders.get(request),
    admissionRequest(l, seconds) {
      // Requests in a row mostly share their labels: the last label set's series are kept and reused
      // (series are never removed), which saves building and hashing the key of each request.
      const last = lastAdmission;
      if (
        last !== undefined &&
        last.kind === l.resourceKind &&
        last.namespace === l.resourceNamespace &&
        last.operation === l.operation &&
        last.allowed === l.allowed &&
        last.webhook === l.webhook
      ) {
        last.count.inc();
        last.duration.observe(seconds);
        return;
      }
      if (!acceptNamespace(l.resourceNamespace)) return;
      const key = `${l.resourceKind}\u0000${l.resourceNamespace}\u0000${l.operation}\u0000${l.allowed}\u0000${l.webhook}`;
      const values = () => [
        l.resourceKind,
        l.resourceNamespace,
        l.operation.toLowerCase(),
        String(l.allowed),
        l.webhook,
      ];
      const count = f.admissionRequests.series(key, values);
      const duration = f.admissionReview.series(key, values);
      count?.inc();
      duration?.observe(seconds);
      lastAdmission =
        count && duration
          ? {
              kind: l.resourceKind,
              namespace: l.resourceNamespace,
              operation: l.operation,
              allowed: l.allowed,
              webhook: l.webhook,
              count,
              duration,
            }
          : undefined;
    },
    celPolicyExecution(l, seconds) {
      if (!acceptNamespace(l.resourceNamespace)) return;
      // Once per policy and request: the key is built from the labels as given, the label values
      // only when the series is new.
      const key = `${l.background}\u0000${l.policyName}\u0000${l.validationMode}\u0000${l.resourceKind}\u0000${l.resourceNamespace}\u0000${l.operation}\u0000${l.result}`;
      f.celExecution[l.type].series(key, () => celExecutionValues(l))?.observe(seconds);
    },
    httpRequest(method, url, seconds) {
      // As admissionRequest: the last method and route's series are reused.
      const last = lastHttp;
      if (last !== undefined && last.method === method && last.url === url) {
        last.count.inc();
        last.duration.observe(seconds);
        return;
      }
      const key = `${method} ${url}`;
      const values = () => [method, url];
      const count = f.httpRequests.series(key, values);
      const duration = f.httpDuration.series(key, values);
      count?.inc();
      duration?.observe(seconds);
      lastHttp = count && duration ? { method, url, count, duration } : undefined;
    },
    policyChange(policy, change) {
      const values = [...policyValues(policy), change];
      f.policyChanges.series(values.join("\u0000"), () => values)?.inc();
    },
    setRuleInfo(key, rules) {
      const rows = ruleInfoRows(rules);
      if (rows.length > 0) f.ruleInfo.set(key, rows);
      else f.ruleInfo.delete(key);
    },
    resultsDropped(count) {
      if (count > 0) f.resultsDropped.series("", () => [])?.inc(count);
    },
    updateRequestsDropped(count) {
      if (count > 0) f.updateRequestsDropped.series("", () => [])?.inc(count);
    },
    offloaded(reason) {
      f.offloaded.series(reason, () => [reason])?.inc();
    },
    clientQuery(e) {
      const key = `${e.operation}\u0000${e.clientType}\u0000${e.kind}\u0000${e.namespace}`;
      f.clientQueries.series(key, () => [e.operation, e.clientType, e.kind, e.namespace])?.inc();
    },
    admissionError(webhook, errorType) {
      f.admissionErrors.series(`${webhook}\u0000${errorType}`, () => [webhook, errorType])?.inc();
    },
    certificateExpiry(certificate, notAfter) {
      f.certificates.set(certificate, Math.floor(notAfter.getTime() / 1000));
    },
    reconcile(controller) {
      f.reconciles.series(controller, () => [controller])?.inc();
    },
    requeue(controller, retries) {
      f.requeues.series(`${controller}\u0000${retries}`, () => [controller, String(retries)])?.inc();
    },
  };
}

/**
 * The admission controller's Prometheus metrics, with upstream Kyverno's names, label sets and label
 * values (lower-case results and operations, `-` as the namespace of cluster policies). The per-request
 * families (rule results, admission reviews, HTTP requests) use the cheap families of `families.ts`;
 * the rest live in a prom-client registry. `render()` gives the whole exposition.
 */
import { Counter, Gauge, Registry } from "prom-client";
import { createHistogramFamily, POLICY_RESULT_LABELS } from "./families.js";
import { createRecorderCache } from "./rule-results.js";

/** Upstream's default histogram buckets (seconds). */
export const DEFAULT_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 25, 30,
];

/** The policy labels shared by results, changes and rule info. */
export interface PolicyLabels {
  /** `enforce` or `audit`. */
  validationMode: "enforce" | "audit";
  /** `cluster` (ClusterPolicy) or `namespaced` (Policy). */
  type: "cluster" | "namespaced";
  background: boolean;
  /** Namespace of a Policy; `-` for a ClusterPolicy. */
  namespace: string;
  name: string;
}

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

/** The request labels shared by every rule result of one admission request. */
export interface RequestRuleLabels {
  resourceKind: string;
  resourceNamespace: string;
  /** Upper-case admission operation; exported lower-case as upstream does. */
  operation: string;
  dryRun: boolean;
}

/**
 * Records the rule results of one admission request (see `AdmissionMetrics.ruleResults`): the
 * request's labels are resolved once, and each rule finds its series through a few lookups by
 * identity, without building a label key.
 */
export interface RuleResultRecorder {
  record(
    policy: PolicyLabels,
    rule: string,
    result: string,
    validationMode: "enforce" | "audit",
    ruleType: "validate" | "mutate" | "generate",
    durationSeconds: number,
  ): void;
}

/** Labels of one admission review (`kyverno_admission_requests_total` and review duration). */
export interface AdmissionRequestLabels {
  resourceKind: string;
  resourceNamespace: string;
  operation: string;
  allowed: boolean;
  webhook: "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration";
}

/** One rule of a loaded policy (`kyverno_policy_rule_info_total`). */
export interface RuleInfoLabels {
  policy: PolicyLabels;
  rule: string;
  ruleType: "validate" | "mutate" | "generate" | "imageVerify";
  ready: boolean;
}

/** Recorder of the admission controller's metrics; create one per process with `createAdmissionMetrics`. */
export interface AdmissionMetrics {
  /** The prom-client registry holding the low-rate metrics (changes, rule info, drops, info). */
  readonly registry: Registry;
  /** The full text exposition for `/metrics`. */
  render(): Promise<string>;
  /** Content type of `render()`'s output. */
  readonly contentType: string;
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
  /** One API request of the controller's client (`kyverno_client_queries_total`); wire it to `onQuery`. */
  clientQuery(event: ClientQueryLabels): void;
}

/** Labels of `kyverno_client_queries_total` (the kube client's `QueryEvent` fits). */
export interface ClientQueryLabels {
  operation: string;
  clientType: string;
  kind: string;
  namespace: string;
}

/** Options of `createAdmissionMetrics`. */
export interface AdmissionMetricsOptions {
  /** Reported by `kyverno_info{version}`. */
  version: string;
  buckets?: readonly number[];
  /** Most series per hot-path family; new label sets past it are not recorded (default 100,000). */
  maxSeries?: number;
}

const ADMISSION_LABELS = [
  "resource_kind",
  "resource_namespace",
  "resource_request_operation",
  "request_allowed",
  "request_webhook",
] as const;
const HTTP_LABELS = ["http_method", "http_url"] as const;
const POLICY_CHANGE_LABELS = [
  "policy_validation_mode",
  "policy_type",
  "policy_background_mode",
  "policy_namespace",
  "policy_name",
  "policy_change_type",
] as const;
const RULE_INFO_LABELS = [
  "policy_namespace",
  "policy_name",
  "status_ready",
  "policy_validation_mode",
  "policy_type",
  "policy_background_mode",
  "rule_name",
  "rule_type",
] as const;

/** Creates the metrics on a fresh registry (so tests and several servers in a process do not collide). */
export function createAdmissionMetrics(options: AdmissionMetricsOptions): AdmissionMetrics {
  const registry = new Registry();
  const registers = [registry];
  const buckets = [...(options.buckets ?? DEFAULT_BUCKETS)];
  const maxSeries = options.maxSeries ?? 100_000;
  const policyResults = createHistogramFamily({
    name: "kyverno_policy_execution_duration_seconds",
    help: "Time taken to evaluate a rule, in seconds.",
    counter: {
      name: "kyverno_policy_results_total",
      help: "Number of rule results, by policy, rule, resource and outcome.",
    },
    labelNames: POLICY_RESULT_LABELS,
    buckets,
    maxSeries,
  });
  const admissionRequests = createHistogramFamily({
    name: "kyverno_admission_review_duration_seconds",
    help: "Time taken to answer an admission review, in seconds.",
    counter: {
      name: "kyverno_admission_requests_total",
      help: "Number of admission requests, by resource, operation, webhook and answer.",
    },
    labelNames: ADMISSION_LABELS,
    buckets,
    maxSeries,
  });
  const httpRequests = createHistogramFamily({
    name: "kyverno_http_requests_duration_seconds",
    help: "Time taken to serve an HTTP request, in seconds.",
    counter: {
      name: "kyverno_http_requests_total",
      help: "Number of HTTP requests served, by method and URL.",
    },
    labelNames: HTTP_LABELS,
    buckets,
    maxSeries: 1000,
  });
  const policyChanges = new Counter({
    name: "kyverno_policy_changes_total",
    help: "Number of policy creations, updates and deletions seen.",
    labelNames: POLICY_CHANGE_LABELS,
    registers,
  });
  const ruleInfo = new Gauge({
    name: "kyverno_policy_rule_info_total",
    help: "1 for every rule of every loaded policy.",
    labelNames: RULE_INFO_LABELS,
    registers,
  });
  const dropped = new Counter({
    name: "kyverno_admission_results_dropped_total",
    help: "Admission results dropped because the queue to the reports controller was full (kyverno-ts).",
    registers,
  });
  const queries = new Counter({
    name: "kyverno_client_queries_total",
    help: "Number of API requests, by operation, client and resource.",
    labelNames: ["operation", "client_type", "resource_kind", "resource_namespace"],
    registers,
  });
  const info = new Gauge({
    name: "kyverno_info",
    help: "Build information of the running controller.",
    labelNames: ["version"],
    registers,
  });
  info.set({ version: options.version }, 1);

  const recorders = createRecorderCache(policyResults, maxSeries);
  const ruleInfoSeries = new Map<string, string[][]>();
  const policyValues = (p: PolicyLabels): string[] => [
    p.validationMode,
    p.type,
    String(p.background),
    p.namespace,
    p.name,
  ];

  return {
    registry,
    contentType: registry.contentType,
    async render() {
      const rest = await registry.metrics();
      return `${policyResults.render()}${admissionRequests.render()}${httpRequests.render()}${rest}`;
    },
    ruleResult(l, seconds) {
      recorders
        .get(l)
        .record(l.policy, l.rule, l.result, l.validationMode ?? l.policy.validationMode, l.ruleType, seconds);
    },
    ruleResults: (request) => recorders.get(request),
    admissionRequest(l, seconds) {
      const key = `${l.resourceKind}\u0000${l.resourceNamespace}\u0000${l.operation}\u0000${l.allowed}\u0000${l.webhook}`;
      admissionRequests.observe(
        key,
        () => [l.resourceKind, l.resourceNamespace, l.operation.toLowerCase(), String(l.allowed), l.webhook],
        seconds,
      );
    },
    httpRequest(method, url, seconds) {
      httpRequests.observe(`${method} ${url}`, () => [method, url], seconds);
    },
    policyChange(policy, change) {
      policyChanges.labels(...policyValues(policy), change).inc();
    },
    setRuleInfo(key, rules) {
      for (const values of ruleInfoSeries.get(key) ?? []) ruleInfo.remove(...values);
      const series = rules.map((r) => [
        r.policy.namespace,
        r.policy.name,
        String(r.ready),
        r.policy.validationMode,
        r.policy.type,
        String(r.policy.background),
        r.rule,
        r.ruleType,
      ]);
      for (const values of series) ruleInfo.labels(...values).set(1);
      if (series.length > 0) ruleInfoSeries.set(key, series);
      else ruleInfoSeries.delete(key);
    },
    resultsDropped(count) {
      if (count > 0) dropped.inc(count);
    },
    clientQuery(e) {
      queries.labels(e.operation, e.clientType, e.kind, e.namespace).inc();
    },
  };
}

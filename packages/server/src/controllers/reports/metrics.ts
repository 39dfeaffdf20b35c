/**
 * The reports controller's Prometheus metrics, with upstream's names and labels: rule results of
 * background scans (`kyverno_policy_results_total` and `kyverno_policy_execution_duration_seconds`
 * with `rule_execution_cause="background_scan"`) and the work queue's
 * `kyverno_controller_reconcile_total` / `_requeue_total` / `_drop_total`, and the client's
 * `kyverno_client_queries_total`. Label children are cached
 * per series, so a scan of thousands of resources does not rebuild label objects for every rule.
 */
import type { QueryEvent } from "@kyverno-ts/kube";
import { Counter, Histogram, Registry } from "prom-client";
import { POLICY_RESULT_LABELS } from "../../metrics/families.js";
import { DEFAULT_BUCKETS, type PolicyLabels } from "../../metrics/metrics.js";

/** One rule result of a background scan. */
export interface BackgroundRuleLabels {
  policy: PolicyLabels;
  /** The rule's effective failure action. */
  validationMode: "enforce" | "audit";
  rule: string;
  /** `pass`, `fail`, `warn`, `error` or `skip`. */
  result: string;
  resourceKind: string;
  resourceNamespace: string;
}

/** Recorder of the controller's metrics; create one per process with `createReportsMetrics`. */
export interface ReportsMetrics {
  /** The registry the metrics are registered in (serve it on `/metrics`). */
  readonly registry: Registry;
  ruleResult(labels: BackgroundRuleLabels, durationSeconds: number): void;
  reconcile(controller: string): void;
  requeue(controller: string): void;
  drop(controller: string): void;
  /** One API request of the controller's client (`kyverno_client_queries_total`); wire it to `onQuery`. */
  clientQuery(event: QueryEvent): void;
}

/** Options of `createReportsMetrics`. */
export interface ReportsMetricsOptions {
  /** Registry to register in (default: a new one). */
  registry?: Registry;
  buckets?: readonly number[];
  /** Most rule-result series kept; new label sets past it are not recorded (default 100,000). */
  maxSeries?: number;
}

interface Series {
  count: { inc(): void };
  duration: { observe(value: number): void };
}

/** Creates the metrics in `registry` (a fresh one by default, so tests and replicas in a process do not collide). */
export function createReportsMetrics(options: ReportsMetricsOptions = {}): ReportsMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  const maxSeries = options.maxSeries ?? 100_000;
  const results = new Counter({
    name: "kyverno_policy_results_total",
    help: "Number of rule results, by policy, rule, resource and outcome.",
    labelNames: POLICY_RESULT_LABELS,
    registers,
  });
  const durations = new Histogram({
    name: "kyverno_policy_execution_duration_seconds",
    help: "Time taken to evaluate a rule, in seconds.",
    labelNames: POLICY_RESULT_LABELS,
    buckets: [...(options.buckets ?? DEFAULT_BUCKETS)],
    registers,
  });
  const controllerCounter = (name: string, help: string) =>
    new Counter({ name, help, labelNames: ["controller_name"], registers });
  const reconciles = controllerCounter("kyverno_controller_reconcile_total", "Number of reconciliations.");
  const requeues = controllerCounter(
    "kyverno_controller_requeue_total",
    "Number of keys queued again after a failure.",
  );
  const drops = controllerCounter(
    "kyverno_controller_drop_total",
    "Number of keys given up after too many failures.",
  );

  const queries = new Counter({
    name: "kyverno_client_queries_total",
    help: "Number of API requests, by operation, client and resource.",
    labelNames: ["operation", "client_type", "resource_kind", "resource_namespace"],
    registers,
  });

  const series = new Map<string, Series>();
  return {
    registry,
    ruleResult(l, seconds) {
      const p = l.policy;
      const key = `${l.validationMode}\u0000${p.type}\u0000${p.background}\u0000${p.namespace}\u0000${p.name}\u0000${l.resourceKind}\u0000${l.resourceNamespace}\u0000${l.rule}\u0000${l.result}`;
      let s = series.get(key);
      if (s === undefined) {
        if (series.size >= maxSeries) return;
        const values = [
          l.validationMode,
          p.type,
          String(p.background),
          p.namespace,
          p.name,
          l.resourceKind,
          l.resourceNamespace,
          "create",
          l.rule,
          l.result,
          "validate",
          "background_scan",
          "false",
        ];
        s = { count: results.labels(...values), duration: durations.labels(...values) };
        series.set(key, s);
      }
      s.count.inc();
      s.duration.observe(seconds);
    },
    reconcile: (controller) => reconciles.labels(controller).inc(),
    requeue: (controller) => requeues.labels(controller).inc(),
    drop: (controller) => drops.labels(controller).inc(),
    clientQuery: (e) => queries.labels(e.operation, e.clientType, e.kind, e.namespace).inc(),
  };
}

/**
 * The reports controller's Prometheus metrics, with upstream's names and labels: rule results of
 * background scans (`kyverno_policy_results_total` and `kyverno_policy_execution_duration_seconds`
 * with `rule_execution_cause="background_scan"`), the work queue's
 * `kyverno_controller_reconcile_total` / `_requeue_total` / `_drop_total`, the client's
 * `kyverno_client_queries_total`, and kyverno-ts's scan progress (queue depth, completed scans, report
 * count). Shaped and bounded by the `kyverno-metrics` ConfigMap like the admission controller's.
 */
import type { QueryEvent } from "@kyverno-ts/kube";
import { METRIC_FAMILIES, type MetricFamilySpec, UPSTREAM_NOT_EMITTED } from "../../metrics/catalog.js";
import {
  defaultMetricsConfig,
  exposureOf,
  exposureProblems,
  type MetricsConfig,
  namespaceFilter,
} from "../../metrics/config.js";
import {
  createExposition,
  type MetricsSource,
  type ProcessProbe,
  processFamilies,
  systemProcessProbe,
} from "../../metrics/exposition.js";
import {
  type CounterSeries,
  createCollectedFamily,
  createCounterFamily,
  createHistogramFamily,
  type FamilyLimits,
  type HistogramSeries,
} from "../../metrics/family.js";
import type { CelExecutionLabels, PolicyLabels } from "../../metrics/metrics.js";

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

/** Figures the controller reads at scrape time. */
export interface ReportsGauges {
  /** Keys waiting in the work queue, by controller name. */
  queueDepth(): ReadonlyMap<string, number>;
  /** Reports maintained. */
  reports(): number;
}

/** Recorder of the controller's metrics; create one per process with `createReportsMetrics`. */
export interface ReportsMetrics extends MetricsSource {
  ruleResult(labels: BackgroundRuleLabels, durationSeconds: number): void;
  /** One background evaluation of a validating CEL policy (`kyverno_<kind>_policy_execution_duration_seconds`). */
  celPolicyExecution(labels: CelExecutionLabels, durationSeconds: number): void;
  reconcile(controller: string): void;
  /** A key queued again after its `retries`-th consecutive failure. */
  requeue(controller: string, retries: number): void;
  drop(controller: string): void;
  /** One API request of the controller's client (`kyverno_client_queries_total`); wire it to `onQuery`. */
  clientQuery(event: QueryEvent): void;
  /** A full scan finished after `durationSeconds`, at `completedAt`. */
  scanCompleted(durationSeconds: number, completedAt: Date): void;
  /** Where the scrape-time gauges come from (the controller sets it when it starts). */
  setGauges(gauges: ReportsGauges): void;
}

/** Options of `createReportsMetrics`. */
export interface ReportsMetricsOptions {
  /** Reported by `kyverno_info{version}` (default `unknown`). */
  version?: string;
  /** The `kyverno-metrics` ConfigMap (default: every namespace, metric and label; upstream's buckets). */
  config?: MetricsConfig;
  /** Overrides the config's `maxSeriesPerMetric`. */
  maxSeries?: number;
  processProbe?: ProcessProbe;
}

const F = METRIC_FAMILIES;
/** The `controller_name` of the reports controller's queue (as `REPORTS_CONTROLLER_NAME`). */
const REPORTS_CONTROLLER = "background-scan-controller";
const REPORTS_FAMILIES: readonly MetricFamilySpec[] = Object.values(F).filter((f: MetricFamilySpec) =>
  f.binaries.includes("reports"),
);

/** Problems of a `kyverno-metrics` ConfigMap for the reports controller (logged at start). */
export function reportsConfigProblems(config: MetricsConfig, source: string): string[] {
  const others = [
    ...UPSTREAM_NOT_EMITTED.flatMap((u) => u.names),
    ...Object.values(F)
      .filter((f: MetricFamilySpec) => !f.binaries.includes("reports"))
      .map((f) => f.name),
  ];
  return exposureProblems(config, REPORTS_FAMILIES, others, source);
}

/** The map under `key` of a map of maps, made when missing. */
function inner<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let found = map.get(key);
  if (found === undefined) {
    found = new Map();
    map.set(key, found);
  }
  return found;
}

/** Creates the metrics; nothing is shared between two instances. */
export function createReportsMetrics(options: ReportsMetricsOptions = {}): ReportsMetrics {
  const config = options.config ?? defaultMetricsConfig();
  const exposure = (spec: MetricFamilySpec) => exposureOf(config, spec);
  const dropped = createCounterFamily(F.seriesDropped, exposure(F.seriesDropped), { maxSeries: 1000 });
  const limits: FamilyLimits = {
    maxSeries: options.maxSeries ?? config.maxSeriesPerMetric,
    onDropped: (name) => dropped.series(name, () => [name])?.inc(),
  };
  const counter = (spec: MetricFamilySpec) => createCounterFamily(spec, exposure(spec), limits);
  const acceptNamespace = namespaceFilter(config);
  const results = counter(F.policyResults);
  const durations = createHistogramFamily(F.policyExecution, exposure(F.policyExecution), limits);
  const celExecution = {
    validate: createHistogramFamily(
      F.validatingPolicyExecution,
      exposure(F.validatingPolicyExecution),
      limits,
    ),
    imageValidate: createHistogramFamily(
      F.imageValidatingPolicyExecution,
      exposure(F.imageValidatingPolicyExecution),
      limits,
    ),
  };
  const reconciles = counter(F.controllerReconcile);
  const requeues = counter(F.controllerRequeue);
  const drops = counter(F.controllerDrop);
  const queries = counter(F.clientQueries);
  const scans = counter(F.scansCompleted);
  const lastScan = { seconds: 0, completedAt: 0 };
  let gauges: ReportsGauges = { queueDepth: () => new Map(), reports: () => 0 };
  const collected = (spec: MetricFamilySpec, value: () => number) =>
    createCollectedFamily(spec, exposure(spec), () => [{ values: [], value: value() }]);
  const families = [
    results,
    durations,
    celExecution.validate,
    celExecution.imageValidate,
    reconciles,
    requeues,
    drops,
    createCollectedFamily(F.queueDepth, exposure(F.queueDepth), () =>
      [...gauges.queueDepth()].map(([name, depth]) => ({ values: [name], value: depth })),
    ),
    queries,
    scans,
    collected(F.scanDuration, () => lastScan.seconds),
    collected(F.scanCompleted, () => lastScan.completedAt),
    collected(F.reports, () => gauges.reports()),
    createCollectedFamily(F.info, exposure(F.info), () => [
      { values: [options.version ?? "unknown"], value: 1 },
    ]),
    dropped,
    ...processFamilies(options.processProbe ?? systemProcessProbe(), exposure),
  ];
  // Counters an alert or a dashboard reads exist from the start (at 0), so a query has data to rate.
  scans.series("", () => [])?.inc(0);
  drops.series(REPORTS_CONTROLLER, () => [REPORTS_CONTROLLER])?.inc(0);
  requeues.series(`${REPORTS_CONTROLLER}\u00001`, () => [REPORTS_CONTROLLER, "1"])?.inc(0);
  for (const spec of [F.policyResults, F.policyExecution])
    dropped.series(spec.name, () => [spec.name])?.inc(0);
  // The series of each rule result, cached per policy (its labels object, made once per cached
  // policy), rule, resource kind, namespace, result and mode: a scan records a result per rule per
  // resource, and a hit allocates nothing (a joined key per call made ~600 bytes of garbage).
  type Cell = { count: CounterSeries | undefined; duration: HistogramSeries | undefined };
  type ByResult = Map<string, { enforce?: Cell; audit?: Cell }>;
  let cells = new WeakMap<PolicyLabels, Map<string, Map<string, Map<string, ByResult>>>>();
  let cellCount = 0;
  const cellOf = (l: BackgroundRuleLabels): Cell => {
    const p = l.policy;
    let byRule = cells.get(p);
    if (byRule === undefined) {
      byRule = new Map();
      cells.set(p, byRule);
    }
    const byResult = inner(inner(inner(byRule, l.rule), l.resourceKind), l.resourceNamespace);
    let modes = byResult.get(l.result);
    if (modes === undefined) {
      modes = {};
      byResult.set(l.result, modes);
    }
    const hit = modes[l.validationMode];
    if (hit !== undefined) return hit;
    const key = `${l.validationMode}\u0000${p.type}\u0000${p.background}\u0000${p.namespace}\u0000${p.name}\u0000${l.resourceKind}\u0000${l.resourceNamespace}\u0000${l.rule}\u0000${l.result}`;
    const values = () => [
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
    const cell = { count: results.series(key, values), duration: durations.series(key, values) };
    // Bounded as the families are (a series past their limit is dropped there, not kept here).
    if (cellCount >= 2 * limits.maxSeries) {
      cells = new WeakMap();
      cellCount = 0;
    }
    cellCount++;
    modes[l.validationMode] = cell;
    return cell;
  };
  const byController = (family: typeof reconciles) => (controller: string) =>
    family.series(controller, () => [controller])?.inc();
  return {
    ...createExposition(() => families),
    ruleResult(l, seconds) {
      if (!acceptNamespace(l.resourceNamespace)) return;
      const cell = cellOf(l);
      cell.count?.inc();
      cell.duration?.observe(seconds);
    },
    celPolicyExecution(l, seconds) {
      if (!acceptNamespace(l.resourceNamespace) || l.type === "mutate") return;
      const values = [
        String(l.background),
        l.policyName,
        l.validationMode,
        l.resourceKind,
        l.resourceNamespace,
        l.operation.toLowerCase(),
        "background_scan",
        l.result.toUpperCase(),
      ];
      celExecution[l.type].series(values.join("\u0000"), () => values)?.observe(seconds);
    },
    reconcile: byController(reconciles),
    requeue(controller, retries) {
      requeues.series(`${controller}\u0000${retries}`, () => [controller, String(retries)])?.inc();
    },
    drop: byController(drops),
    clientQuery(e) {
      const key = `${e.operation}\u0000${e.clientType}\u0000${e.kind}\u0000${e.namespace}`;
      queries.series(key, () => [e.operation, e.clientType, e.kind, e.namespace])?.inc();
    },
    scanCompleted(durationSeconds, completedAt) {
      scans.series("", () => [])?.inc();
      lastScan.seconds = durationSeconds;
      lastScan.completedAt = completedAt.getTime() / 1000;
    },
    setGauges(g) {
      gauges = g;
    },
  };
}

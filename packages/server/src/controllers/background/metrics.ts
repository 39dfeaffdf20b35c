/**
 * The background controller's Prometheus metrics: UpdateRequests processed by outcome and their
 * processing time (`kyverno_updaterequest_*`, kyverno-ts's own: upstream documents none), upstream's
 * `kyverno_generating_policy_execution_duration_seconds` per GeneratingPolicy evaluation, the work
 * queue's upstream `kyverno_controller_reconcile_total` / `_requeue_total` / `_drop_total`, the
 * client's `kyverno_client_queries_total`, `kyverno_info` and the process figures.
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
  createCollectedFamily,
  createCounterFamily,
  createHistogramFamily,
  type FamilyLimits,
} from "../../metrics/family.js";

/** Recorder of the controller's metrics; one per process (`createBackgroundMetrics`). */
export interface BackgroundMetrics extends MetricsSource {
  processed(requestType: string, state: string, durationSeconds: number): void;
  /** One evaluation of a GeneratingPolicy for a trigger (`kyverno_generating_policy_execution_duration_seconds`). */
  generatingPolicyExecution(labels: GeneratingExecutionLabels, durationSeconds: number): void;
  reconcile(controller: string): void;
  requeue(controller: string, retries: number): void;
  drop(controller: string): void;
  clientQuery(event: QueryEvent): void;
  /** Scrape-time figures: UpdateRequests pending, keys queued. */
  setGauges(gauges: { pending(): number; queueDepth(): number }): void;
}

/** Labels of one GeneratingPolicy evaluation. */
export interface GeneratingExecutionLabels {
  policyName: string;
  background: boolean;
  resourceKind: string;
  resourceNamespace: string;
  /** The trigger's operation (`CREATE`, `UPDATE`…), lower-cased in the series. */
  operation: string;
  cause: "admission_request" | "background_scan";
  /** The policy's outcome: its result's status (pass, fail, error, skip). */
  result: string;
}

const F = METRIC_FAMILIES;
/** The work queue's `controller_name`, upstream's name for the UpdateRequest controller. */
export const BACKGROUND_CONTROLLER_NAME = "update-request-controller";
const FAMILIES: readonly MetricFamilySpec[] = Object.values(F).filter((f: MetricFamilySpec) =>
  f.binaries.includes("background"),
);

/** Problems of a `kyverno-metrics` ConfigMap for this controller (logged at start). */
export function backgroundConfigProblems(config: MetricsConfig, source: string): string[] {
  const others = [
    ...UPSTREAM_NOT_EMITTED.flatMap((u) => u.names),
    ...Object.values(F)
      .filter((f: MetricFamilySpec) => !f.binaries.includes("background"))
      .map((f) => f.name),
  ];
  return exposureProblems(config, FAMILIES, others, source);
}

/** Creates the metrics. */
export function createBackgroundMetrics(
  options: { version?: string; config?: MetricsConfig; processProbe?: ProcessProbe } = {},
): BackgroundMetrics {
  const config = options.config ?? defaultMetricsConfig();
  const exposure = (spec: MetricFamilySpec) => exposureOf(config, spec);
  const dropped = createCounterFamily(F.seriesDropped, exposure(F.seriesDropped), { maxSeries: 1000 });
  const limits: FamilyLimits = {
    maxSeries: config.maxSeriesPerMetric,
    onDropped: (name) => dropped.series(name, () => [name])?.inc(),
  };
  const counter = (spec: MetricFamilySpec) => createCounterFamily(spec, exposure(spec), limits);
  const processed = counter(F.updateRequestsProcessed);
  const durations = createHistogramFamily(F.updateRequestDuration, exposure(F.updateRequestDuration), limits);
  const generating = createHistogramFamily(
    F.generatingPolicyExecution,
    exposure(F.generatingPolicyExecution),
    limits,
  );
  const acceptNamespace = namespaceFilter(config);
  const reconciles = counter(F.controllerReconcile);
  const requeues = counter(F.controllerRequeue);
  const drops = counter(F.controllerDrop);
  const queries = counter(F.clientQueries);
  let gauges = { pending: () => 0, queueDepth: () => 0 };
  const families = [
    processed,
    durations,
    generating,
    createCollectedFamily(F.updateRequestsPending, exposure(F.updateRequestsPending), () => [
      { values: [], value: gauges.pending() },
    ]),
    reconciles,
    requeues,
    drops,
    createCollectedFamily(F.queueDepth, exposure(F.queueDepth), () => [
      { values: [BACKGROUND_CONTROLLER_NAME], value: gauges.queueDepth() },
    ]),
    queries,
    createCollectedFamily(F.info, exposure(F.info), () => [
      { values: [options.version ?? "unknown"], value: 1 },
    ]),
    dropped,
    ...processFamilies(options.processProbe ?? systemProcessProbe(), exposure),
  ];
  // Counters alerts read exist from the start.
  drops.series(BACKGROUND_CONTROLLER_NAME, () => [BACKGROUND_CONTROLLER_NAME])?.inc(0);
  for (const type of ["generate", "mutate"])
    processed.series(`${type}\u0000Failed`, () => [type, "Failed"])?.inc(0);
  const byController = (family: typeof reconciles) => (controller: string) =>
    family.series(controller, () => [controller])?.inc();
  return {
    ...createExposition(() => families),
    processed(requestType, state, seconds) {
      processed.series(`${requestType}\u0000${state}`, () => [requestType, state])?.inc();
      durations.series(requestType, () => [requestType])?.observe(seconds);
    },
    generatingPolicyExecution(l, seconds) {
      if (!acceptNamespace(l.resourceNamespace)) return;
      const values = [
        String(l.background),
        l.policyName,
        l.resourceKind,
        l.resourceNamespace,
        l.operation.toLowerCase(),
        l.cause,
        l.result.toUpperCase(),
      ];
      generating.series(values.join("\u0000"), () => values)?.observe(seconds);
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
    setGauges(g) {
      gauges = g;
    },
  };
}

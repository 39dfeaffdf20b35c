/**
 * The cleanup controller's Prometheus metrics, with upstream's names and labels:
 * `kyverno_cleanup_controller_deletedobjects_total` / `_errors_total` (per policy, kind and
 * namespace), `kyverno_deleting_controller_deletedobjects_total` / `_errors_total` (DeletingPolicies), `kyverno_ttl_controller_deletedobjects_total` / `_errors_total` (per group, version,
 * resource and namespace), the work queues' `kyverno_controller_*_total`, the client's
 * `kyverno_client_queries_total`, `kyverno_info` and the process figures. Shaped and bounded by the
 * `kyverno-metrics` ConfigMap like the other controllers'.
 *
 * The families are in the shared catalog (`metrics/catalog.ts`, binary `cleanup`); the TTL families
 * carry `_total` as a scrape of upstream shows them (its docs name the OpenTelemetry counters).
 */
import type { QueryEvent } from "@kyverno-ts/kube";
import { METRIC_FAMILIES, type MetricFamilySpec } from "../../metrics/catalog.js";
import { defaultMetricsConfig, exposureOf, type MetricsConfig } from "../../metrics/config.js";
import {
  createExposition,
  type MetricsSource,
  type ProcessProbe,
  processFamilies,
  systemProcessProbe,
} from "../../metrics/exposition.js";
import { createCollectedFamily, createCounterFamily, type FamilyLimits } from "../../metrics/family.js";

/** The cleanup controller's own families, from the shared catalog. */
const C = {
  deletedObjects: METRIC_FAMILIES.cleanupDeleted,
  errors: METRIC_FAMILIES.cleanupErrors,
  ttlDeleted: METRIC_FAMILIES.ttlDeleted,
  ttlErrors: METRIC_FAMILIES.ttlErrors,
  deletingDeleted: METRIC_FAMILIES.deletingDeleted,
  deletingErrors: METRIC_FAMILIES.deletingErrors,
};

/** Labels of one DeletingPolicy outcome (upstream: policy_namespace empty for a DeletingPolicy). */
export interface DeletingOutcomeLabels {
  policyType: "DeletingPolicy" | "NamespacedDeletingPolicy";
  policyNamespace: string;
  policyName: string;
  /** The plural resource, e.g. `pods`. */
  resource: string;
}

/** Labels of one cleanup policy outcome. */
export interface CleanupOutcomeLabels {
  /** `cluster` (ClusterCleanupPolicy) or `namespaced` (CleanupPolicy). */
  policyType: "cluster" | "namespaced";
  /** `-` for a ClusterCleanupPolicy. */
  policyNamespace: string;
  policyName: string;
  resourceKind: string;
  resourceNamespace: string;
}

/** Labels of one TTL outcome. */
export interface TtlOutcomeLabels {
  group: string;
  version: string;
  resource: string;
  namespace: string;
}

/** Recorder of the controller's metrics; one per process. */
export interface CleanupMetrics extends MetricsSource {
  deleted(labels: CleanupOutcomeLabels): void;
  error(labels: CleanupOutcomeLabels): void;
  ttlDeleted(labels: TtlOutcomeLabels): void;
  ttlError(labels: TtlOutcomeLabels): void;
  deletingDeleted(labels: DeletingOutcomeLabels): void;
  deletingError(labels: DeletingOutcomeLabels): void;
  reconcile(controller: string): void;
  requeue(controller: string, retries: number): void;
  drop(controller: string): void;
  clientQuery(event: QueryEvent): void;
}

/** Options of `createCleanupMetrics`. */
export interface CleanupMetricsOptions {
  version?: string;
  config?: MetricsConfig;
  processProbe?: ProcessProbe;
}

/** Creates the metrics; nothing is shared between two instances. */
export function createCleanupMetrics(options: CleanupMetricsOptions = {}): CleanupMetrics {
  const F = METRIC_FAMILIES;
  const config = options.config ?? defaultMetricsConfig();
  const exposure = (spec: MetricFamilySpec) => exposureOf(config, spec);
  const dropped = createCounterFamily(F.seriesDropped, exposure(F.seriesDropped), { maxSeries: 1000 });
  const limits: FamilyLimits = {
    maxSeries: config.maxSeriesPerMetric,
    onDropped: (name) => dropped.series(name, () => [name])?.inc(),
  };
  const counter = (spec: MetricFamilySpec) => createCounterFamily(spec, exposure(spec), limits);
  const deleted = counter(C.deletedObjects);
  const errors = counter(C.errors);
  const ttlDeleted = counter(C.ttlDeleted);
  const ttlErrors = counter(C.ttlErrors);
  const deletingDeleted = counter(C.deletingDeleted);
  const deletingErrors = counter(C.deletingErrors);
  const reconciles = counter(F.controllerReconcile);
  const requeues = counter(F.controllerRequeue);
  const drops = counter(F.controllerDrop);
  const queries = counter(F.clientQueries);
  const families = [
    deleted,
    errors,
    ttlDeleted,
    ttlErrors,
    deletingDeleted,
    deletingErrors,
    reconciles,
    requeues,
    drops,
    queries,
    createCollectedFamily(F.info, exposure(F.info), () => [
      { values: [options.version ?? "unknown"], value: 1 },
    ]),
    dropped,
    ...processFamilies(options.processProbe ?? systemProcessProbe(), exposure),
  ];
  const policy = (family: typeof deleted) => (l: CleanupOutcomeLabels) => {
    const values = [l.policyType, l.policyNamespace, l.policyName, l.resourceKind, l.resourceNamespace];
    family.series(values.join("\u0000"), () => values)?.inc();
  };
  const ttl = (family: typeof deleted) => (l: TtlOutcomeLabels) => {
    const values = [l.group, l.version, l.resource, l.namespace];
    family.series(values.join("\u0000"), () => values)?.inc();
  };
  const deleting = (family: typeof deleted) => (l: DeletingOutcomeLabels) => {
    const values = [l.policyType, l.policyNamespace, l.policyName, l.resource];
    family.series(values.join("\u0000"), () => values)?.inc();
  };
  const byController = (family: typeof deleted) => (controller: string) =>
    family.series(controller, () => [controller])?.inc();
  return {
    ...createExposition(() => families),
    deleted: policy(deleted),
    error: policy(errors),
    ttlDeleted: ttl(ttlDeleted),
    ttlError: ttl(ttlErrors),
    deletingDeleted: deleting(deletingDeleted),
    deletingError: deleting(deletingErrors),
    reconcile: byController(reconciles),
    requeue(controller, retries) {
      requeues.series(`${controller}\u0000${retries}`, () => [controller, String(retries)])?.inc();
    },
    drop: byController(drops),
    clientQuery(e) {
      const values = [e.operation, e.clientType, e.kind, e.namespace];
      queries.series(values.join("\u0000"), () => values)?.inc();
    },
  };
}

// What kyverno-ts does with each of the chart's values: the table kyverno-ts-schema.ts turns, together
// with the chart's values.yaml (keys, defaults and `# --` descriptions), into values.schema.json,
// the README's value tables and the list NOTES.txt checks.
//
// Every key of values.yaml is "supported" unless a rule below says otherwise:
//   accepted   kept so an existing values file installs, not acted upon yet (the reason says why);
//              NOTES.txt lists it when it is set away from its default
//   default    rejected unless at its default value (a feature kyverno-ts does not have)
// Keys values.yaml does not have are rejected by the schema.
//
// Plain Node 24 type stripping: erasable TypeScript only.

import { type ControllerName, flagsOf } from "../../packages/server/src/flags/catalog.ts";
import { ALERT_GROUPS } from "../monitoring/alerts.ts";

/** A JSON Schema fragment. */
export type Schema = { [key: string]: unknown };

/** How the chart treats a value. */
export type Status = "supported" | "accepted" | "default";

/** A rule for the values at `path` (dot-separated; `*` matches one key). Later rules win. */
export interface ValueRule {
  path: string;
  status?: Status;
  /** Why a value is accepted but not effective, or rejected unless at its default. */
  reason?: string;
  /** Any object (its content is Kubernetes' or another tool's, passed through as is). */
  free?: boolean;
  /** Schema replacing the one inferred from the default (for nullable defaults, enums, bounds). */
  schema?: Schema;
  /** Keys of an accepted subtree that are supported (left out of the NOTES.txt comparison). */
  supportedKeys?: string[];
  /** Path of another value whose schema this one's is merged over (`featuresOverride` takes `features`). */
  extends?: string;
  /** A shared rule: values.yaml may lack the path (one controller has `securityContext`, another `container.securityContext`). */
  optional?: boolean;
}

/** Controllers whose binaries exist (all four of upstream's). */
const BUILT = [
  "admissionController",
  "backgroundController",
  "cleanupController",
  "reportsController",
] as const;

const NULLABLE_STRING: Schema = { type: ["string", "null"] };
const NULLABLE_INT: Schema = { type: ["integer", "null"], minimum: 0 };
const INT_OR_PERCENT: Schema = { type: ["integer", "string"], pattern: "^[0-9]+%?$" };
/** A Go duration (`1h`, `30m`, `1h30m`, `90s`). */
const GO_DURATION = "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$";
const FLAG_VALUE: Schema = { type: ["string", "number", "boolean"] };
/** Histogram bucket boundaries (seconds). */
const BUCKETS: Schema = { type: "array", items: { type: "number" }, minItems: 1 };

/** `extraArgs` may carry only flags of the controller's command (others would stop it at start). */
function extraArgs(flags: readonly string[]): Schema {
  return {
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(flags.map((f) => [f, FLAG_VALUE])),
  };
}

/** Flags of `kyverno-ts admission --standalone`, which the chart never runs. */
const STANDALONE_FLAGS = new Set([
  "standalone",
  "policies",
  "config",
  "metricsConfig",
  "tls-cert-file",
  "tls-key-file",
]);

/** The flags `extraArgs` may carry: every flag the controller accepts (packages/server/src/flags/catalog.ts). */
function controllerFlags(controller: ControllerName): string[] {
  return flagsOf(controller)
    .flatMap((f) => [f.name, ...(f.aliases ?? [])])
    .filter((name) => !STANDALONE_FLAGS.has(name))
    .sort();
}

/** `kyverno-ts admission` flags that make sense in a cluster (upstream's and kyverno-ts's). */
export const ADMISSION_EXTRA_FLAGS = controllerFlags("admission");

/** `kyverno-ts reports` flags. */
export const REPORTS_EXTRA_FLAGS = controllerFlags("reports");

/** `kyverno-ts background` flags. */
export const BACKGROUND_EXTRA_FLAGS = controllerFlags("background");

/** `kyverno-ts cleanup` flags. */
export const CLEANUP_EXTRA_FLAGS = controllerFlags("cleanup");

/** Rules every built controller shares. */
function controllerRules(c: string): ValueRule[] {
  const onlyWith = (what: string): string => `only used with \`${c}.${what}\`, which is not supported`;
  return [
    ...[
      "resources",
      "container.resources",
      "securityContext",
      "container.securityContext",
      "podSecurityContext",
      "updateStrategy",
      "startupProbe",
      "livenessProbe",
      "readinessProbe",
      "lifecycle",
      "container.lifecycle",
      "podAntiAffinity",
      "podAffinity",
      "nodeAffinity",
      "affinity",
      "dnsConfig",
      "priorityLevelConfigurationSpec",
      "autoscaling.behavior",
      "caCertificates.volume",
      "nodeSelector",
      "podLabels",
      "podAnnotations",
      "labels",
      "annotations",
      "rbac.serviceAccount.annotations",
    ].map((p): ValueRule => ({ path: `${c}.${p}`, free: true })),
    { path: `${c}.replicas`, schema: NULLABLE_INT },
    { path: `${c}.terminationGracePeriodSeconds`, schema: NULLABLE_INT },
    { path: `${c}.rbac.serviceAccount.name`, schema: NULLABLE_STRING },
    { path: `${c}.rbac.serviceAccount.projectedServiceAccountToken.audience`, schema: { type: "string" } },
    { path: `${c}.image.registry`, schema: NULLABLE_STRING },
    { path: `${c}.image.defaultRegistry`, schema: NULLABLE_STRING },
    { path: `${c}.image.tag`, schema: { type: ["string", "number", "null"] } },
    { path: `${c}.container.image.registry`, schema: NULLABLE_STRING },
    { path: `${c}.container.image.defaultRegistry`, schema: NULLABLE_STRING },
    { path: `${c}.container.image.tag`, schema: { type: ["string", "number", "null"] } },
    { path: `${c}.imagePullSecrets`, schema: { type: "array", items: { type: ["string", "object"] } } },
    { path: `${c}.caCertificates.data`, schema: NULLABLE_STRING },
    { path: `${c}.podDisruptionBudget.minAvailable`, schema: INT_OR_PERCENT },
    {
      path: `${c}.podDisruptionBudget.maxUnavailable`,
      schema: { ...INT_OR_PERCENT, type: ["integer", "string", "null"] },
    },
    {
      path: `${c}.podDisruptionBudget.unhealthyPodEvictionPolicy`,
      schema: { enum: ["IfHealthyBudget", "AlwaysAllow", null] },
    },
    { path: `${c}.service.nodePort`, schema: NULLABLE_INT },
    { path: `${c}.service.trafficDistribution`, schema: NULLABLE_STRING },
    { path: `${c}.metricsService.nodePort`, schema: NULLABLE_INT },
    { path: `${c}.metricsService.trafficDistribution`, schema: NULLABLE_STRING },
    { path: `${c}.serviceMonitor.namespace`, schema: NULLABLE_STRING },
    { path: `${c}.serviceMonitor.tlsConfig`, free: true },
    { path: `${c}.serviceMonitor.additionalLabels`, free: true },
    { path: `${c}.serviceMonitor.additionalAnnotations`, free: true },
    { path: `${c}.serviceMonitor.relabelings`, schema: { type: "array", items: { type: "object" } } },
    { path: `${c}.serviceMonitor.metricRelabelings`, schema: { type: "array", items: { type: "object" } } },
    { path: `${c}.autoscaling.targetMemoryUtilizationPercentage`, schema: NULLABLE_INT },
    { path: `${c}.featuresOverride`, extends: "features" },
    {
      path: `${c}.resyncPeriod`,
      status: "accepted",
      reason: "watches keep the caches current; there is no periodic resync",
    },
    { path: `${c}.crdWatcher`, status: "default", reason: "there is no custom resource watcher" },
    {
      path: `${c}.tufRootMountPath`,
      status: "accepted",
      reason: "no image verification yet: nothing is mounted",
    },
    {
      path: `${c}.sigstoreVolume`,
      status: "accepted",
      free: true,
      reason: "no image verification yet: nothing is mounted",
    },
    { path: `${c}.tracing`, status: "accepted", reason: onlyWith("tracing.enabled") },
    { path: `${c}.tracing.enabled`, status: "default", reason: "no OpenTelemetry tracing" },
    { path: `${c}.metering.disabled`, status: "default", reason: "metrics are always served" },
    { path: `${c}.metering.config`, status: "default", reason: "metrics are Prometheus text only" },
    { path: `${c}.metering.secure`, status: "default", reason: "the metrics port is plain HTTP" },
    { path: `${c}.metering.tlsKeyAlgorithm`, status: "accepted", reason: "no OpenTelemetry export" },
    { path: `${c}.metering.collector`, status: "accepted", reason: "no OpenTelemetry export" },
    { path: `${c}.metering.creds`, status: "accepted", reason: "no OpenTelemetry export" },
    { path: `${c}.profiling`, status: "accepted", reason: onlyWith("profiling.enabled") },
    { path: `${c}.profiling.enabled`, status: "default", reason: "no profiling endpoint" },
  ];
}

/** Every rule, in order (a later rule for the same path wins). */
export const VALUE_RULES: readonly ValueRule[] = [
  // Top level.
  {
    path: "global.templating",
    status: "accepted",
    reason: "settings of upstream's own `helm template` manifests",
  },
  { path: "global.image.registry", schema: NULLABLE_STRING },
  { path: "global.imagePullSecrets", schema: { type: "array", items: { type: ["string", "object"] } } },
  {
    path: "global.resyncPeriod",
    status: "accepted",
    reason: "watches keep the caches current; there is no periodic resync",
  },
  { path: "global.crdWatcher", status: "default", reason: "there is no custom resource watcher" },
  { path: "global.caCertificates.data", schema: NULLABLE_STRING },
  { path: "global.caCertificates.volume", free: true },
  { path: "global.nodeSelector", free: true },
  { path: "nameOverride", schema: NULLABLE_STRING },
  { path: "fullnameOverride", schema: NULLABLE_STRING },
  { path: "namespaceOverride", schema: NULLABLE_STRING },
  { path: "upgrade", status: "accepted", reason: "there is no v2 chart to upgrade from" },
  { path: "apiVersionOverride.podDisruptionBudget", schema: NULLABLE_STRING },
  {
    path: "openreports.enabled",
    status: "default",
    reason: "reports are `wgpolicyk8s.io/v1alpha2` PolicyReports",
  },
  {
    path: "openreports.installCrds",
    status: "default",
    reason: "reports are `wgpolicyk8s.io/v1alpha2` PolicyReports",
  },
  {
    path: "reportsServer",
    status: "accepted",
    reason: "only used with `reportsServer.enabled`, which is not supported",
  },
  { path: "reportsServer.enabled", status: "default", reason: "reports are stored as custom resources" },
  { path: "crds.reportsServer.enabled", status: "default", reason: "reports are stored as custom resources" },
  {
    path: "crds.groups.policies",
    status: "accepted",
    reason:
      "the `policies.kyverno.io` CRDs are installed by the `kyverno-ts-crds` chart (a release of their own, installed first)",
  },
  // The policy-reporter subchart's values: its own schema checks them.
  { path: "policyReporter", free: true },
  { path: "crds.annotations", free: true },
  { path: "crds.customLabels", free: true },
  {
    path: "crds.migration",
    status: "accepted",
    reason: "the CRDs are upstream's current versions: nothing to migrate",
  },
  { path: "crds.migration.*", free: true },
  { path: "crds.migration.image.*", schema: {} },
  {
    path: "apiCallToken",
    status: "accepted",
    reason: "kyverno-ts sends no token with policies' service calls",
  },
  {
    path: "config.preserve",
    status: "accepted",
    reason: "the ConfigMap is rendered from the values at every upgrade",
  },
  { path: "config.name", schema: NULLABLE_STRING },
  { path: "config.annotations", free: true },
  {
    path: "config.enableDefaultRegistryMutation",
    status: "accepted",
    reason: "image references are not rewritten yet",
  },
  { path: "config.defaultRegistry", status: "accepted", reason: "image references are not rewritten yet" },
  {
    path: "config.successEventActions",
    status: "accepted",
    reason: "success Events are not filtered by action; --omitEvents (and generateSuccessEvents) decide",
  },
  {
    path: "config.maxContextSize",
    status: "accepted",
    reason: "each context entry is bounded at 8 MiB instead",
  },
  {
    path: "config.updateRequestThreshold",
    status: "accepted",
    reason:
      "the admission controller keeps at most 10,000 UpdateRequests waiting to be created instead (past that, new ones are dropped and logged)",
  },
  { path: "config.webhooks", free: true },
  {
    path: "config.webhookAnnotations",
    status: "accepted",
    free: true,
    reason: "the admission controller does not set annotations on its webhook configurations yet",
  },
  {
    path: "config.webhookLabels",
    status: "accepted",
    free: true,
    reason: "the admission controller does not set labels on its webhook configurations yet",
  },
  { path: "config.matchConditions", status: "default", reason: "the webhooks carry no match conditions yet" },
  {
    path: "config.excludeKyvernoNamespace",
    status: "default",
    reason: "Kyverno's namespace is always excluded",
  },
  { path: "config.resourceFilters", schema: { type: "array", items: { type: "string" } } },
  { path: "metricsConfig.name", schema: NULLABLE_STRING },
  { path: "metricsConfig.annotations", free: true },
  { path: "metricsConfig.namespaces.include", schema: { type: "array", items: { type: "string" } } },
  { path: "metricsConfig.namespaces.exclude", schema: { type: "array", items: { type: "string" } } },
  {
    path: "metricsConfig.metricsRefreshInterval",
    status: "accepted",
    reason: "metrics are never reset (upstream's flag has not worked since 1.8.0 either)",
    schema: NULLABLE_STRING,
  },
  { path: "metricsConfig.bucketBoundaries", schema: BUCKETS },
  {
    path: "metricsConfig.metricsExposure",
    schema: {
      type: ["object", "null"],
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        properties: {
          enabled: { type: "boolean" },
          disabledLabelDimensions: { type: "array", items: { type: "string" } },
          bucketBoundaries: BUCKETS,
        },
      },
    },
  },
  { path: "metricsConfig.maxSeriesPerMetric", schema: { type: "integer", minimum: 1 } },
  { path: "imagePullSecrets", status: "default", reason: "verifyImages rules are not implemented" },
  { path: "existingImagePullSecrets", status: "default", reason: "verifyImages rules are not implemented" },
  {
    path: "test",
    status: "accepted",
    reason: "the chart ships no `helm test` Pod; NOTES.txt prints the checks to run",
  },
  { path: "test.*", schema: {} },
  { path: "customLabels", free: true },
  { path: "webhooksCleanup.securityContext", free: true },
  { path: "webhooksCleanup.podSecurityContext", free: true },
  { path: "webhooksCleanup.resources", free: true },
  { path: "webhooksCleanup.nodeSelector", free: true },
  { path: "webhooksCleanup.podAntiAffinity", free: true },
  { path: "webhooksCleanup.podAffinity", free: true },
  { path: "webhooksCleanup.nodeAffinity", free: true },
  { path: "webhooksCleanup.podLabels", free: true },
  { path: "webhooksCleanup.podAnnotations", free: true },
  { path: "webhooksCleanup.image.registry", schema: NULLABLE_STRING },
  {
    path: "webhooksCleanup.imagePullSecrets",
    schema: { type: "array", items: { type: ["string", "object"] } },
  },
  { path: "grafana.namespace", schema: NULLABLE_STRING },
  { path: "grafana.annotations", free: true },
  { path: "grafana.labels", free: true },
  { path: "grafana.grafanaDashboard.matchLabels", free: true },
  { path: "prometheusRule.namespace", schema: NULLABLE_STRING },
  {
    path: "prometheusRule.defaultRules.disabledAlerts",
    schema: {
      type: "array",
      items: { enum: ALERT_GROUPS.flatMap((g) => g.rules.map((r) => r.alert)) },
    },
  },
  { path: "prometheusRule.spec", schema: { type: "array", items: { type: "object" } } },
  { path: "prometheusRule.additionalAnnotations", free: true },
  { path: "prometheusRule.additionalLabels", free: true },

  // features.*
  {
    path: "features.admissionReports.enabled",
    status: "default",
    reason: "admission results are always reported",
  },
  {
    path: "features.aggregateReports.enabled",
    status: "default",
    reason: "admission results are always merged per resource",
  },
  { path: "features.policyReports.enabled", status: "default", reason: "PolicyReports are always written" },
  {
    path: "features.validatingAdmissionPolicyReports",
    status: "accepted",
    reason: "ValidatingAdmissionPolicies are not reported yet",
  },
  {
    path: "features.mutatingAdmissionPolicyReports",
    status: "accepted",
    reason: "MutatingAdmissionPolicies are not reported yet",
  },
  {
    path: "features.autoUpdateWebhooks.enabled",
    status: "default",
    reason: "the webhooks always follow the policies",
  },
  { path: "features.excludeBootstrapResources.enabled", status: "default", reason: "not implemented" },
  {
    path: "features.backgroundScan.enabled",
    status: "default",
    reason: "scans cannot be turned off (set `reportsController.enabled: false` for no reports controller)",
  },
  {
    path: "features.backgroundScan.backgroundScanWorkers",
    schema: { type: "integer", minimum: 1, maximum: 1000 },
  },
  {
    path: "features.backgroundScan.backgroundScanInterval",
    schema: { type: "string", pattern: GO_DURATION },
  },
  {
    path: "features.backgroundScan.skipResourceFilters",
    status: "default",
    reason: "background scans always ignore resourceFilters",
  },
  {
    path: "features.configMapCaching.enabled",
    status: "default",
    reason: "labelled ConfigMaps are always cached",
  },
  { path: "features.controllerRuntimeMetrics", status: "accepted", reason: "there is no controller-runtime" },
  {
    path: "features.deferredLoading",
    status: "accepted",
    reason: "context entries are always loaded when a rule needs them",
  },
  { path: "features.dumpPayload.enabled", status: "default", reason: "payloads are not logged" },
  {
    path: "features.generateValidatingAdmissionPolicy",
    status: "accepted",
    reason: "ValidatingAdmissionPolicies are not generated yet",
  },
  {
    path: "features.generateMutatingAdmissionPolicy",
    status: "accepted",
    reason: "MutatingAdmissionPolicies are not generated yet",
  },
  { path: "features.dumpPatches.enabled", status: "default", reason: "patches are not logged" },
  {
    path: "features.globalContext",
    status: "accepted",
    reason: "fixed bounds: 8 MiB per entry, loaded within the webhook deadline",
  },
  { path: "features.logging.format", schema: { type: "string", enum: ["text", "json"] } },
  { path: "features.logging.verbosity", schema: { type: "integer", minimum: 0, maximum: 10 } },
  {
    path: "features.omitEvents.eventTypes",
    schema: {
      type: "array",
      items: { enum: ["PolicyViolation", "PolicyApplied", "PolicyError", "PolicySkipped"] },
      uniqueItems: true,
    },
  },
  { path: "features.policyExceptions.namespace", schema: { type: "string" } },
  { path: "features.protectManagedResources.enabled", status: "default", reason: "not implemented" },
  { path: "features.registryClient", status: "accepted", reason: "no registry access yet" },
  { path: "features.ttlController.reconciliationInterval", schema: { type: "string", pattern: GO_DURATION } },
  {
    path: "features.tuf",
    status: "accepted",
    reason: "only used with `features.tuf.enabled`, which is not supported",
  },
  { path: "features.tuf.*", schema: NULLABLE_STRING },
  { path: "features.tuf.enabled", status: "default", reason: "no image verification yet" },

  // The built controllers.
  ...BUILT.flatMap(controllerRules).map((r) => ({ ...r, optional: true })),
  { path: "admissionController.container.extraArgs", schema: extraArgs(ADMISSION_EXTRA_FLAGS) },
  { path: "admissionController.container.extraEnvVars", schema: { type: "array" } },
  { path: "reportsController.extraArgs", schema: extraArgs(REPORTS_EXTRA_FLAGS) },
  { path: "backgroundController.extraArgs", schema: extraArgs(BACKGROUND_EXTRA_FLAGS) },
  { path: "cleanupController.extraArgs", schema: extraArgs(CLEANUP_EXTRA_FLAGS) },
  {
    path: "admissionController.featuresOverride.admissionReports.backPressureThreshold",
    status: "accepted",
    reason:
      "at most 10,000 admission results are kept; drops are counted in `kyverno_admission_results_dropped_total`",
  },
  {
    path: "admissionController.createSelfSignedCert",
    status: "default",
    reason: "the admission controller creates and renews its certificates in Secrets",
  },
  {
    path: "admissionController.tlsKeyAlgorithm",
    status: "default",
    reason: "generated keys are ECDSA P-256",
  },
  {
    path: "admissionController.certManager",
    status: "accepted",
    reason: "only used with `certManager.enabled`, which is not supported",
  },
  { path: "admissionController.certManager.*", schema: {} },
  {
    path: "admissionController.certManager.enabled",
    status: "default",
    reason: "the admission controller manages its own certificates",
  },
  {
    path: "admissionController.initContainer",
    status: "accepted",
    reason: "kyverno-ts needs no init container",
  },
  { path: "admissionController.initContainer.*", schema: {} },
  {
    path: "admissionController.failurePolicy",
    schema: { enum: ["Fail", "Ignore"] },
  },
  {
    path: "admissionController.webhookTimeout",
    schema: { type: ["integer", "null"], minimum: 1, maximum: 30 },
  },
  {
    path: "reportsController.server",
    status: "accepted",
    reason: "the reports controller serves metrics and probes only",
  },
  {
    path: "reportsController.sanityChecks",
    status: "accepted",
    reason: "the reports controller logs missing CRDs and keeps retrying",
  },

  {
    path: "backgroundController.backgroundScanInterval",
    schema: { type: ["string", "null"], pattern: GO_DURATION },
  },
  {
    path: "backgroundController.server",
    status: "accepted",
    reason: "the background controller serves metrics and probes only",
  },
  {
    path: "cleanupController.createSelfSignedCert",
    status: "default",
    reason: "the cleanup controller creates and renews its certificates in Secrets",
  },
  {
    path: "cleanupController.tlsKeyAlgorithm",
    status: "default",
    reason: "generated keys are ECDSA P-256",
  },
  {
    path: "cleanupController.certManager",
    status: "accepted",
    reason: "only used with `certManager.enabled`, which is not supported",
  },
  { path: "cleanupController.certManager.*", schema: {} },
  {
    path: "cleanupController.certManager.enabled",
    status: "default",
    reason: "the cleanup controller manages its own certificates",
  },
];

/** Values that are not upstream's: shorter spellings operators type, and kyverno-ts's own. */
export const SHORT_FORMS: ReadonlyArray<{ path: string; upstream: string; note: string }> = [
  {
    path: "admissionController.failurePolicy",
    upstream: "`features.forceFailurePolicyIgnore.enabled`",
    note: "`Fail` (default, as upstream: each policy's own failure policy) or `Ignore` (`--forceFailurePolicyIgnore`: every policy as `Ignore`)",
  },
  {
    path: "admissionController.webhookTimeout",
    upstream: "`admissionController.container.extraArgs.webhookTimeout`",
    note: "seconds, 1-30 (default 10); wins over the extraArgs spelling",
  },
  {
    path: "backgroundController.backgroundScanInterval",
    upstream: "`features.backgroundScan.backgroundScanInterval`",
    note: "the reports controller's scan period (a Go duration); wins when set",
  },
  {
    path: "admissionController.resources",
    upstream: "`admissionController.container.resources`",
    note: "wins when set",
  },
  {
    path: "admissionController.affinity, backgroundController.affinity, cleanupController.affinity, reportsController.affinity",
    upstream: "`podAntiAffinity` / `podAffinity` / `nodeAffinity`",
    note: "a whole Pod `affinity`, used as is instead of the composed one",
  },
  {
    path: "admissionController.terminationGracePeriodSeconds, backgroundController.terminationGracePeriodSeconds, cleanupController.terminationGracePeriodSeconds, reportsController.terminationGracePeriodSeconds",
    upstream: "(none)",
    note: "default: preStop sleep + webhook timeout + 15 s (admission), 30 s (the others)",
  },
  {
    path: "reportsController.startupProbe / livenessProbe / readinessProbe",
    upstream: "(none: upstream has no probes for this controller)",
    note: "on the metrics port: `/health/liveness`, `/health/readiness`",
  },
];

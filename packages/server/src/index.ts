export type { TextOutput } from "./bin/admission.js";
export { runAdmissionCommand } from "./bin/admission.js";
export { ADMISSION_DESCRIPTION, parseAdmissionArgs } from "./bin/args.js";
export { BACKGROUND_DESCRIPTION, parseBackgroundArgs, runBackgroundCommand } from "./bin/background.js";
export { CLEANUP_DESCRIPTION, parseCleanupArgs, runCleanupCommand } from "./bin/cleanup.js";
export { parseReportsArgs, REPORTS_DESCRIPTION, runReportsCommand } from "./bin/reports.js";
export { systemClock } from "./clock.js";
export type { ClusterAdmission } from "./controllers/admission/cluster/cluster-admission.js";
export { StartAborted, startClusterAdmission } from "./controllers/admission/cluster/cluster-admission.js";
export { DEFAULT_RESOURCE_FILTERS } from "./controllers/admission/filters.js";
export type { AdmissionResult } from "./controllers/admission/results.js";
export type {
  AdmissionRequest,
  AdmissionResponse,
  GroupVersionKind,
} from "./controllers/admission/review.js";
export type { BackgroundController } from "./controllers/background/background-controller.js";
export { createBackgroundController } from "./controllers/background/background-controller.js";
export { createBackgroundMetrics } from "./controllers/background/metrics.js";
export type { CertificatePair } from "./controllers/certificates/certificates.js";
export {
  caBundle,
  certificateValidity,
  generateCertificates,
} from "./controllers/certificates/certificates.js";
export { createReportsMetrics } from "./controllers/reports/metrics.js";
export { createReportsController } from "./controllers/reports/reports-controller.js";
export type { ReportsController } from "./controllers/reports/types.js";
export type { ControllerName, FlagSpec } from "./flags/catalog.js";
export { FLAGS, flagsOf } from "./flags/catalog.js";
export type { Logger } from "./logger.js";
export { silentLogger } from "./logger.js";
export type { MetricsConfig } from "./metrics/config.js";
export { parseMetricsConfig } from "./metrics/config.js";
export { acceptedExceptionNamespaces } from "./policycache/exception-settings.js";
export { policyKey } from "./policycache/policy-cache.js";
export type { EphemeralReport } from "./reports/ephemeral-reports.js";
export type { LoadedPolicies } from "./standalone/load-policies.js";
export type { MetricsServer } from "./webhooks/metrics-server.js";
export { createMetricsServer } from "./webhooks/metrics-server.js";

export type { KyvernoConfig, ResourceFilterEntry } from "./admission/filters.js";
export {
  DEFAULT_RESOURCE_FILTERS,
  defaultKyvernoConfig,
  isExcludedRequester,
  isFilteredResource,
  parseKyvernoConfig,
  parseResourceFilters,
} from "./admission/filters.js";
export type {
  AdmissionHandler,
  AdmissionHandlerOptions,
  HandleOptions,
  WebhookRoute,
} from "./admission/handler.js";
export { createAdmissionHandler, deadlineFor } from "./admission/handler.js";
export type { BlockingRule } from "./admission/messages.js";
export { blockedMessage, ruleWarning } from "./admission/messages.js";
export type { PolicyValidation, PolicyValidationOptions } from "./admission/policy-validation.js";
export { createPolicyValidation } from "./admission/policy-validation.js";
export type { RequesterRoles } from "./admission/request.js";
export type {
  AdmissionResult,
  AdmissionResultSink,
  BoundedResultQueue,
  BoundedResultQueueOptions,
} from "./admission/results.js";
export { createBoundedResultQueue } from "./admission/results.js";
export type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReviewResponse,
  GroupVersionKind,
  GroupVersionResource,
  HandlerReply,
  KubeStatus,
  ParsedReview,
  ReviewParse,
  StatusBody,
} from "./admission/review.js";
export { ADMISSION_REVIEW_API_VERSION, parseAdmissionReview } from "./admission/review.js";
export type {
  AdmissionController,
  AdmissionControllerOptions,
  AdmissionCore,
  AdmissionCoreOptions,
  AdmissionServers,
  ServeOptions,
} from "./admission-controller.js";
export {
  createAdmissionCore,
  serveAdmission,
  serverVersion,
  startAdmissionController,
} from "./admission-controller.js";
export type { AdmissionCommandOptions, AdmissionReadyInfo, TextOutput } from "./bin/admission.js";
export { AdmissionExit, runAdmissionCommand } from "./bin/admission.js";
export type { AdmissionArgs } from "./bin/args.js";
export { ADMISSION_DESCRIPTION, parseAdmissionArgs } from "./bin/args.js";
export type { BackgroundArgs, BackgroundCommandOptions } from "./bin/background.js";
export {
  BACKGROUND_DESCRIPTION,
  BACKGROUND_USAGE,
  parseBackgroundArgs,
  runBackgroundCommand,
} from "./bin/background.js";
export type { CleanupArgs, CleanupCommandOptions } from "./bin/cleanup.js";
export { CLEANUP_USAGE, CleanupExit, parseCleanupArgs, runCleanupCommand } from "./bin/cleanup.js";
export type { ClusterHooks } from "./bin/cluster-command.js";
export type { ReportsArgs, ReportsCommandOptions } from "./bin/reports.js";
export {
  parseReportsArgs,
  REPORTS_DESCRIPTION,
  ReportsExit,
  runReportsCommand,
} from "./bin/reports.js";
export type { ServerClock } from "./clock.js";
export { systemClock } from "./clock.js";
export type {
  ClusterAdmission,
  ClusterAdmissionOptions,
  LeaderTimings,
} from "./cluster/cluster-admission.js";
export { StartAborted, startClusterAdmission } from "./cluster/cluster-admission.js";
export type {
  BackgroundController,
  BackgroundControllerOptions,
} from "./controllers/background/background-controller.js";
export {
  BACKGROUND_LEASE_NAME,
  createBackgroundController,
} from "./controllers/background/background-controller.js";
export type { BackgroundMetrics } from "./controllers/background/metrics.js";
export { createBackgroundMetrics } from "./controllers/background/metrics.js";
export type {
  CertificateBundle,
  CertificatePair,
  GenerateCertificatesOptions,
} from "./controllers/certificates/certificates.js";
export {
  CA_VALIDITY_DAYS,
  caBundle,
  certificateValidity,
  generateCertificateAuthority,
  generateCertificates,
  issueServingCertificate,
  needsRenewal,
  RENEW_BEFORE_DAYS,
  SERVING_VALIDITY_DAYS,
} from "./controllers/certificates/certificates.js";
export type {
  BackgroundRuleLabels,
  ReportsMetrics,
  ReportsMetricsOptions,
} from "./controllers/reports/metrics.js";
export { createReportsMetrics } from "./controllers/reports/metrics.js";
export {
  createReportsController,
  REPORTS_CONTROLLER_NAME,
  REPORTS_LEASE_NAME,
} from "./controllers/reports/reports-controller.js";
export type {
  ReportsController,
  ReportsControllerOptions,
  ReportsControllerStats,
  ReportsLeaderElection,
  ScanContextLimits,
} from "./controllers/reports/types.js";
export type {
  WebhookBuildInputs,
  WebhookConfigurationJson,
  WebhookEndpoint,
  WebhookJson,
} from "./controllers/webhooks/webhook-configs.js";
export {
  buildWebhookConfigurations,
  MANAGED_BY_LABEL,
  WEBHOOK_CONFIGURATION_NAMES,
} from "./controllers/webhooks/webhook-configs.js";
export type { ControllerName, FlagSpec, FlagType } from "./flags/catalog.js";
export { FLAGS, flagsOf } from "./flags/catalog.js";
export type { FlagParse, ParsedFlags } from "./flags/parse.js";
export { parseFlags, parseGoBool } from "./flags/parse.js";
export type { Logger, LogLevel } from "./logger.js";
export { createJsonLogger, silentLogger } from "./logger.js";
export type {
  ControllerLoggerOptions,
  LogFormat,
  LogSettings,
  TimestampFormat,
} from "./logging/log-lines.js";
export { createControllerLogger, logSettings } from "./logging/log-lines.js";
export type { MetricsConfig } from "./metrics/config.js";
export { DEFAULT_BUCKETS, parseMetricsConfig } from "./metrics/config.js";
export type { MetricsSource } from "./metrics/exposition.js";
export type {
  AdmissionMetrics,
  AdmissionMetricsOptions,
  AdmissionRequestLabels,
  ClientQueryLabels,
  PolicyLabels,
  RuleInfoLabels,
  RuleResultLabels,
} from "./metrics/metrics.js";
export { createAdmissionMetrics } from "./metrics/metrics.js";
export {
  acceptedExceptionNamespaces,
  EXCEPTIONS_DISABLED,
  type ExceptionSettings,
  ExceptionWarnings,
} from "./policycache/exception-settings.js";
export type { RuleTypes } from "./policycache/index-keys.js";
export type {
  CachedPolicy,
  FailurePolicy,
  PolicyCache,
  PolicyCacheOptions,
  PolicyQuery,
  PolicyStatus,
} from "./policycache/policy-cache.js";
export { createPolicyCache, policyKey } from "./policycache/policy-cache.js";
export type {
  EphemeralReport,
  EphemeralReportPublisher,
  EphemeralReportPublisherOptions,
} from "./reports/ephemeral-reports.js";
export { createEphemeralReportPublisher, ephemeralReportOf } from "./reports/ephemeral-reports.js";
export type { ReportLimits } from "./reports/report-builder.js";
export {
  buildResourceReport,
  DEFAULT_REPORT_LIMITS,
  mergeResults,
  TRUNCATED_ANNOTATION,
} from "./reports/report-builder.js";
export type { LoadedPolicies } from "./standalone/load-policies.js";
export { loadPolicyFiles } from "./standalone/load-policies.js";
export type { MetricsServer } from "./webhooks/metrics-server.js";
export { createMetricsServer } from "./webhooks/metrics-server.js";
export type { TlsMaterial, WebhookServer, WebhookServerOptions } from "./webhooks/server.js";
export { createWebhookServer, WEBHOOK_ROUTES } from "./webhooks/server.js";

/**
 * Policy Reporter in TypeScript: the public entry. A hand-written list; nothing is re-exported
 * wholesale. The UI should import only the API contract types (`ApiFilterQuery`, `Paginated`, …).
 */

export type {
  ApiError,
  ApiFilterQuery,
  ApiPaginationQuery,
  ApiSeverity,
  ApiStatus,
  Category,
  ClusterStatusCount,
  FindingCounts,
  Findings,
  HealthStatus,
  NamespacedStatusCount,
  NamespaceSeverityCounts,
  NamespaceStatusCounts,
  Paginated,
  Policy,
  PolicyDetails,
  PolicyDetailsKind,
  PolicyDetailsList,
  PolicyDetailsSummary,
  PolicyReportSummary,
  PolicyResult,
  PolicyRuleDetails,
  PolicyRuleType,
  Resource,
  ResourceResult,
  ResourceSeverityCount,
  ResourceStatusCount,
  SeverityCounts,
  SourceCategoryTree,
  StatusCounts as ApiStatusCounts,
  Target as ApiTarget,
} from "./api/contract.js";
export type { PolicyDetailsSource } from "./api/routes-policy-details.js";
export type { ApiServer, ApiServerOptions } from "./api/server.js";
export { createApiServer } from "./api/server.js";
export type { ReporterOptions, RunningReporter } from "./app/reporter.js";
export { startReporter } from "./app/reporter.js";
export { accessControlsOf, allowedBy, isAllowed } from "./auth/access.js";
export type {
  AccessControl,
  OpenIdConnectConfig,
  SessionConfig,
  UiBasicAuthConfig,
  UiClusterConfig,
  UiConfig,
} from "./auth/config.js";
export { defaultUiConfig, readUiConfig } from "./auth/config.js";
export type { AuthOptions } from "./auth/plugin.js";
export { loginEnabled, registerAuth, SESSION_COOKIE } from "./auth/plugin.js";
export type { SessionUser, TokenCodec, TokenCodecOptions, UserProfile } from "./auth/session.js";
export { createTokenCodec } from "./auth/session.js";
export type { ReporterCommandOptions, ReporterReadyInfo } from "./bin/reporter.js";
export { REPORTER_USAGE, ReporterExit, runReporterCommand } from "./bin/reporter.js";
export { ENV_OVERRIDES } from "./config/env.js";
export type { LoadConfigOptions, LoadedConfig } from "./config/load.js";
export { loadReporterConfig } from "./config/load.js";
export type { ConfigWarning, ParsedConfig } from "./config/parse.js";
export { parseReporterConfig } from "./config/parse.js";
export { ConfigError, isConfigError } from "./config/read.js";
export type { ReporterConfig } from "./config/types.js";
export type {
  EmailChannel,
  EmailErrorCode,
  EmailFailure,
  EmailReportConfig,
  EmailReportFilter,
  EmailReportKind,
  EmailReports,
  EmailReportsConfig,
  EmailReportsOptions,
  EmailRunOutcome,
  MailerFactory,
  MailMessage,
  MailTransport,
  SmtpConfig,
  SmtpEncryption,
  SmtpTransportOptions,
} from "./email/index.js";
export { createEmailReports, nodemailerFactory, renderEmail } from "./email/index.js";
export type { ReporterErrorCode } from "./errors.js";
export { ERROR_CODES, isReporterError, ReporterError } from "./errors.js";
export type {
  ControllerLookup,
  IngestFilters,
  ReportFilterConfig,
  SourceFilterConfig,
} from "./ingest/filters.js";
export type { Ingest, IngestEvent, IngestListener, IngestOptions, IngestOutcome } from "./ingest/ingest.js";
export { createIngest } from "./ingest/ingest.js";
export type { StoreBehind } from "./ingest/writer.js";
export type { LogFields, Logger } from "./logger.js";
export { silentLogger } from "./logger.js";
export type { IncludeExclude, Matcher } from "./match.js";
export { compileIncludeExclude, compileWildcard } from "./match.js";
export type { MetricsFilter, MetricsMode, ResultLabel } from "./metrics/labels.js";
export { DETAILED_LABELS, SIMPLE_LABELS } from "./metrics/labels.js";
export type { MetricsOptions, ReporterMetrics } from "./metrics/metrics.js";
export { createMetrics, METRIC_NAMES } from "./metrics/metrics.js";
export { fnv1a64 } from "./model/fnv.js";
export type { ResultIdFields } from "./model/ids.js";
export { RESULT_ID_PROPERTY, reportId, resourceId, resultId } from "./model/ids.js";
export type { ModelIssue, ModelIssueCode } from "./model/issues.js";
export { formatIssue } from "./model/issues.js";
export { FIELD_LIMITS } from "./model/limits.js";
export type { NormalizeOptions, NormalizeResult } from "./model/normalize.js";
export { normalizeReport } from "./model/normalize.js";
export type {
  Report,
  ReportKind,
  ResourceRef,
  Result,
  Severity,
  Status,
  StatusCounts,
} from "./model/types.js";
export { DEFAULT_CATEGORY, SEVERITIES, STATUSES } from "./model/types.js";
export type { NotifierReport, ReportEvent, SeenCache } from "./notify/index.js";
export { createMemorySeenCache, createNotifier, createRedisSeenCache } from "./notify/index.js";
export type { CatalogUpsert, PolicyCatalog, PolicyCatalogOptions } from "./policies/catalog.js";
export { createPolicyCatalog } from "./policies/catalog.js";
export type { PolicyDetailsOptions } from "./policies/details.js";
export { policyDetailsOf } from "./policies/details.js";
export type { PolicyWatcher, PolicyWatcherOptions } from "./policies/watcher.js";
export { createPolicyWatcher, KYVERNO_POLICY_API_VERSION, KYVERNO_POLICY_KINDS } from "./policies/watcher.js";
export { createStore } from "./store/connect.js";
export type {
  CountRow,
  Dimension,
  Page,
  Pagination,
  ReportRow,
  ReportStore,
  ResourceCountRow,
  ResultFilter,
  ResultRow,
  Scope,
  StoreDialect,
  StoreOptions,
  WriteOp,
  WriteSummary,
} from "./store/types.js";
export type { TargetDescription, TargetSet, TargetsConfig } from "./targets/index.js";
export { createTargetsFromConfig, TargetConfigError, withFilter } from "./targets/index.js";
export type { NotifiableResult, Target } from "./targets/types.js";
export type { UiOptions, UiSetup } from "./ui/index.js";
export { registerUi } from "./ui/index.js";
export type { SecurityHeadersOptions } from "./ui/security-headers.js";
export { contentSecurityPolicy, registerSecurityHeaders } from "./ui/security-headers.js";
export type { DashboardOptions } from "./ui/serve.js";
export { defaultDashboardDir, injectApiMeta, registerDashboard } from "./ui/serve.js";

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
  Findings,
  NamespaceSeverityCounts,
  NamespaceStatusCounts,
  Paginated,
  Policy,
  PolicyDetails,
  PolicyReportSummary,
  PolicyResult,
  Resource,
  ResourceResult,
  ResourceSeverityCount,
  ResourceStatusCount,
  SeverityCounts,
  SourceCategoryTree,
  StatusCounts as ApiStatusCounts,
  Target as ApiTarget,
} from "./api/contract.js";
export type { ApiServer } from "./api/server.js";
export { createApiServer } from "./api/server.js";
export type { RunningReporter } from "./app/reporter.js";
export { startReporter } from "./app/reporter.js";
export type { UiConfig } from "./auth/config.js";
export { defaultUiConfig } from "./auth/config.js";
export type { UserProfile } from "./auth/session.js";
export type { ReporterReadyInfo } from "./bin/reporter.js";
export { runReporterCommand } from "./bin/reporter.js";
export { loadReporterConfig } from "./config/load.js";
export { ConfigError } from "./config/read.js";
export { createIngest } from "./ingest/ingest.js";
export type { Logger } from "./logger.js";
export { silentLogger } from "./logger.js";
export { createMetrics } from "./metrics/metrics.js";
export { resourceId } from "./model/ids.js";
export type { Report, ResourceRef, Result, Severity, Status } from "./model/types.js";
export { SEVERITIES, STATUSES } from "./model/types.js";
export { createPolicyCatalog } from "./policies/catalog.js";
export { createStore } from "./store/connect.js";
export type { Page, Pagination, ReportStore, Scope, StoreOptions } from "./store/types.js";
export type { Target } from "./targets/types.js";
export { registerUi } from "./ui/index.js";
export { registerDashboard } from "./ui/serve.js";

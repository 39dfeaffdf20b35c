/**
 * The REST API contract: every response body and the query parameters of the Policy Reporter
 * compatible v1 and v2 endpoints. The UI imports these types and nothing else from the reporter.
 * Imports nothing, so it can be consumed without the server's dependencies.
 */

/** A result outcome. */
export type ApiStatus = "pass" | "fail" | "warn" | "error" | "skip";

/** A severity; `unknown` stands for results without one (in filters and severity counts). */
export type ApiSeverity = "info" | "low" | "medium" | "high" | "critical";

/**
 * The common filter query parameters. Repeat a parameter for several values
 * (`namespaces=a&namespaces=b`; `namespaces[]=a` is accepted too). Values of one parameter are
 * OR'ed, parameters are AND'ed.
 */
export interface ApiFilterQuery {
  namespaces?: string[];
  kinds?: string[];
  /** Resource names. */
  resources?: string[];
  sources?: string[];
  categories?: string[];
  severities?: Array<ApiSeverity | "unknown">;
  policies?: string[];
  rules?: string[];
  status?: ApiStatus[];
  /** Report labels, `key:value`. */
  labels?: string[];
  /** Case-insensitive substring of the resource name or kind, or of the policy (resource lists: name or kind). */
  search?: string;
}

/**
 * Pagination query parameters, as upstream: `page` is 1-based and `offset` is the page size
 * (default 25 when `page` is given). Without `page` every match is returned.
 */
export interface ApiPaginationQuery {
  page?: number;
  offset?: number;
  /** Sort keys; results: namespace, kind, name, resource, policy, rule, status, severity, source, category, timestamp, message; resources: namespace, kind, name, resource, source, category. */
  sortBy?: string[];
  direction?: "asc" | "desc";
}

/** A page of a paginated list: the items and the total number of matches. */
export interface Paginated<T> {
  items: T[];
  count: number;
}

/** Counts per status (every status present, zero when none). */
export type StatusCounts = Record<ApiStatus, number>;

/** Counts per severity, `unknown` for results without one. */
export type SeverityCounts = Record<ApiSeverity | "unknown", number>;

/** A notification target (`/v1/targets`, `/v2/targets`). */
export interface Target {
  name: string;
  type: string;
  minimumSeverity: string;
  sources: string[];
  skipExistingOnStartup: boolean;
}

/** A report summary (`/v1/policy-reports`, `/v1/cluster-policy-reports`). */
export interface PolicyReportSummary extends StatusCounts {
  id: string;
  name: string;
  /** Absent for cluster reports. */
  namespace?: string;
  source: string;
  labels: Record<string, string>;
}

/** A resource (`/v1/…/resources`, `/v2/resource/:id`). */
export interface Resource {
  id: string;
  uid: string;
  name: string;
  /** Absent for cluster-scoped resources. */
  namespace?: string;
  kind: string;
  apiVersion: string;
}

/** One result in result lists (v1 and v2 `…/results`). */
export interface PolicyResult {
  id: string;
  /** The report's namespace; absent for cluster reports. */
  namespace?: string;
  kind: string;
  apiVersion: string;
  name: string;
  /** ID of the resource (`/v2/resource/:id`); empty when the result names none. */
  resourceId: string;
  message: string;
  category: string;
  policy: string;
  rule: string;
  status: ApiStatus;
  source: string;
  severity?: ApiSeverity;
  /** Unix seconds. */
  timestamp: number;
  properties: Record<string, string>;
}

/** `/v1/namespaced-resources/status-counts`: per status, the count per namespace. */
export interface NamespacedStatusCount {
  status: ApiStatus;
  items: Array<{ namespace: string; count: number }>;
}

/** `/v1/cluster-resources/status-counts`: per status, the count. */
export interface ClusterStatusCount {
  status: ApiStatus;
  count: number;
}

/** A category with its status counts. */
export interface Category extends StatusCounts {
  name: string;
}

/** A source with its categories (`/v2/sources/categories`, `/v2/resource/:id/source-categories`). */
export interface SourceCategoryTree {
  name: string;
  categories: Category[];
}

/** Result counts of one resource for one source (and category, on a resource's own page). */
export interface ResourceResult extends StatusCounts {
  /** The resource ID. */
  id: string;
  uid: string;
  name: string;
  namespace?: string;
  kind: string;
  apiVersion: string;
  source: string;
  /** Only in `/v2/resource/:id/resource-results`. */
  category?: string;
}

/** Status counts of one resource for one source (`/v2/resource/:id/status-counts`). */
export interface ResourceStatusCount extends StatusCounts {
  source: string;
}

/** Severity counts of one resource for one source (`/v2/resource/:id/severity-counts`). */
export interface ResourceSeverityCount extends SeverityCounts {
  source: string;
}

/** A policy with its results per status (`/v2/policies`). */
export interface Policy {
  source: string;
  category: string;
  policy: string;
  /** The highest severity among its results. */
  severity?: ApiSeverity;
  results: StatusCounts;
}

/** Findings of one source. */
export interface FindingCounts<K extends string> {
  source: string;
  total: number;
  counts: Record<K, number>;
}

/** `/v2/findings` (by status) and `/v2/severity-findings` (by severity). */
export interface Findings<K extends string> {
  total: number;
  perResult: Record<K, number>;
  counts: Array<FindingCounts<K>>;
}

/** `/v2/namespace-scoped/:source/status-counts`: status counts per namespace. */
export type NamespaceStatusCounts = Record<string, StatusCounts>;

/** `/v2/namespace-scoped/:source/severity-counts`: severity counts per namespace. */
export type NamespaceSeverityCounts = Record<string, SeverityCounts>;

/** `/healthz`, `/ready`. */
export interface HealthStatus {
  status: "ok" | "unavailable";
  error?: string;
}

/** The error body of every 4xx / 5xx (fastify's shape; validation errors name the parameter). */
export interface ApiError {
  statusCode: number;
  code?: string;
  error: string;
  message: string;
}

/** A Kyverno policy kind whose details the reporter watches. */
export type PolicyDetailsKind = "ClusterPolicy" | "Policy";

/** The rule types of a Kyverno policy. */
export type PolicyRuleType = "validate" | "mutate" | "generate" | "verifyImages" | "other";

/**
 * A Kyverno policy in lists (`/v2/policy-details`): the fields of the Policy Reporter Kyverno
 * plugin's `PolicyListItem` (category, namespace, name, title, description, severity) plus its kind
 * and the name results use for it.
 */
export interface PolicyDetailsSummary {
  kind: PolicyDetailsKind;
  name: string;
  /** Absent for a ClusterPolicy. */
  namespace?: string;
  /** The name in report results: `name` for a ClusterPolicy, `namespace/name` for a Policy. */
  policy: string;
  /** `policies.kyverno.io/title`, else the name. */
  title: string;
  /** `policies.kyverno.io/description`. */
  description?: string;
  /** `policies.kyverno.io/category`. */
  category?: string;
  /** `policies.kyverno.io/severity`, as written (usually low, medium or high). */
  severity?: string;
}

/** One rule of a policy. */
export interface PolicyRuleDetails {
  name: string;
  type: PolicyRuleType;
  /** A validate rule's own `failureAction` (Audit / Enforce), when set. */
  failureAction?: string;
}

/**
 * One Kyverno policy (`/v2/policy-details/:name`, `/v2/policy-details/:namespace/:name`), shaped
 * after the Kyverno plugin's `Policy` (`engine`, `code`) with Kyverno's own settings as typed fields.
 */
export interface PolicyDetails extends PolicyDetailsSummary {
  engine: {
    name: "Kyverno";
    /** `policies.kyverno.io/minversion`. */
    version?: string;
    /** `kyverno.io/kubernetes-version`. */
    kubernetesVersion?: string;
    /** `policies.kyverno.io/subject`, split at commas. */
    subjects: string[];
  };
  /** `spec.background` (default true). */
  background: boolean;
  /** `spec.validationFailureAction` (default Audit). */
  validationFailureAction: string;
  /** The distinct failure actions of its validate rules (rule `failureAction`, else the policy's). */
  failureActions: string[];
  rules: PolicyRuleDetails[];
  /** The policy as YAML, without `managedFields` and the last-applied annotation. */
  code: { contentType: "text/yaml"; content: string; truncated: boolean };
}

/** `/v2/policy-details`: whether policies are watched, by kind, and those known. */
export interface PolicyDetailsList {
  /** The kinds watched; empty when the reporter has no policy details (not in a cluster, no Kyverno CRDs). */
  watched: PolicyDetailsKind[];
  items: PolicyDetailsSummary[];
}

/**
 * The REST API contract: every response body and the query parameters of the Policy Reporter
 * compatible v1 and v2 endpoints, each written once as a JSON Schema (what the routes validate
 * queries with and compile response serializers from) with its TypeScript type inferred from it.
 * The UI imports these types and nothing else from the reporter.
 */
import { SEVERITIES, STATUSES } from "../model/types.js";
import { type Infer, type JsonSchema, j } from "./json-schema.js";

/** A result outcome. */
export type ApiStatus = (typeof STATUSES)[number];

/** A severity; `unknown` stands for results without one (in filters and severity counts). */
export type ApiSeverity = (typeof SEVERITIES)[number];

const text = j.string();
const integer = j.integer();
const boolean = j.boolean();
const strings = j.array(text);
const stringMap = j.record(text);
const name = j.string({ maxLength: 512 });
const list = j.array(name, { maxItems: 200 });
const status = j.string<ApiStatus>();
const severity = j.string<ApiSeverity>();

/** The schema of the common filter query parameters. */
export const filterQuerySchema = j.object({
  namespaces: j.optional(list),
  kinds: j.optional(list),
  /** Resource names. */
  resources: j.optional(list),
  sources: j.optional(list),
  categories: j.optional(list),
  severities: j.optional(j.array(j.enum([...SEVERITIES, "unknown"]), { maxItems: 10 })),
  policies: j.optional(list),
  rules: j.optional(list),
  status: j.optional(j.array(j.enum(STATUSES), { maxItems: 10 })),
  /** Report labels, `key:value`. */
  labels: j.optional(j.array(j.string({ pattern: "^[^:]+:.*$", maxLength: 640 }), { maxItems: 50 })),
  /** Case-insensitive substring of the resource name or kind, or of the policy (resource lists: name or kind). */
  search: j.optional(j.string({ maxLength: 256 })),
});

/**
 * The common filter query parameters. Repeat a parameter for several values
 * (`namespaces=a&namespaces=b`; `namespaces[]=a` is accepted too). Values of one parameter are
 * OR'ed, parameters are AND'ed.
 */
export type ApiFilterQuery = Infer<typeof filterQuerySchema>;

/** The largest `page` accepted (a larger one is a 400, not a database error). */
export const MAX_PAGE = 1_000_000_000;

/** The schema of the pagination query parameters of a list sortable by `sortKeys`. */
export function paginationQuerySchema(sortKeys: readonly string[]) {
  return j.object({
    /** At most 10^9: beyond any store, and `(page - 1) * offset` stays an exact integer in every database. */
    page: j.optional(j.integer({ minimum: 1, maximum: MAX_PAGE })),
    offset: j.optional(j.integer({ minimum: 1, maximum: 1000 })),
    /** Sort keys; results: namespace, kind, name, resource, policy, rule, status, severity, source, category, timestamp, message; resources: namespace, kind, name, resource, source, category. */
    sortBy: j.optional(j.array(j.enum(sortKeys), { maxItems: 12 })),
    direction: j.optional(j.enum(["asc", "desc"])),
  });
}

/**
 * Pagination query parameters, as upstream: `page` is 1-based and `offset` is the page size
 * (default 25 when `page` is given). Without `page` every match is returned.
 */
export type ApiPaginationQuery = Infer<ReturnType<typeof paginationQuerySchema>>;

/** The schema of a `{items, count}` page of `item`. */
export function paginatedSchema<T>(item: JsonSchema<T>) {
  return j.object({ items: j.array(item), count: integer });
}

/** A page of a paginated list: the items and the total number of matches. */
export type Paginated<T> = Infer<ReturnType<typeof paginatedSchema<T>>>;

function countsOf<K extends string>(keys: readonly K[]) {
  return j.object(Object.fromEntries(keys.map((k) => [k, integer])) as Record<K, JsonSchema<number>>);
}

/** The schema of {@link StatusCounts}. */
export const statusCountsSchema = countsOf(STATUSES);

/** Counts per status (every status present, zero when none). */
export type StatusCounts = Infer<typeof statusCountsSchema>;

/** The schema of {@link SeverityCounts}. */
export const severityCountsSchema = countsOf([...SEVERITIES, "unknown"]);

/** Counts per severity, `unknown` for results without one. */
export type SeverityCounts = Infer<typeof severityCountsSchema>;

/** The schema of {@link Target}. */
export const targetSchema = j.object({
  name: text,
  type: text,
  minimumSeverity: text,
  sources: strings,
  skipExistingOnStartup: boolean,
});

/** A notification target (`/v1/targets`, `/v2/targets`). */
export type Target = Infer<typeof targetSchema>;

/** The schema of {@link PolicyReportSummary}. */
export const reportSummarySchema = j.object({
  id: text,
  name: text,
  /** Absent for cluster reports. */
  namespace: j.optional(text),
  source: text,
  labels: stringMap,
  ...statusCountsSchema.properties,
});

/** A report summary (`/v1/policy-reports`, `/v1/cluster-policy-reports`). */
export type PolicyReportSummary = Infer<typeof reportSummarySchema>;

/** The schema of {@link Resource}. */
export const resourceSchema = j.object({
  id: text,
  uid: text,
  name: text,
  /** Absent for cluster-scoped resources. */
  namespace: j.optional(text),
  kind: text,
  apiVersion: text,
});

/** A resource (`/v1/…/resources`, `/v2/resource/:id`). */
export type Resource = Infer<typeof resourceSchema>;

/** The schema of {@link PolicyResult}. */
export const policyResultSchema = j.object({
  id: text,
  /** The report's namespace; absent for cluster reports. */
  namespace: j.optional(text),
  kind: text,
  apiVersion: text,
  name: text,
  /** ID of the resource (`/v2/resource/:id`); empty when the result names none. */
  resourceId: text,
  message: text,
  category: text,
  policy: text,
  rule: text,
  status,
  source: text,
  severity: j.optional(severity),
  /** Unix seconds. */
  timestamp: integer,
  properties: stringMap,
});

/** One result in result lists (v1 and v2 `…/results`). */
export type PolicyResult = Infer<typeof policyResultSchema>;

/** The schema of {@link NamespacedStatusCount}. */
export const namespacedStatusCountSchema = j.object({
  status,
  items: j.array(j.object({ namespace: text, count: integer })),
});

/** `/v1/namespaced-resources/status-counts`: per status, the count per namespace. */
export type NamespacedStatusCount = Infer<typeof namespacedStatusCountSchema>;

/** The schema of {@link ClusterStatusCount}. */
export const clusterStatusCountSchema = j.object({ status, count: integer });

/** `/v1/cluster-resources/status-counts`: per status, the count. */
export type ClusterStatusCount = Infer<typeof clusterStatusCountSchema>;

const categorySchema = j.object({ name: text, ...statusCountsSchema.properties });

/** A category with its status counts. */
export type Category = Infer<typeof categorySchema>;

/** The schema of {@link SourceCategoryTree}. */
export const sourceCategoryTreeSchema = j.object({ name: text, categories: j.array(categorySchema) });

/** A source with its categories (`/v2/sources/categories`, `/v2/resource/:id/source-categories`). */
export type SourceCategoryTree = Infer<typeof sourceCategoryTreeSchema>;

/** The schema of {@link ResourceResult}. */
export const resourceResultSchema = j.object({
  /** The resource ID. */
  id: text,
  uid: text,
  name: text,
  namespace: j.optional(text),
  kind: text,
  apiVersion: text,
  source: text,
  /** Only in `/v2/resource/:id/resource-results`. */
  category: j.optional(text),
  ...statusCountsSchema.properties,
});

/** Result counts of one resource for one source (and category, on a resource's own page). */
export type ResourceResult = Infer<typeof resourceResultSchema>;

/** The schema of {@link ResourceStatusCount}. */
export const resourceStatusCountSchema = j.object({ source: text, ...statusCountsSchema.properties });

/** Status counts of one resource for one source (`/v2/resource/:id/status-counts`). */
export type ResourceStatusCount = Infer<typeof resourceStatusCountSchema>;

/** The schema of {@link ResourceSeverityCount}. */
export const resourceSeverityCountSchema = j.object({ source: text, ...severityCountsSchema.properties });

/** Severity counts of one resource for one source (`/v2/resource/:id/severity-counts`). */
export type ResourceSeverityCount = Infer<typeof resourceSeverityCountSchema>;

/** The schema of {@link Policy}. */
export const policySchema = j.object({
  source: text,
  category: text,
  policy: text,
  /** The highest severity among its results. */
  severity: j.optional(severity),
  results: statusCountsSchema,
});

/** A policy with its results per status (`/v2/policies`). */
export type Policy = Infer<typeof policySchema>;

/** The schema of {@link FindingCounts}, counts keyed by `K`. */
export function findingCountsSchema<K extends string>() {
  return j.object({ source: text, total: integer, counts: j.record<number, K>(integer) });
}

/** Findings of one source. */
export type FindingCounts<K extends string> = Infer<ReturnType<typeof findingCountsSchema<K>>>;

/** The schema of {@link Findings}, counts keyed by `K`. */
export function findingsSchema<K extends string>() {
  return j.object({
    total: integer,
    perResult: j.record<number, K>(integer),
    counts: j.array(findingCountsSchema<K>()),
  });
}

/** `/v2/findings` (by status) and `/v2/severity-findings` (by severity). */
export type Findings<K extends string> = Infer<ReturnType<typeof findingsSchema<K>>>;

/** `/v2/namespace-scoped/:source/status-counts`: status counts per namespace. */
export type NamespaceStatusCounts = Record<string, StatusCounts>;

/** `/v2/namespace-scoped/:source/severity-counts`: severity counts per namespace. */
export type NamespaceSeverityCounts = Record<string, SeverityCounts>;

/** The schema of {@link HealthStatus}. */
export const healthSchema = j.object({
  status: j.string<"ok" | "unavailable">(),
  error: j.optional(text),
});

/** `/healthz`, `/ready`. */
export type HealthStatus = Infer<typeof healthSchema>;

/** The error body of every 4xx / 5xx (fastify's shape; validation errors name the parameter). */
export interface ApiError {
  statusCode: number;
  code?: string;
  error: string;
  message: string;
}

export type {
  PolicyDetails,
  PolicyDetailsKind,
  PolicyDetailsList,
  PolicyDetailsSummary,
  PolicyRuleDetails,
  PolicyRuleType,
} from "./contract-policy-details.js";

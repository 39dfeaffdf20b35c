/**
 * Translation between the wire (query parameters, contract types) and the store (filters, rows).
 */
import type { ResourceRef } from "../model/types.js";
import { SEVERITIES, STATUSES } from "../model/types.js";
import type {
  CountRow,
  Pagination,
  ResourceCountRow,
  ResultFilter,
  ResultRow,
  Scope,
} from "../store/types.js";
import type {
  ApiFilterQuery,
  ApiPaginationQuery,
  ApiSeverity,
  Category,
  PolicyResult,
  Resource,
  ResourceResult,
  SeverityCounts,
  SourceCategoryTree,
  StatusCounts,
} from "./contract.js";

/** The page size used when `page` is given without `offset`. */
export const DEFAULT_PAGE_SIZE = 25;

/** The store filter for query parameters, with an endpoint's fixed constraints. */
export function toFilter(query: ApiFilterQuery, fixed: ResultFilter = {}): ResultFilter {
  const f: ResultFilter = {};
  if (query.namespaces) f.namespaces = query.namespaces;
  if (query.kinds) f.kinds = query.kinds;
  if (query.resources) f.resources = query.resources;
  if (query.sources) f.sources = query.sources;
  if (query.categories) f.categories = query.categories;
  if (query.severities) f.severities = query.severities;
  if (query.policies) f.policies = query.policies;
  if (query.rules) f.rules = query.rules;
  if (query.status) f.status = query.status;
  if (query.labels) f.labels = query.labels;
  if (query.search) f.search = query.search;
  return { ...f, ...fixed };
}

/** Adds a scope to a filter. */
export function scoped(query: ApiFilterQuery, scope: Scope, fixed: ResultFilter = {}): ResultFilter {
  return toFilter(query, { ...fixed, scope });
}

/** The store pagination for query parameters; `undefined` without `page`. */
export function toPagination(query: ApiPaginationQuery): Pagination | undefined {
  if (query.page === undefined) return undefined;
  return {
    page: query.page,
    offset: query.offset ?? DEFAULT_PAGE_SIZE,
    ...(query.sortBy ? { sortBy: query.sortBy } : {}),
    ...(query.direction ? { direction: query.direction } : {}),
  };
}

/** Zero counts per status. */
export function emptyStatusCounts(): StatusCounts {
  return { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
}

/** Zero counts per severity. */
export function emptySeverityCounts(): SeverityCounts {
  return { unknown: 0, info: 0, low: 0, medium: 0, high: 0, critical: 0 };
}

/** The severity key of a stored severity (`""` is `unknown`). */
export function severityKey(severity: string): keyof SeverityCounts {
  return (SEVERITIES as readonly string[]).includes(severity) ? (severity as ApiSeverity) : "unknown";
}

/** Adds `count` to `counts[status]` when status is known. */
export function addStatus(counts: StatusCounts, status: string, count: number): void {
  if ((STATUSES as readonly string[]).includes(status)) counts[status as keyof StatusCounts] += count;
}

/** A resource on the wire. */
export function toResource(ref: ResourceRef): Resource {
  return {
    id: ref.id,
    uid: ref.uid,
    name: ref.name,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    kind: ref.kind,
    apiVersion: ref.apiVersion,
  };
}

/** A result on the wire. */
export function toPolicyResult(row: ResultRow): PolicyResult {
  return {
    id: row.id,
    ...(row.namespace ? { namespace: row.namespace } : {}),
    kind: row.resource?.kind ?? "",
    apiVersion: row.resource?.apiVersion ?? "",
    name: row.resource?.name ?? "",
    resourceId: row.resource?.id ?? "",
    message: row.message,
    category: row.category,
    policy: row.policy,
    rule: row.rule,
    status: row.status,
    source: row.source,
    ...(row.severity ? { severity: row.severity } : {}),
    timestamp: row.timestamp,
    properties: row.properties,
  };
}

/** Per-resource counts on the wire. */
export function toResourceResult(row: ResourceCountRow, withCategory: boolean): ResourceResult {
  return {
    ...toResource(row.resource),
    source: row.source,
    ...(withCategory ? { category: row.category } : {}),
    pass: row.pass,
    fail: row.fail,
    warn: row.warn,
    error: row.error,
    skip: row.skip,
  };
}

/** The entry of `key`, created with `create` when missing. */
export function entryOf<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

/** Groups (source, category, status) counts into the source → categories tree. */
export function toSourceCategoryTree(
  rows: CountRow<"source" | "category" | "status">[],
): SourceCategoryTree[] {
  const sources = new Map<string, Map<string, Category>>();
  for (const row of rows) {
    const categories = entryOf(sources, row.source, () => new Map<string, Category>());
    const category = entryOf(categories, row.category, () => ({
      name: row.category,
      ...emptyStatusCounts(),
    }));
    addStatus(category, row.status, row.count);
  }
  return [...sources].map(([name, categories]) => ({ name, categories: [...categories.values()] }));
}

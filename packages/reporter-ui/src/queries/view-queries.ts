/**
 * The API queries of the views, one builder each: the cache key and the call. The views and the
 * route preloader (`route-queries`) build their queries here, so a preloaded request has exactly
 * the key the view asks for. Pure: no React, no Mantine (the entry module runs it before either).
 */
import type {
  ApiFilterQuery,
  ApiSeverity,
  ApiStatus,
  ApiStatusCounts,
  ApiTarget,
  Findings,
  Paginated,
  Policy,
  PolicyDetails,
  PolicyResult,
  Resource,
  ResourceResult,
  SeverityCounts,
  SourceCategoryTree,
} from "@kyverno-ts/reporter";
import type { ApiClient, ApiScope } from "../api/client.ts";
import { type QuerySpec, shared } from "../api/query-cache.ts";
import { sumNamespaceCounts } from "../components/charts-data.ts";
import { queryKey } from "../filters/filter-state.ts";

/** A table page: 1-based number and size. */
export interface TablePage {
  page: number;
  size: number;
}

/** Which results a results table reads: a scope, or one resource's. */
export type ResultsOf = { scope: ApiScope } | { resourceId: string };

/** Failures only, unless the filter picks statuses itself (the severity charts). */
export function severityFilter(filter: ApiFilterQuery): ApiFilterQuery {
  return filter.status?.length ? filter : { ...filter, status: ["fail"] };
}

/** The API's largest page: the failing results a resource's PolicyException is built from. */
const EXCEPTION_RESULTS = 1000;

/** The sources with results under `filter` (the navigation's, the filter bar's, the namespace counts'). */
function sources(api: ApiClient, filter: ApiFilterQuery = {}): QuerySpec<string[]> {
  return { key: queryKey("sources", filter), call: api.sources(filter) };
}

/** Status counts per namespace summed over the sources (the filter's, or every source). */
async function loadNamespaceCounts(
  api: ApiClient,
  filter: ApiFilterQuery,
  signal?: AbortSignal,
): Promise<Map<string, ApiStatusCounts>> {
  const names = filter.sources?.length ? filter.sources : await shared(sources(api, filter), signal);
  const perSource = await Promise.all(
    names.map((source) => api.namespaceStatusCounts(source, filter)(signal)),
  );
  return sumNamespaceCounts(perSource);
}

/** The builders, by what they read. */
export const queries = {
  sources,
  findings: (api: ApiClient, filter: ApiFilterQuery): QuerySpec<Findings<ApiStatus>> => ({
    key: queryKey("findings", filter),
    call: api.findings(filter),
  }),
  severityFindings: (
    api: ApiClient,
    filter: ApiFilterQuery,
  ): QuerySpec<Findings<ApiSeverity | "unknown">> => {
    const severity = severityFilter(filter);
    return { key: queryKey("severity-findings", severity), call: api.severityFindings(severity) };
  },
  namespaceCounts: (api: ApiClient, filter: ApiFilterQuery): QuerySpec<Map<string, ApiStatusCounts>> => ({
    key: queryKey("namespace-counts", filter),
    call: (signal) => loadNamespaceCounts(api, filter, signal),
  }),
  results: (
    api: ApiClient,
    of: ResultsOf,
    filter: ApiFilterQuery,
    { page, size }: TablePage,
  ): QuerySpec<Paginated<PolicyResult>> => {
    const list = { ...filter, page, offset: size };
    return {
      key: queryKey("results", of, filter, page, size),
      call:
        "scope" in of
          ? api.results(of.scope, { ...list, sortBy: ["namespace", "kind", "name", "policy", "rule"] })
          : api.resourcePolicyResults(of.resourceId, { ...list, sortBy: ["policy", "rule"] }),
    };
  },
  resourceResults: (
    api: ApiClient,
    scope: ApiScope,
    filter: ApiFilterQuery,
    { page, size }: TablePage,
  ): QuerySpec<Paginated<ResourceResult>> => ({
    key: queryKey("resource-results", scope, filter, page, size),
    call: api.resourceResults(scope, {
      ...filter,
      page,
      offset: size,
      sortBy: ["namespace", "kind", "name"],
    }),
  }),
  sourceStatus: (api: ApiClient, source: string, filter: ApiFilterQuery): QuerySpec<ApiStatusCounts> => ({
    key: queryKey("source-status", filter),
    call: api.sourceStatusCounts(source, filter),
  }),
  sourceSeverity: (api: ApiClient, source: string, filter: ApiFilterQuery): QuerySpec<SeverityCounts> => {
    const severity = severityFilter(filter);
    return { key: queryKey("source-severity", severity), call: api.sourceSeverityCounts(source, severity) };
  },
  sourceCategories: (api: ApiClient, filter: ApiFilterQuery): QuerySpec<SourceCategoryTree[]> => ({
    key: queryKey("source-categories", filter),
    call: api.sourceCategories(filter),
  }),
  policies: (api: ApiClient, filter: ApiFilterQuery): QuerySpec<Policy[]> => ({
    key: queryKey("policies", filter),
    call: api.policies(filter),
  }),
  policyDetails: (api: ApiClient, policy: string): QuerySpec<PolicyDetails> => ({
    key: queryKey("policy-details", policy),
    call: api.policyDetails(policy),
  }),
  resource: (api: ApiClient, id: string): QuerySpec<Resource> => ({
    key: queryKey("resource", id),
    call: api.resource(id),
  }),
  resourceTree: (api: ApiClient, id: string, filter: ApiFilterQuery): QuerySpec<SourceCategoryTree[]> => ({
    key: queryKey("resource-tree", id, filter),
    call: api.resourceSourceCategories(id, filter),
  }),
  exceptionResults: (api: ApiClient, id: string): QuerySpec<Paginated<PolicyResult>> => ({
    key: queryKey("exception-results", id),
    // One page of the API's largest size: a resource has far fewer results, and no view downloads all.
    call: api.resourcePolicyResults(id, {
      status: ["fail", "warn", "error"],
      page: 1,
      offset: EXCEPTION_RESULTS,
    }),
  }),
  targets: (api: ApiClient): QuerySpec<ApiTarget[]> => ({ key: "targets", call: api.targets() }),
};

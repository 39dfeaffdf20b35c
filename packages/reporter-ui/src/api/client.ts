/**
 * The typed client of the reporter's REST API (v1/v2, Policy Reporter compatible). One method
 * per endpoint the dashboard reads; every list that can grow with the cluster is paginated on
 * the server. Types come from the reporter's contract only.
 */
import type {
  ApiError,
  ApiFilterQuery,
  ApiSeverity,
  ApiStatus,
  ApiStatusCounts,
  ApiTarget,
  Findings,
  NamespaceSeverityCounts,
  NamespaceStatusCounts,
  Paginated,
  Policy,
  PolicyDetails,
  PolicyResult,
  Resource,
  ResourceResult,
  ResourceSeverityCount,
  ResourceStatusCount,
  SeverityCounts,
  SourceCategoryTree,
} from "@kyverno-ts/reporter";
import { ApiRequestError } from "./errors.ts";
import { encodeQuery, type ListQuery, listParams } from "./query.ts";

/** Which reports a scoped endpoint reads: namespaced reports or cluster reports. */
export type ApiScope = "namespace" | "cluster";

/** Options of {@link createApiClient}. */
export interface ApiClientOptions {
  /** Absolute base URL ending in `/` (see `resolveApiBaseUrl`). */
  baseUrl: string;
  /** The fetch implementation; default the global one. */
  fetch?: typeof fetch;
  /** Called on a 401 (session expired, not logged in) before the call fails. */
  onUnauthorized?: () => void;
}

/** Every call takes an optional abort signal (the view that asked went away). */
export type Call<T> = (signal?: AbortSignal) => Promise<T>;

/** The dashboard's view of the API. */
export interface ApiClient {
  readonly baseUrl: string;
  namespaces(filter?: ApiFilterQuery): Call<string[]>;
  sources(filter?: ApiFilterQuery): Call<string[]>;
  sourceCategories(filter?: ApiFilterQuery): Call<SourceCategoryTree[]>;
  kinds(scope: ApiScope, filter?: ApiFilterQuery): Call<string[]>;
  findings(filter?: ApiFilterQuery): Call<Findings<ApiStatus>>;
  severityFindings(filter?: ApiFilterQuery): Call<Findings<ApiSeverity | "unknown">>;
  sourceStatusCounts(source: string, filter?: ApiFilterQuery): Call<ApiStatusCounts>;
  sourceSeverityCounts(source: string, filter?: ApiFilterQuery): Call<SeverityCounts>;
  namespaceStatusCounts(source: string, filter?: ApiFilterQuery): Call<NamespaceStatusCounts>;
  namespaceSeverityCounts(source: string, filter?: ApiFilterQuery): Call<NamespaceSeverityCounts>;
  clusterStatusCounts(source: string, filter?: ApiFilterQuery): Call<ApiStatusCounts>;
  resourceResults(scope: ApiScope, query: ListQuery): Call<Paginated<ResourceResult>>;
  results(scope: ApiScope, query: ListQuery): Call<Paginated<PolicyResult>>;
  policies(filter?: ApiFilterQuery): Call<Policy[]>;
  /** A Kyverno policy by the name its results carry (`name` or `namespace/name`); 404 when unknown or not watched. */
  policyDetails(policy: string): Call<PolicyDetails>;
  targets(): Call<ApiTarget[]>;
  resource(id: string): Call<Resource>;
  resourceStatusCounts(id: string, filter?: ApiFilterQuery): Call<ResourceStatusCount[]>;
  resourceSeverityCounts(id: string, filter?: ApiFilterQuery): Call<ResourceSeverityCount[]>;
  resourceSourceCategories(id: string, filter?: ApiFilterQuery): Call<SourceCategoryTree[]>;
  resourcePolicyResults(id: string, query: ListQuery): Call<Paginated<PolicyResult>>;
}

function errorMessage(status: number, body: unknown): { message: string; code?: string } {
  if (typeof body === "object" && body !== null && "message" in body) {
    const error = body as Partial<ApiError>;
    return {
      message: String(error.message),
      ...(typeof error.code === "string" ? { code: error.code } : {}),
    };
  }
  return { message: `HTTP ${status}` };
}

/** Creates the client; no request is sent until a call runs. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const base = options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`;
  const seg = encodeURIComponent;

  const get =
    <T>(path: string, query: ListQuery = {}): Call<T> =>
    async (signal) => {
      const qs = encodeQuery(listParams(query));
      const url = `${base}${path}${qs ? `?${qs}` : ""}`;
      const res = await doFetch(url, {
        headers: { accept: "application/json" },
        credentials: "same-origin",
        ...(signal ? { signal } : {}),
      });
      if (res.status === 401) options.onUnauthorized?.();
      if (!res.ok) {
        const body: unknown = await res.json().catch(() => undefined);
        const { message, code } = errorMessage(res.status, body);
        throw new ApiRequestError(res.status, message, code);
      }
      return (await res.json()) as T;
    };
  const scoped = (scope: ApiScope) => (scope === "namespace" ? "namespace-scoped" : "cluster-scoped");

  return {
    baseUrl: base,
    namespaces: (filter) => get("v2/namespaces", filter),
    sources: (filter) => get("v2/sources", filter),
    sourceCategories: (filter) => get("v2/sources/categories", filter),
    kinds: (scope, filter) => get(`v2/${scoped(scope)}/kinds`, filter),
    findings: (filter) => get("v2/findings", filter),
    severityFindings: (filter) => get("v2/severity-findings", filter),
    sourceStatusCounts: (source, filter) => get(`v2/sources/${seg(source)}/status-counts`, filter),
    sourceSeverityCounts: (source, filter) => get(`v2/sources/${seg(source)}/severity-counts`, filter),
    namespaceStatusCounts: (source, filter) =>
      get(`v2/namespace-scoped/${seg(source)}/status-counts`, filter),
    namespaceSeverityCounts: (source, filter) =>
      get(`v2/namespace-scoped/${seg(source)}/severity-counts`, filter),
    clusterStatusCounts: (source, filter) => get(`v2/cluster-scoped/${seg(source)}/status-counts`, filter),
    resourceResults: (scope, query) => get(`v2/${scoped(scope)}/resource-results`, query),
    results: (scope, query) => get(`v2/${scoped(scope)}/results`, query),
    policies: (filter) => get("v2/policies", filter),
    policyDetails: (policy) => get(`v2/policy-details/${policy.split("/").map(seg).join("/")}`),
    targets: () => get("v2/targets"),
    resource: (id) => get(`v2/resource/${seg(id)}`),
    resourceStatusCounts: (id, filter) => get(`v2/resource/${seg(id)}/status-counts`, filter),
    resourceSeverityCounts: (id, filter) => get(`v2/resource/${seg(id)}/severity-counts`, filter),
    resourceSourceCategories: (id, filter) => get(`v2/resource/${seg(id)}/source-categories`, filter),
    resourcePolicyResults: (id, query) => get(`v2/resource/${seg(id)}/results`, query),
  };
}

/**
 * The filters of a view, kept in the URL's query string so a view can be shared: the same
 * parameter names as the API (`namespaces`, `kinds`, `status`, `severities`, `categories`,
 * `sources`, `search`), repeated for several values. Pure functions; the hook is `use-filters`.
 */
import type { ApiFilterQuery, ApiSeverity, ApiStatus } from "@kyverno-ts/reporter";

/** Every status, in display order. */
export const STATUSES: readonly ApiStatus[] = ["pass", "fail", "warn", "error", "skip"];

/** Every severity, lowest first, then results without one. */
export const SEVERITIES: readonly (ApiSeverity | "unknown")[] = [
  "info",
  "low",
  "medium",
  "high",
  "critical",
  "unknown",
];

/** The filters a user can set. */
export interface Filters {
  namespaces: string[];
  kinds: string[];
  status: ApiStatus[];
  severities: Array<ApiSeverity | "unknown">;
  categories: string[];
  sources: string[];
  search: string;
}

/** A filter list's key (every key but `search`). */
export type FilterListKey = Exclude<keyof Filters, "search">;

/** The list keys, in the order the filter bar shows them. */
export const FILTER_LIST_KEYS: readonly FilterListKey[] = [
  "sources",
  "categories",
  "namespaces",
  "kinds",
  "status",
  "severities",
];

/** No filter set. */
export const EMPTY_FILTERS: Filters = {
  namespaces: [],
  kinds: [],
  status: [],
  severities: [],
  categories: [],
  sources: [],
  search: "",
};

const unique = (values: string[]) => [...new Set(values.filter((v) => v !== ""))];
const isStatus = (v: string): v is ApiStatus => (STATUSES as readonly string[]).includes(v);
const isSeverity = (v: string): v is ApiSeverity | "unknown" => (SEVERITIES as readonly string[]).includes(v);

/** Reads the filters from a query string; unknown statuses and severities are ignored. */
export function parseFilters(params: URLSearchParams): Filters {
  return {
    namespaces: unique(params.getAll("namespaces")),
    kinds: unique(params.getAll("kinds")),
    status: unique(params.getAll("status")).filter(isStatus),
    severities: unique(params.getAll("severities")).filter(isSeverity),
    categories: unique(params.getAll("categories")),
    sources: unique(params.getAll("sources")),
    search: (params.get("search") ?? "").trim(),
  };
}

/**
 * Writes `filters` into a copy of `params`: filter keys replaced, other keys kept except the
 * page numbers (`*page`), which restart at 1 when the filters change.
 */
export function writeFilters(params: URLSearchParams, filters: Filters): URLSearchParams {
  const out = new URLSearchParams();
  for (const [key, value] of params) {
    if (key === "search" || key.endsWith("page")) continue;
    if ((FILTER_LIST_KEYS as readonly string[]).includes(key)) continue;
    out.append(key, value);
  }
  for (const key of FILTER_LIST_KEYS) for (const value of filters[key]) out.append(key, value);
  if (filters.search.trim()) out.set("search", filters.search.trim());
  return out;
}

/** The query string of the filters alone (for links that carry them to another page). */
export function filterQueryString(filters: Filters): string {
  const qs = writeFilters(new URLSearchParams(), filters).toString();
  return qs ? `?${qs}` : "";
}

/** The API filter of `filters`, leaving out what is empty; `fixed` values (the page's own) win. */
export function toApiFilter(filters: Filters, fixed: ApiFilterQuery = {}): ApiFilterQuery {
  const out: ApiFilterQuery = {};
  if (filters.namespaces.length) out.namespaces = filters.namespaces;
  if (filters.kinds.length) out.kinds = filters.kinds;
  if (filters.status.length) out.status = filters.status;
  if (filters.severities.length) out.severities = filters.severities;
  if (filters.categories.length) out.categories = filters.categories;
  if (filters.sources.length) out.sources = filters.sources;
  if (filters.search) out.search = filters.search;
  return { ...out, ...fixed };
}

/** Page sizes a table offers. */
export const PAGE_SIZES = ["10", "25", "50", "100"] as const;

/** Page number and size of table `id` (`<id>page`, `<id>size` in the query string); size 5 to 100. */
export function readPage(
  params: URLSearchParams,
  id: string,
  defaultSize = 25,
): { page: number; size: number } {
  const page = Math.max(1, Number.parseInt(params.get(`${id}page`) ?? "1", 10) || 1);
  const size = Math.min(100, Math.max(5, Number.parseInt(params.get(`${id}size`) ?? "", 10) || defaultSize));
  return { page, size };
}

/** A stable key of an API query for `useQuery`. */
export function queryKey(name: string, ...parts: unknown[]): string {
  return JSON.stringify([name, ...parts]);
}

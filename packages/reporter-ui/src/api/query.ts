/**
 * Query-string encoding shared by the API client and the URL state: repeated keys for lists
 * (`namespaces=a&namespaces=b`, as the reporter expects), empty values left out.
 */
import type { ApiFilterQuery, ApiPaginationQuery } from "@kyverno-ts/reporter";

/** A value of one query parameter. */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** Encodes parameters as a query string (no leading `?`); lists become repeated keys, empties are dropped. */
export function encodeQuery(params: Readonly<Record<string, QueryValue>>): string {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === "") continue;
    if (Array.isArray(value)) {
      for (const item of value as readonly string[]) if (item !== "") out.append(key, item);
    } else {
      out.append(key, String(value));
    }
  }
  return out.toString();
}

/** The filter and pagination parameters a list endpoint takes. */
export type ListQuery = ApiFilterQuery & ApiPaginationQuery;

/** Converts API filter/pagination parameters to {@link encodeQuery}'s input. */
export function listParams(query: ListQuery): Record<string, QueryValue> {
  return {
    namespaces: query.namespaces,
    kinds: query.kinds,
    resources: query.resources,
    sources: query.sources,
    categories: query.categories,
    severities: query.severities,
    policies: query.policies,
    rules: query.rules,
    status: query.status,
    labels: query.labels,
    search: query.search,
    page: query.page,
    offset: query.offset,
    sortBy: query.sortBy,
    direction: query.direction,
  };
}

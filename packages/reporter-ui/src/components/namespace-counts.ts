/** Loads status counts per namespace summed over the sources (the filter's, or every source). */
import type { ApiFilterQuery, ApiStatusCounts } from "@kyverno-ts/reporter";
import type { ApiClient } from "../api/client.ts";
import { sumNamespaceCounts } from "./charts-data.ts";

/** Status counts per namespace for `filter`. */
export async function loadNamespaceCounts(
  api: ApiClient,
  filter: ApiFilterQuery,
  signal?: AbortSignal,
): Promise<Map<string, ApiStatusCounts>> {
  const sources = filter.sources?.length ? filter.sources : await api.sources(filter)(signal);
  const perSource = await Promise.all(
    sources.map((source) => api.namespaceStatusCounts(source, filter)(signal)),
  );
  return sumNamespaceCounts(perSource);
}

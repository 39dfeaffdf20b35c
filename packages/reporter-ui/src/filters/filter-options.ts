/** Loads the values the filter bar offers: sources, categories, namespaces and kinds. */
import { useApiClient } from "../api/api-context.ts";
import type { ApiClient } from "../api/client.ts";
import { useQuery } from "../api/use-query.ts";
import { type FilterListKey, SEVERITIES, STATUSES } from "./filter-state.ts";

/** The values of each filter list (empty while loading). */
export type FilterOptions = Record<FilterListKey, string[]>;

const sorted = (values: Iterable<string>) => [...new Set(values)].sort((a, b) => a.localeCompare(b));

async function loadOptions(
  api: ApiClient,
  signal?: AbortSignal,
): Promise<Omit<FilterOptions, "status" | "severities">> {
  const [sources, tree, namespaces, nsKinds, clusterKinds] = await Promise.all([
    api.sources()(signal),
    api.sourceCategories()(signal),
    api.namespaces()(signal),
    api.kinds("namespace")(signal),
    api.kinds("cluster")(signal),
  ]);
  return {
    sources,
    categories: sorted(tree.flatMap((source) => source.categories.map((c) => c.name))),
    namespaces,
    kinds: sorted([...nsKinds, ...clusterKinds]),
  };
}

/** The options of every filter list. */
export function useFilterOptions(): FilterOptions {
  const api = useApiClient();
  const query = useQuery("filter-options", (signal) => loadOptions(api, signal));
  return {
    sources: query.data?.sources ?? [],
    categories: query.data?.categories ?? [],
    namespaces: query.data?.namespaces ?? [],
    kinds: query.data?.kinds ?? [],
    status: [...STATUSES],
    severities: [...SEVERITIES],
  };
}

/**
 * Loads the values the filter bar offers: sources, categories, namespaces and kinds. They are not
 * needed to show a page (the selected values come from the URL), so they load when the user
 * reaches for a filter, or once the page has been idle for a moment, not in the page's first wave.
 */
import { useEffect, useState } from "react";
import { useApiClient } from "../api/api-context.ts";
import type { ApiClient } from "../api/client.ts";
import { shared } from "../api/query-cache.ts";
import { useQuery } from "../api/use-query.ts";
import { queries } from "../queries/view-queries.ts";
import { type FilterListKey, SEVERITIES, STATUSES } from "./filter-state.ts";

/** The values of each filter list (empty while loading). */
export type FilterOptions = Record<FilterListKey, string[]>;

const collator = new Intl.Collator();
const sorted = (values: Iterable<string>) => [...new Set(values)].sort(collator.compare);

async function loadOptions(
  api: ApiClient,
  signal?: AbortSignal,
): Promise<Omit<FilterOptions, "status" | "severities">> {
  const [sources, tree, namespaces, nsKinds, clusterKinds] = await Promise.all([
    shared(queries.sources(api), signal),
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

/** The options loaded last (by any page): offered at once on the next page while they reload. */
let lastLoaded: Omit<FilterOptions, "status" | "severities"> | undefined;

/**
 * The options of every filter list; nothing is requested while `enabled` is false, and until the
 * answer is there the lists are those loaded last. `loading`: requested, and no list to show yet.
 */
export function useFilterOptions(enabled: boolean): { options: FilterOptions; loading: boolean } {
  const api = useApiClient();
  const query = useQuery(
    enabled
      ? {
          key: "filter-options",
          call: async (signal) => {
            lastLoaded = await loadOptions(api, signal);
            return lastLoaded;
          },
        }
      : undefined,
  );
  const data = query.data ?? lastLoaded;
  const options = {
    sources: data?.sources ?? [],
    categories: data?.categories ?? [],
    namespaces: data?.namespaces ?? [],
    kinds: data?.kinds ?? [],
    status: [...STATUSES],
    severities: [...SEVERITIES],
  };
  return { options, loading: query.loading && data === undefined };
}

/** How long after mounting the options load anyway, when the browser is idle (ms). */
const IDLE_AFTER_MS = 1000;

/**
 * Whether the filter options are wanted yet, and `want` to ask for them now (focus or pointer on
 * the filters). Without a request they are wanted once the page has been up for a second and the
 * browser is idle, so a dropdown opened later shows them at once.
 */
export function useOptionsDemand(): [boolean, () => void] {
  const [wanted, setWanted] = useState(false);
  useEffect(() => {
    if (wanted) return;
    let idle: number | undefined;
    const timer = window.setTimeout(() => {
      if (typeof window.requestIdleCallback === "function") {
        idle = window.requestIdleCallback(() => setWanted(true), { timeout: IDLE_AFTER_MS });
      } else setWanted(true);
    }, IDLE_AFTER_MS);
    return () => {
      window.clearTimeout(timer);
      if (idle !== undefined) window.cancelIdleCallback(idle);
    };
  }, [wanted]);
  return [wanted, () => setWanted(true)];
}

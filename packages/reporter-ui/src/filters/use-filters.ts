/** The URL-backed filters of the current view, and page numbers of its paginated tables. */
import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import { type Filters, parseFilters, readPage, writeFilters } from "./filter-state.ts";

/**
 * The query string of the live URL. react-router's functional `setSearchParams` hands the updater the
 * params of the render the setter came from, so a setter captured earlier (a debounced input, a
 * memoised handler) would drop changes made since; reading the hash router's URL avoids that.
 */
function liveParams(fallback: URLSearchParams): URLSearchParams {
  if (typeof window === "undefined") return fallback;
  const hash = window.location.hash;
  const q = hash.indexOf("?");
  return new URLSearchParams(q >= 0 ? hash.slice(q + 1) : "");
}

/**
 * The filters in the URL and a setter that merges a change into the filters the URL has when it
 * runs (not those of the last render, so quick successive changes all land), restarting pagination.
 */
export function useFilters(): [Filters, (change: Partial<Filters>) => void] {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => parseFilters(params), [params]);
  const setFilters = useCallback(
    (change: Partial<Filters>) =>
      setParams((rendered) => {
        const current = liveParams(rendered);
        return writeFilters(current, { ...parseFilters(current), ...change });
      }),
    [setParams],
  );
  return [filters, setFilters];
}

/** Page number and size of one table, stored as `<id>page` and `<id>size` in the URL. */
export function usePageParam(
  id: string,
  defaultSize = 25,
): { page: number; size: number; setPage: (page: number) => void; setSize: (size: number) => void } {
  const [params, setParams] = useSearchParams();
  const { page, size } = readPage(params, id, defaultSize);
  const setPage = useCallback(
    (next: number) =>
      setParams((rendered) => {
        const out = liveParams(rendered);
        if (next <= 1) out.delete(`${id}page`);
        else out.set(`${id}page`, String(next));
        return out;
      }),
    [id, setParams],
  );
  const setSize = useCallback(
    (next: number) =>
      setParams((rendered) => {
        const out = liveParams(rendered);
        out.delete(`${id}page`);
        out.set(`${id}size`, String(next));
        return out;
      }),
    [id, setParams],
  );
  return { page, size, setPage, setSize };
}

/**
 * Runs an API call for a view and tracks its state. The call reruns when the query's key changes.
 * Identical calls of views shown together are shared (`query-cache`), and so is a call the entry
 * module preloaded for the page; a call no view waits for any more is aborted, and late answers
 * never land.
 */
import { useEffect, useState } from "react";
import { isAbortError } from "./errors.ts";
import { acquire, type QuerySpec } from "./query-cache.ts";

/** The state of a query: data of the latest finished call for its key, or its error. */
export interface QueryState<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
}

/** Runs `query` now and whenever its key changes; `undefined` waits (a dependent query). */
export function useQuery<T>(query: QuerySpec<T> | undefined): QueryState<T> {
  const [state, setState] = useState<QueryState<T> & { key?: string }>({
    data: undefined,
    error: undefined,
    loading: query !== undefined,
  });
  const key = query?.key;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key identifies the call; the closure changes every render.
  useEffect(() => {
    if (!query || key === undefined) return;
    let active = true;
    const { promise, release } = acquire(key, query.call);
    setState((s) => (s.loading && !s.error ? s : { ...s, loading: true, error: undefined }));
    promise.then(
      (data) => {
        if (active) setState({ data, error: undefined, loading: false, key });
      },
      (error: unknown) => {
        if (!active || isAbortError(error)) return;
        setState({
          data: undefined,
          error: error instanceof Error ? error : new Error(String(error)),
          loading: false,
          key,
        });
      },
    );
    return () => {
      active = false;
      release();
    };
  }, [key]);
  return { data: state.data, error: state.error, loading: state.loading };
}

/**
 * Runs an API call for a view and tracks its state. The call reruns when `key` changes (build it
 * from every argument). Identical calls of views shown together are shared (`query-cache`); a
 * call no view waits for any more is aborted, and late answers never land.
 */
import { useEffect, useState } from "react";
import type { Call } from "./client.ts";
import { isAbortError } from "./errors.ts";
import { acquire } from "./query-cache.ts";

/** The state of a query: data of the latest finished call for `key`, or its error. */
export interface QueryState<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
}

/** Runs `call` now and whenever `key` changes; `call` = undefined waits (a dependent query). */
export function useQuery<T>(key: string, call: Call<T> | undefined): QueryState<T> {
  const [state, setState] = useState<QueryState<T> & { key?: string }>({
    data: undefined,
    error: undefined,
    loading: call !== undefined,
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` identifies the call; the closure changes every render.
  useEffect(() => {
    if (!call) return;
    let active = true;
    const { promise, release } = acquire(key, call);
    setState((s) => ({ ...s, loading: true, error: undefined }));
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
  }, [key, call === undefined]);
  return { data: state.data, error: state.error, loading: state.loading };
}

/**
 * A client whose every request is tied to the controller's lifetime: once `sever()` is called, requests
 * in flight are aborted and new ones fail at once, as if the process had died. `abort()` uses it to stop
 * the controller the way SIGKILL would (no drain, no lease hand-back) so tests can prove recovery.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { ApiFailure, KubeClient, ObjectHeader } from "@kyverno-ts/kube";

/** A client and the switch that cuts it off. */
export interface SeverableClient {
  client: KubeClient;
  sever(): void;
}

const severed = (): ApiFailure => ({
  ok: false,
  status: 0,
  reason: "Aborted",
  message: "the controller was aborted",
});

/**
 * Runs `call` with a signal that aborts when the controller is severed or `signal` aborts. Not
 * `AbortSignal.any`: every call would leave a WeakRef on the long-lived lifetime signal (36k after a
 * scan of 12k resources); these listeners go when the call ends.
 */
async function tied<R>(
  lifetime: AbortSignal,
  signal: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<R>,
): Promise<R> {
  if (signal === undefined) return call(lifetime);
  const both = new AbortController();
  const abort = (): void => both.abort();
  if (signal.aborted) both.abort();
  lifetime.addEventListener("abort", abort, { once: true });
  signal.addEventListener("abort", abort, { once: true });
  try {
    return await call(both.signal);
  } finally {
    lifetime.removeEventListener("abort", abort);
    signal.removeEventListener("abort", abort);
  }
}

/** Wraps `client`; requests go through unchanged until `sever()`. */
export function severableClient(client: KubeClient): SeverableClient {
  const lifetime = new AbortController();
  const dead = (): boolean => lifetime.signal.aborted;
  const tie = <R>(signal: AbortSignal | undefined, call: (signal: AbortSignal) => Promise<R>) =>
    tied(lifetime.signal, signal, call);
  const wrapped: KubeClient = {
    async get<T extends ObjectHeader = KubeObject>(...[ref, options]: Parameters<KubeClient["get"]>) {
      return dead()
        ? severed()
        : tie(options?.signal, (signal) => client.get<T>(ref, { ...options, signal }));
    },
    async list<T extends ObjectHeader = KubeObject>(...[query]: Parameters<KubeClient["list"]>) {
      return dead() ? severed() : tie(query.signal, (signal) => client.list<T>({ ...query, signal }));
    },
    async create<T extends ObjectHeader = KubeObject>(
      object: T,
      options?: Parameters<KubeClient["create"]>[1],
    ) {
      return dead()
        ? severed()
        : tie(options?.signal, (signal) => client.create<T>(object, { ...options, signal }));
    },
    async update<T extends ObjectHeader = KubeObject>(
      object: T,
      options?: Parameters<KubeClient["update"]>[1],
    ) {
      return dead()
        ? severed()
        : tie(options?.signal, (signal) => client.update<T>(object, { ...options, signal }));
    },
    async patch<T extends ObjectHeader = KubeObject>(
      ...[ref, patch, options]: Parameters<KubeClient["patch"]>
    ) {
      return dead()
        ? severed()
        : tie(options?.signal, (signal) => client.patch<T>(ref, patch, { ...options, signal }));
    },
    async apply<T extends ObjectHeader = KubeObject>(object: T, options: Parameters<KubeClient["apply"]>[1]) {
      return dead()
        ? severed()
        : tie(options.signal, (signal) => client.apply<T>(object, { ...options, signal }));
    },
    async delete(ref, options) {
      return dead()
        ? severed()
        : tie(options?.signal, (signal) => client.delete(ref, { ...options, signal }));
    },
    async watch(query, onEvent) {
      if (dead()) return severed();
      // A watch outlives this call: its stream is stopped on sever (below) and by its own signal.
      const opened = await client.watch({ ...query, signal: query.signal ?? lifetime.signal }, onEvent);
      if (!opened.ok) return opened;
      const stop = (): void => opened.value.stop();
      if (dead()) stop();
      else {
        lifetime.signal.addEventListener("abort", stop, { once: true });
        void opened.value.done.then(() => lifetime.signal.removeEventListener("abort", stop));
      }
      return opened;
    },
    async resource(apiVersion, kind, signal) {
      return dead() ? severed() : tie(signal, (s) => client.resource(apiVersion, kind, s));
    },
    cachedKind: (apiVersion, resource) => client.cachedKind(apiVersion, resource),
    recovered: (signal) => (dead() ? Promise.resolve(false) : client.recovered(signal)),
    close: () => client.close(),
  };
  return { client: wrapped, sever: () => lifetime.abort() };
}

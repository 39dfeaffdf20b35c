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

/** Wraps `client`; requests go through unchanged until `sever()`. */
export function severableClient(client: KubeClient): SeverableClient {
  const lifetime = new AbortController();
  const tie = (signal: AbortSignal | undefined): AbortSignal =>
    signal === undefined ? lifetime.signal : AbortSignal.any([lifetime.signal, signal]);
  const dead = (): boolean => lifetime.signal.aborted;
  const wrapped: KubeClient = {
    async get<T extends ObjectHeader = KubeObject>(...[ref, options]: Parameters<KubeClient["get"]>) {
      return dead() ? severed() : client.get<T>(ref, { ...options, signal: tie(options?.signal) });
    },
    async list<T extends ObjectHeader = KubeObject>(...[query]: Parameters<KubeClient["list"]>) {
      return dead() ? severed() : client.list<T>({ ...query, signal: tie(query.signal) });
    },
    async create<T extends ObjectHeader = KubeObject>(
      object: T,
      options?: Parameters<KubeClient["create"]>[1],
    ) {
      return dead() ? severed() : client.create<T>(object, { ...options, signal: tie(options?.signal) });
    },
    async update<T extends ObjectHeader = KubeObject>(
      object: T,
      options?: Parameters<KubeClient["update"]>[1],
    ) {
      return dead() ? severed() : client.update<T>(object, { ...options, signal: tie(options?.signal) });
    },
    async patch<T extends ObjectHeader = KubeObject>(
      ...[ref, patch, options]: Parameters<KubeClient["patch"]>
    ) {
      return dead() ? severed() : client.patch<T>(ref, patch, { ...options, signal: tie(options?.signal) });
    },
    async apply<T extends ObjectHeader = KubeObject>(object: T, options: Parameters<KubeClient["apply"]>[1]) {
      return dead() ? severed() : client.apply<T>(object, { ...options, signal: tie(options.signal) });
    },
    async delete(ref, options) {
      return dead() ? severed() : client.delete(ref, { ...options, signal: tie(options?.signal) });
    },
    async watch(query, onEvent) {
      if (dead()) return severed();
      const opened = await client.watch({ ...query, signal: tie(query.signal) }, onEvent);
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
      return dead() ? severed() : client.resource(apiVersion, kind, tie(signal));
    },
    close: () => client.close(),
  };
  return { client: wrapped, sever: () => lifetime.abort() };
}

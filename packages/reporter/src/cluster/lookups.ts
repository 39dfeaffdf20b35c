/**
 * Cluster lookups the filters need, each behind a small bounded TTL cache: whether a report's scope
 * object has a controller owner (`sourceFilters[].uncontrolledOnly`), and a namespace's labels
 * (`target.*.filter.namespaces.selector`).
 */

import type { Clock } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { ControllerLookup } from "../ingest/filters.js";
import type { Logger } from "../logger.js";
import type { NamespaceLabelsLookup } from "../targets/filter/filter.js";

/** Options of the lookups. */
export interface LookupOptions {
  client: KubeClient;
  clock: Clock;
  logger: Logger;
  /** How long an answer is reused (default 5 minutes for owners, 1 minute for namespaces). */
  ttlMs?: number;
  /** Entries kept at most (default 10,000); the oldest go first. */
  maxEntries?: number;
}

interface Cached<V> {
  get(key: string, load: () => Promise<{ value: V; cache: boolean }>): Promise<V>;
}

/** A TTL cache that also coalesces concurrent loads of one key. */
function ttlCache<V>(clock: Clock, ttlMs: number, maxEntries: number): Cached<V> {
  const entries = new Map<string, { value: V; at: number }>();
  const loading = new Map<string, Promise<V>>();
  return {
    async get(key, load) {
      const hit = entries.get(key);
      if (hit !== undefined && clock.now() - hit.at < ttlMs) return hit.value;
      const pending = loading.get(key);
      if (pending !== undefined) return pending;
      const promise = load()
        .then(({ value, cache }) => {
          entries.delete(key);
          if (cache) {
            entries.set(key, { value, at: clock.now() });
            if (entries.size > maxEntries) {
              const oldest = entries.keys().next().value;
              if (oldest !== undefined) entries.delete(oldest);
            }
          }
          return value;
        })
        .finally(() => loading.delete(key));
      loading.set(key, promise);
      return promise;
    },
  };
}

interface OwnedObject {
  metadata?: { name?: string; uid?: string; ownerReferences?: { controller?: boolean }[] };
}

/**
 * The `uncontrolledOnly` lookup: GETs the scope object and answers whether it has an owner
 * reference with `controller: true`. An object that is gone, or a failed request, counts as
 * uncontrolled (the report is kept; failures are logged), and only successful answers are cached.
 */
export function createControllerLookup(options: LookupOptions): ControllerLookup {
  const cache = ttlCache<boolean>(options.clock, options.ttlMs ?? 300_000, options.maxEntries ?? 10_000);
  return (scope) =>
    cache.get(
      [scope.apiVersion, scope.kind, scope.namespace, scope.name, scope.uid].join("\u0000"),
      async () => {
        const got = await options.client.get<OwnedObject>({
          apiVersion: scope.apiVersion || "v1",
          kind: scope.kind,
          name: scope.name,
          ...(scope.namespace ? { namespace: scope.namespace } : {}),
        });
        if (!got.ok) {
          if (got.status !== 404) {
            options.logger.warn(
              {
                kind: scope.kind,
                namespace: scope.namespace,
                name: scope.name,
                status: got.status,
                reason: got.reason,
              },
              "owner lookup failed; keeping the report",
            );
          }
          return { value: false, cache: false };
        }
        const owners = got.value.metadata?.ownerReferences ?? [];
        return { value: owners.some((o) => o.controller === true), cache: true };
      },
    );
}

/** The namespace-labels lookup of target filters: GETs the Namespace; `undefined` when it cannot be read. */
export function createNamespaceLabelsLookup(options: LookupOptions): NamespaceLabelsLookup {
  const cache = ttlCache<Readonly<Record<string, string>> | undefined>(
    options.clock,
    options.ttlMs ?? 60_000,
    options.maxEntries ?? 10_000,
  );
  return (namespace) =>
    cache.get(namespace, async () => {
      const got = await options.client.get<{ metadata?: { name?: string; labels?: Record<string, string> } }>(
        {
          apiVersion: "v1",
          kind: "Namespace",
          name: namespace,
        },
      );
      if (!got.ok) {
        if (got.status !== 404) {
          options.logger.warn(
            { namespace, status: got.status, reason: got.reason },
            "namespace lookup failed",
          );
        }
        return { value: undefined, cache: got.status === 404 };
      }
      return { value: got.value.metadata?.labels ?? {}, cache: true };
    });
}

/**
 * The in-memory `SeenCache` of a single replica.
 */
import type { Clock } from "@kyverno-ts/api";
import { DEFAULT_SEEN_TTL_MS, type OpenFailure, type SeenCache } from "./types.js";

/** Options of `createMemorySeenCache`. */
export interface MemorySeenCacheOptions {
  /** Default `DEFAULT_SEEN_TTL_MS` (6 h). */
  ttlMs?: number;
}

/** Entries of one report with their expiry (epoch ms). */
type Entries<V> = Map<string, { value: V; expiresAt: number }>;

/**
 * Creates an in-memory seen cache. Use it with one replica; with several, use `createRedisSeenCache` so
 * each notification is sent once. Expired entries are dropped when their report is next touched.
 */
export function createMemorySeenCache(options: MemorySeenCacheOptions, deps: { clock: Clock }): SeenCache {
  const ttl = options.ttlMs ?? DEFAULT_SEEN_TTL_MS;
  const seen = new Map<string, Entries<true>>();
  const open = new Map<string, Entries<OpenFailure>>();

  /** The report's live entries, expired ones removed. */
  const live = <V>(store: Map<string, Entries<V>>, reportId: string, now: number): Entries<V> => {
    let entries = store.get(reportId);
    if (entries === undefined) {
      entries = new Map();
      store.set(reportId, entries);
    }
    for (const [k, e] of entries) if (e.expiresAt <= now) entries.delete(k);
    return entries;
  };

  return {
    async claim(reportId, resultIds) {
      const now = deps.clock.now();
      const entries = live(seen, reportId, now);
      const claimed = new Set<string>();
      for (const id of resultIds) {
        if (!entries.has(id)) claimed.add(id);
        entries.set(id, { value: true, expiresAt: now + ttl });
      }
      return claimed;
    },
    async trackFailures(reportId, opened, stillFailing) {
      const now = deps.clock.now();
      const entries = live(open, reportId, now);
      for (const [key, value] of opened) entries.set(key, { value, expiresAt: now + ttl });
      for (const key of stillFailing) {
        const e = entries.get(key);
        if (e !== undefined) e.expiresAt = now + ttl;
      }
      if (entries.size === 0) open.delete(reportId);
    },
    async resolve(reportId, keys) {
      const now = deps.clock.now();
      const entries = live(open, reportId, now);
      const removed = new Map<string, OpenFailure>();
      for (const key of keys) {
        const e = entries.get(key);
        if (e === undefined) continue;
        entries.delete(key);
        removed.set(key, e.value);
      }
      if (entries.size === 0) open.delete(reportId);
      return removed;
    },
    async forget(reportId) {
      seen.delete(reportId);
      open.delete(reportId);
    },
  };
}

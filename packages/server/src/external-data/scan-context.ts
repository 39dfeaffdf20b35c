/**
 * External data for context entries: `configMap`, `apiCall` (API-server paths and services) and
 * `globalReference` entries, fetched through the controller's client and cached. The reports
 * controller keeps one for its scans; the admission controller creates one per request that needs it.
 *
 * The engine evaluates synchronously and asks its `ContextLoader` for data while it runs, so loading
 * is done in rounds: a policy is evaluated with the loader answering from the cache; what it asked for
 * and the cache did not have is fetched (in parallel, each bounded by a timeout and a response size),
 * and the policy is evaluated again. Entries that depend on earlier ones (an apiCall whose path comes
 * from a ConfigMap) take one round each, up to `maxRounds`. Failures are cached like values, so a
 * missing ConfigMap is an `error` result with the reason, not a retry loop. The cache is cleared at
 * each full scan and its entries expire after `ttlMs`; it holds at most `maxEntries` answers and
 * `maxCachedBytes` of them.
 */
import { createHash } from "node:crypto";
import type { KubeObject } from "@kyverno-ts/api";
import type { ContextLoader, LoadResult } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import {
  configMapValue,
  describeRequest as describe,
  type FetchLimits,
  fail,
  fetchRequest,
  type ExternalRequest as Request,
} from "./external-fetch.js";
import type { ServiceFetch } from "./service-call.js";

/** Options of `createScanContext`. */
export interface ScanContextOptions {
  client: KubeClient;
  /** Monotonic milliseconds, for expiry. */
  monotonic: () => number;
  /** Per fetch (default 10 s). */
  timeoutMs?: number;
  /** Largest response kept, in bytes of JSON (default 2,000,000, upstream's `--maxAPICallResponseLength`). */
  maxResponseBytes?: number;
  /** How long an answer is reused between full scans (default 60 s). */
  ttlMs?: number;
  maxEntries?: number;
  /** Bytes of cached answers (default 32 MiB); the oldest go first. */
  maxCachedBytes?: number;
  /** Evaluation rounds per policy (default 4). */
  maxRounds?: number;
  /**
   * ConfigMaps already held in memory (an informer on the `cache.kyverno.io/enabled` label, as
   * upstream): answered from there without a request; others are fetched.
   */
  cachedConfigMap?: (namespace: string, name: string) => KubeObject | undefined;
  /** For `apiCall.service` entries (default: undici's `fetch`). */
  fetch?: ServiceFetch;
}

/** What `run` returns: the evaluation's value and whether it asked for data not yet fetched. */
export interface ScanContext {
  /** The loader to create the engine with (`createEngine({ contextLoader })`). */
  readonly loader: ContextLoader;
  /**
   * Runs a synchronous evaluation until every context entry it reads was answered (or `maxRounds`);
   * the loader answers from the cache only while `evaluate` runs.
   */
  evaluate<T>(evaluate: () => T, signal: AbortSignal): Promise<T>;
  /** Forgets every cached answer (each full scan starts fresh). */
  clear(): void;
}

/** The scan context `createScanContext` makes: it can also answer without a promise. */
export interface ImmediateScanContext extends ScanContext {
  /**
   * `evaluate` without a promise when its first round read no context entry that is not fetched yet
   * (most evaluations): `{ value }` then, else `{ later }`, the promise of the rounds that follow.
   * A scan evaluating every policy for every resource would otherwise wait for a promise each time.
   */
  evaluateNow<T>(evaluate: () => T, signal: AbortSignal): { value: T } | { later: Promise<T> };
}

interface Cached {
  result: LoadResult;
  at: number;
  bytes: number;
}

/** The cache key of a request: its description, plus a digest of a service call's headers and CA. */
const keyOf = (r: Request): string => {
  if (r.type !== "apiCall" || (r.call.headers === undefined && r.call.caBundle === undefined))
    return describe(r);
  const digest = createHash("sha256")
    .update(JSON.stringify([r.call.headers ?? [], r.call.caBundle ?? ""]))
    .digest("base64url");
  return `${describe(r)} ${digest}`;
};

/** Answers kept between rounds: expiring after `ttlMs`, the oldest dropped beyond the bounds. */
function createAnswerCache(bounds: {
  monotonic: () => number;
  ttlMs: number;
  maxEntries: number;
  maxCachedBytes: number;
}) {
  const { monotonic, ttlMs, maxEntries, maxCachedBytes } = bounds;
  const cache = new Map<string, Cached>();
  let cachedBytes = 0;
  const drop = (key: string): void => {
    const entry = cache.get(key);
    if (entry === undefined) return;
    cache.delete(key);
    cachedBytes -= entry.bytes;
  };
  return {
    /** The answer for `key` unless it expired. */
    get(key: string): LoadResult | undefined {
      const hit = cache.get(key);
      return hit !== undefined && monotonic() - hit.at <= ttlMs ? hit.result : undefined;
    },
    store(key: string, result: LoadResult): void {
      drop(key);
      const bytes = result.ok ? JSON.stringify(result.value).length : result.error.length;
      cache.set(key, { result, at: monotonic(), bytes });
      cachedBytes += bytes;
      for (const oldest of cache.keys()) {
        if (cache.size <= maxEntries && cachedBytes <= maxCachedBytes) break;
        drop(oldest);
      }
    },
    clear(): void {
      cache.clear();
      cachedBytes = 0;
    },
  };
}

/** Creates the loader and its cache; nothing is fetched until an evaluation asks. */
export function createScanContext(options: ScanContextOptions): ImmediateScanContext {
  const limits: FetchLimits = {
    client: options.client,
    maxBytes: options.maxResponseBytes ?? 2_000_000,
    timeoutMs: options.timeoutMs ?? 10_000,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  const maxRounds = Math.max(1, options.maxRounds ?? 4);
  const cache = createAnswerCache({
    monotonic: options.monotonic,
    ttlMs: options.ttlMs ?? 60_000,
    maxEntries: options.maxEntries ?? 1000,
    maxCachedBytes: options.maxCachedBytes ?? 32 * 2 ** 20,
  });
  /** Whether an evaluation runs, and the requests it missed (made on the first miss: most miss none). */
  let evaluating = false;
  let missed: Map<string, Request> | undefined;

  const answer = (request: Request): LoadResult => {
    if (request.type === "configMap") {
      const held = options.cachedConfigMap?.(request.namespace, request.name);
      if (held !== undefined) return configMapValue(held, describe(request), limits.maxBytes);
    }
    const key = keyOf(request);
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    if (evaluating) {
      missed ??= new Map();
      missed.set(key, request);
    }
    return fail(`${describe(request)} not loaded yet`);
  };

  const loader: ContextLoader = {
    configMap: (namespace, name) => answer({ type: "configMap", namespace, name }),
    apiCall: (call) => answer({ type: "apiCall", call }),
    globalReference: (name) => answer({ type: "globalReference", name }),
  };

  /** The requests the last round missed (undefined: none). */
  let lastMissed: Map<string, Request> | undefined;
  /** One round of an evaluation: the loader answers from the cache and notes what it missed. */
  const round = <T>(evaluate: () => T): T => {
    missed = undefined;
    evaluating = true;
    try {
      return evaluate();
    } finally {
      evaluating = false;
      lastMissed = missed;
      missed = undefined;
    }
  };
  /** Whether the `done`-th round, which missed `misses`, is the last. */
  const last = (misses: Map<string, Request> | undefined, done: number, signal: AbortSignal): boolean =>
    misses === undefined || done >= maxRounds || signal.aborted;
  /** The rounds after the `done`-th (whose value is `value`, which missed `misses`), until one is the last. */
  const rounds = async <T>(
    evaluate: () => T,
    signal: AbortSignal,
    value: T,
    misses: Map<string, Request> | undefined,
    done: number,
  ): Promise<T> => {
    let current = value;
    let missing = misses;
    for (let n = done; !last(missing, n, signal); n++) {
      const fetched = await Promise.all(
        [...(missing as Map<string, Request>)].map(
          async ([key, request]) => [key, await fetchRequest(limits, request, signal)] as const,
        ),
      );
      // Cut short (the controller stops): do not cache "aborted" as the answer.
      if (signal.aborted) return current;
      for (const [key, result] of fetched) cache.store(key, result);
      current = round(evaluate);
      missing = lastMissed;
    }
    return current;
  };

  return {
    loader,
    async evaluate(evaluate, signal) {
      const value = round(evaluate);
      return rounds(evaluate, signal, value, lastMissed, 1);
    },
    evaluateNow(evaluate, signal) {
      const value = round(evaluate);
      const misses = lastMissed;
      return last(misses, 1, signal) ? { value } : { later: rounds(evaluate, signal, value, misses, 1) };
    },
    clear: () => cache.clear(),
  };
}

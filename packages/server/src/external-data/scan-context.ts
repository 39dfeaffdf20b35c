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
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import type { ContextLoader, LoadResult } from "@kyverno-ts/engine";
import type { ApiResult, KubeClient } from "@kyverno-ts/kube";
import { kindOfResource, parseApiPath } from "./api-path.js";
import { type ServiceCall, type ServiceFetch, serviceCall } from "./service-call.js";

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

type Request =
  | { type: "configMap"; namespace: string; name: string }
  | { type: "apiCall"; call: ServiceCall & { urlPath?: string } }
  | { type: "globalReference"; name: string };

interface Cached {
  result: LoadResult;
  at: number;
  bytes: number;
}

/** How errors name a request (never with its headers, which may hold credentials). */
const describe = (r: Request): string =>
  r.type === "configMap"
    ? `configMap ${r.namespace}/${r.name}`
    : r.type === "globalReference"
      ? `globalReference ${r.name}`
      : `apiCall ${r.call.method} ${r.call.urlPath ?? r.call.url ?? ""} ${JSON.stringify(r.call.data ?? null)}`;

/** The cache key of a request: its description, plus a digest of a service call's headers and CA. */
const keyOf = (r: Request): string => {
  if (r.type !== "apiCall" || (r.call.headers === undefined && r.call.caBundle === undefined))
    return describe(r);
  const digest = createHash("sha256")
    .update(JSON.stringify([r.call.headers ?? [], r.call.caBundle ?? ""]))
    .digest("base64url");
  return `${describe(r)} ${digest}`;
};

const fail = (error: string): LoadResult => ({ ok: false, error });
const failure = (r: ApiResult<unknown> & { ok: false }): LoadResult => fail(`${r.reason}: ${r.message}`);

/** Creates the loader and its cache; nothing is fetched until an evaluation asks. */
export function createScanContext(options: ScanContextOptions): ScanContext {
  const { client, monotonic } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? 2_000_000;
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 1000;
  const maxCachedBytes = options.maxCachedBytes ?? 32 * 2 ** 20;
  const maxRounds = Math.max(1, options.maxRounds ?? 4);
  const cache = new Map<string, Cached>();
  let cachedBytes = 0;
  /** Requests the running evaluation missed; undefined outside `evaluate`. */
  let missed: Map<string, Request> | undefined;

  const drop = (key: string): void => {
    const entry = cache.get(key);
    if (entry === undefined) return;
    cache.delete(key);
    cachedBytes -= entry.bytes;
  };
  const store = (key: string, result: LoadResult): void => {
    drop(key);
    const bytes = result.ok ? JSON.stringify(result.value).length : result.error.length;
    cache.set(key, { result, at: monotonic(), bytes });
    cachedBytes += bytes;
    for (const oldest of cache.keys()) {
      if (cache.size <= maxEntries && cachedBytes <= maxCachedBytes) break;
      drop(oldest);
    }
  };
  const answer = (request: Request): LoadResult => {
    if (request.type === "configMap") {
      const held = options.cachedConfigMap?.(request.namespace, request.name);
      if (held !== undefined) return configMapValue(held, describe(request));
    }
    const key = keyOf(request);
    const hit = cache.get(key);
    if (hit !== undefined && monotonic() - hit.at <= ttlMs) return hit.result;
    missed?.set(key, request);
    return fail(`${describe(request)} not loaded yet`);
  };

  /** As upstream: the ConfigMap's data and metadata (without managed fields). */
  const configMapValue = (object: KubeObject, what: string): LoadResult => {
    const { managedFields: _managed, ...metadata } = (object.metadata ?? {}) as Record<string, JsonValue>;
    return bounded({ data: (object.data ?? {}) as JsonValue, metadata }, what);
  };

  const bounded = (value: JsonValue, what: string): LoadResult =>
    Buffer.byteLength(JSON.stringify(value)) > maxBytes
      ? fail(`${what}: response larger than ${maxBytes} bytes`)
      : { ok: true, value };

  /** Lists page by page, giving up once the items exceed the byte budget. */
  const listBounded = async (
    query: {
      apiVersion: string;
      kind: string;
      namespace?: string;
      labelSelector?: string;
      fieldSelector?: string;
    },
    what: string,
    signal: AbortSignal,
  ): Promise<LoadResult> => {
    const items: JsonValue[] = [];
    let bytes = 0;
    let token: string | undefined;
    let listMeta: { apiVersion: string; kind: string; resourceVersion: string } | undefined;
    do {
      const page = await client.list<KubeObject>({
        ...query,
        limit: 500,
        signal,
        ...(token === undefined ? {} : { continue: token }),
      });
      if (!page.ok) return failure(page);
      for (const item of page.value.items) {
        bytes += Buffer.byteLength(JSON.stringify(item));
        if (bytes > maxBytes) return fail(`${what}: response larger than ${maxBytes} bytes`);
        items.push(item as JsonValue);
      }
      listMeta ??= {
        apiVersion: page.value.apiVersion,
        kind: page.value.kind,
        resourceVersion: page.value.metadata.resourceVersion,
      };
      token = page.value.metadata.continue || undefined;
    } while (token !== undefined);
    return {
      ok: true,
      value: {
        apiVersion: listMeta?.apiVersion ?? query.apiVersion,
        kind: listMeta?.kind ?? `${query.kind}List`,
        metadata: { resourceVersion: listMeta?.resourceVersion ?? "" },
        items,
      },
    };
  };

  const fromApiServer = async (
    call: ServiceCall & { urlPath: string },
    signal: AbortSignal,
  ): Promise<LoadResult> => {
    const what = `apiCall ${call.urlPath}`;
    const path = parseApiPath(call.urlPath);
    if (typeof path === "string") return fail(path);
    const kind = await kindOfResource(client, path.apiVersion, path.resource, signal);
    if (kind === undefined)
      return fail(`${what}: the server does not serve ${path.resource} in ${path.apiVersion}`);
    const ns = path.namespace === "" ? {} : { namespace: path.namespace };
    if (call.method === "POST") {
      const body = (call.data ?? {}) as KubeObject;
      const created = await client.create<KubeObject>(
        { apiVersion: path.apiVersion, kind, ...body, metadata: { ...body.metadata, ...ns } },
        { signal },
      );
      return created.ok ? bounded(created.value as JsonValue, what) : failure(created);
    }
    if (path.name !== "") {
      const got = await client.get<KubeObject>(
        { apiVersion: path.apiVersion, kind, name: path.name, ...ns },
        { signal },
      );
      return got.ok ? bounded(got.value as JsonValue, what) : failure(got);
    }
    return listBounded(
      {
        apiVersion: path.apiVersion,
        kind,
        ...ns,
        ...(path.labelSelector === undefined ? {} : { labelSelector: path.labelSelector }),
        ...(path.fieldSelector === undefined ? {} : { fieldSelector: path.fieldSelector }),
      },
      what,
      signal,
    );
  };

  const apiCall = (call: ServiceCall & { urlPath?: string }, signal: AbortSignal): Promise<LoadResult> =>
    call.urlPath !== undefined
      ? fromApiServer({ ...call, urlPath: call.urlPath }, signal)
      : serviceCall(call, {
          maxBytes,
          signal,
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        });

  /** A GlobalContextEntry's data: the objects it tracks, or its API call's response. */
  const globalEntry = async (name: string, signal: AbortSignal): Promise<LoadResult> => {
    const got = await client.get<KubeObject>(
      { apiVersion: "kyverno.io/v2alpha1", kind: "GlobalContextEntry", name },
      { signal },
    );
    if (!got.ok) return failure(got);
    const spec = (got.value.spec ?? {}) as {
      kubernetesResource?: { group?: string; version?: string; resource?: string; namespace?: string };
      apiCall?: {
        urlPath?: string;
        method?: "GET" | "POST";
        data?: Array<{ key: string; value: JsonValue }>;
        service?: { url?: string; caBundle?: string; headers?: Array<{ key: string; value: string }> };
      };
    };
    if (spec.kubernetesResource !== undefined) {
      const { group = "", version = "v1", resource = "", namespace = "" } = spec.kubernetesResource;
      const apiVersion = group === "" ? version : `${group}/${version}`;
      const kind = await kindOfResource(client, apiVersion, resource, signal);
      if (kind === undefined) return fail(`the server does not serve ${resource} in ${apiVersion}`);
      const listed = await listBounded(
        { apiVersion, kind, ...(namespace === "" ? {} : { namespace }) },
        `globalReference ${name}`,
        signal,
      );
      // Upstream hands policies the objects themselves, as an array.
      return listed.ok ? { ok: true, value: (listed.value as { items: JsonValue[] }).items } : listed;
    }
    const call = spec.apiCall;
    if (call === undefined)
      return fail(`GlobalContextEntry ${name} has neither kubernetesResource nor apiCall`);
    const data =
      call.data === undefined ? undefined : Object.fromEntries(call.data.map((d) => [d.key, d.value]));
    return apiCall(
      {
        method: call.method ?? "GET",
        ...(call.urlPath === undefined ? { url: call.service?.url ?? "" } : { urlPath: call.urlPath }),
        ...(data === undefined ? {} : { data }),
        ...(call.service?.headers ? { headers: call.service.headers } : {}),
        ...(call.service?.caBundle ? { caBundle: call.service.caBundle } : {}),
      },
      signal,
    );
  };

  const load = async (request: Request, signal: AbortSignal): Promise<LoadResult> => {
    if (request.type === "configMap") {
      const got = await client.get<KubeObject>(
        { apiVersion: "v1", kind: "ConfigMap", namespace: request.namespace, name: request.name },
        { signal },
      );
      return got.ok ? configMapValue(got.value, describe(request)) : failure(got);
    }
    if (request.type === "apiCall") return apiCall(request.call, signal);
    return globalEntry(request.name, signal);
  };

  /** One fetch, cut at `timeoutMs` (listeners, not `AbortSignal.any`, so nothing stays on `parent`). */
  const fetchOne = async (request: Request, parent: AbortSignal): Promise<LoadResult> => {
    const limit = new AbortController();
    const abort = (): void => limit.abort();
    const timer = setTimeout(abort, timeoutMs);
    parent.addEventListener("abort", abort, { once: true });
    const timedOut = () => limit.signal.aborted && !parent.aborted;
    try {
      const result = await load(request, limit.signal);
      return !result.ok && timedOut()
        ? fail(`${describe(request)}: timed out after ${timeoutMs} ms`)
        : result;
    } catch (error) {
      return fail(timedOut() ? `${describe(request)}: timed out after ${timeoutMs} ms` : String(error));
    } finally {
      clearTimeout(timer);
      parent.removeEventListener("abort", abort);
    }
  };

  const loader: ContextLoader = {
    configMap: (namespace, name) => answer({ type: "configMap", namespace, name }),
    apiCall: (call) => answer({ type: "apiCall", call }),
    globalReference: (name) => answer({ type: "globalReference", name }),
  };

  return {
    loader,
    async evaluate(evaluate, signal) {
      for (let round = 1; ; round++) {
        const misses = new Map<string, Request>();
        missed = misses;
        let value: ReturnType<typeof evaluate>;
        try {
          value = evaluate();
        } finally {
          missed = undefined;
        }
        if (misses.size === 0 || round >= maxRounds || signal.aborted) return value;
        const fetched = await Promise.all(
          [...misses].map(async ([key, request]) => [key, await fetchOne(request, signal)] as const),
        );
        // Cut short (the controller stops): do not cache "aborted" as the answer.
        if (signal.aborted) return value;
        for (const [key, result] of fetched) store(key, result);
      }
    },
    clear() {
      cache.clear();
      cachedBytes = 0;
    },
  };
}

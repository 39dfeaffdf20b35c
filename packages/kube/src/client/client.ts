/**
 * `createKubeClient`: get / list / create / update / patch / apply / delete / watch for any apiVersion
 * and kind, through one shared token bucket, reporting each request to `onQuery`. API errors come back
 * as `ApiFailure` values; nothing here throws once the client is created.
 */
import { createRequire } from "node:module";
import type { KubeConfig } from "@kubernetes/client-node";
import { type Clock, type KubeObject, systemClock } from "@kyverno-ts/api";
import { createTokenBucket } from "../ratelimit/token-bucket.js";
import { createDiscovery, groupVersionPath } from "./discovery.js";
import { clientFailure } from "./failure.js";
import { createRecoveryProbe } from "./recovery.js";
import { createTransport, type HttpRequest, type Transport } from "./transport.js";
import type {
  ApiFailure,
  ApiResourceInfo,
  ApiResult,
  DeleteOptions,
  ListQuery,
  ObjectHeader,
  ObjectList,
  ObjectRef,
  Patch,
  QueryEvent,
  QueryOperation,
  WatchEnd,
  WatchEvent,
  WatchQuery,
  WatchStream,
  WriteOptions,
} from "./types.js";
import { decodeWatchLine } from "./watch.js";

/** Where the credentials come from (first match wins; none: `KUBECONFIG`, `~/.kube/config`, then in-cluster). */
export interface KubeClientOptions {
  /** An already loaded config, or the YAML of one. */
  kubeconfig?: KubeConfig | string;
  /** A kubeconfig file. */
  kubeconfigPath?: string;
  /** The service account of the Pod (`KUBERNETES_SERVICE_HOST`, the mounted token and CA). */
  inCluster?: boolean;
  /** A context of the kubeconfig other than the current one. */
  context?: string;
  /** Sustained requests per second for the whole client (default 300, as Kyverno's `--clientRateLimitQPS`; 0: unlimited). */
  qps?: number;
  /** Requests allowed at once above `qps` (default 300, as Kyverno's `--clientRateLimitBurst`). */
  burst?: number;
  /** The `client_type` label of `onQuery` events (default `dynamic`). */
  clientType?: string;
  /** Per-request timeout in ms (default 30000). */
  timeoutMs?: number;
  /** Called after every API request (not discovery), for `kyverno_client_queries_total`. */
  onQuery?: (event: QueryEvent) => void;
  userAgent?: string;
  /** For the rate limiter. */
  clock?: Clock;
  /** How often `recovered()` asks the API server whether it answers again (default 1000 ms). */
  recoveryProbeMs?: number;
}

/** A typed client for any kind; create with `createKubeClient`. Share one per process. */
export interface KubeClient {
  /** Reads one object (404 `NotFound` when it does not exist). */
  get<T extends ObjectHeader = KubeObject>(
    ref: ObjectRef,
    options?: { signal?: AbortSignal },
  ): Promise<ApiResult<T>>;
  /** Lists objects; items get `apiVersion`/`kind` filled in. Prefer an informer for repeated reads. */
  list<T extends ObjectHeader = KubeObject>(query: ListQuery): Promise<ApiResult<ObjectList<T>>>;
  /** Creates `object` (409 `AlreadyExists` when the name is taken). */
  create<T extends ObjectHeader = KubeObject>(object: T, options?: WriteOptions): Promise<ApiResult<T>>;
  /** Replaces `object`; with `metadata.resourceVersion` set, 409 `Conflict` when it is stale. */
  update<T extends ObjectHeader = KubeObject>(object: T, options?: WriteOptions): Promise<ApiResult<T>>;
  /** Patches one object with a merge, strategic merge or JSON patch. */
  patch<T extends ObjectHeader = KubeObject>(
    ref: ObjectRef,
    patch: Patch,
    options?: WriteOptions,
  ): Promise<ApiResult<T>>;
  /** Server-side apply of `object` as `fieldManager` (409 `Conflict` on field conflicts unless `force`). */
  apply<T extends ObjectHeader = KubeObject>(
    object: T,
    options: WriteOptions & { fieldManager: string; force?: boolean },
  ): Promise<ApiResult<T>>;
  /** Deletes one object; the value is the object (finalizers pending) or the server's `Status`. */
  delete(ref: ObjectRef, options?: DeleteOptions): Promise<ApiResult<KubeObject>>;
  /**
   * Opens a watch; resolves once the server accepted it. Use `createInformer` instead unless you handle
   * resumption and 410 relists yourself.
   */
  watch<T extends ObjectHeader = KubeObject>(
    query: WatchQuery,
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<ApiResult<WatchStream>>;
  /** How the server serves a kind (discovery, cached). */
  resource(apiVersion: string, kind: string, signal?: AbortSignal): Promise<ApiResult<ApiResourceInfo>>;
  /** The kind of a resource (plural) of `apiVersion`, if its group-version was already discovered. */
  cachedKind(apiVersion: string, resource: string): string | undefined;
  /**
   * Resolves `true` once the API server answers again (a GET of `/version` gets a response), so
   * callers waiting out a backoff after a connection failure retry at once; `false` if `signal`
   * aborts first. One prober serves every waiter of the client.
   */
  recovered(signal?: AbortSignal): Promise<boolean>;
  /** Closes idle connections; open watches are not affected. */
  close(): void;
}

const APPLY_PATCH = "application/apply-patch+yaml";
const PATCH_TYPES: Readonly<Record<Patch["type"], string>> = {
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  json: "application/json-patch+json",
};

/** How long one reachability probe may take. */
const PROBE_TIMEOUT_MS = 2000;

/** Silence after which a watch is presumed dead: its server-side timeout plus as much again, at most 30 s more. */
function idleLimit(timeoutSeconds: number): number {
  const ms = timeoutSeconds * 1000;
  return ms + Math.min(30000, ms);
}

/**
 * `@kubernetes/client-node`, loaded on the first client: its index pulls in every generated API model
 * (~80 MiB of heap), which a process that never talks to a cluster (standalone admission, the CLI)
 * should not pay for. Only `KubeConfig` is used, for credentials.
 */
function clientNode(): { KubeConfig: new () => KubeConfig } {
  return createRequire(import.meta.url)("@kubernetes/client-node") as { KubeConfig: new () => KubeConfig };
}

function loadConfig(options: KubeClientOptions): KubeConfig {
  const { KubeConfig: Config } = clientNode();
  if (options.kubeconfig instanceof Config) return options.kubeconfig;
  const kc = new Config();
  if (options.kubeconfig !== undefined) kc.loadFromString(options.kubeconfig);
  else if (options.kubeconfigPath !== undefined) kc.loadFromFile(options.kubeconfigPath);
  else if (options.inCluster === true) kc.loadFromCluster();
  else kc.loadFromDefault();
  if (options.context !== undefined) kc.setCurrentContext(options.context);
  return kc;
}

/**
 * Creates a client from a kubeconfig, a kubeconfig file or the in-cluster service account. Throws only
 * for an unusable configuration (unreadable file, no current cluster); every request failure is an
 * `ApiFailure` value. Share one client per process so the QPS limit holds for all its users.
 */
export function createKubeClient(options: KubeClientOptions = {}): KubeClient {
  const transport = createTransport(loadConfig(options), options.userAgent ?? "kyverno-ts");
  return clientOver(transport, options);
}

/** The client over a transport (separate for tests). */
export function clientOver(transport: Transport, options: KubeClientOptions = {}): KubeClient {
  const clock = options.clock ?? systemClock;
  const bucket = createTokenBucket({ qps: options.qps ?? 300, burst: options.burst ?? 300, clock });
  const timeoutMs = options.timeoutMs ?? 30000;
  const clientType = options.clientType ?? "dynamic";

  const limited = async <T>(
    req: HttpRequest,
    run: (req: HttpRequest) => Promise<ApiResult<T>>,
  ): Promise<ApiResult<T>> => {
    if (!(await bucket.take(req.signal))) return clientFailure(0, "Aborted", "request aborted");
    return run(req);
  };

  const discovery = createDiscovery((path, signal) => {
    const req: HttpRequest = { method: "GET", path, timeoutMs };
    if (signal !== undefined) req.signal = signal;
    return limited(req, (r) => transport.request(r));
  });

  const recovery = createRecoveryProbe({
    probe: async () => {
      const answer = await transport.request({
        method: "GET",
        path: "/version",
        timeoutMs: PROBE_TIMEOUT_MS,
      });
      return answer.status !== 0;
    },
    clock,
    intervalMs: options.recoveryProbeMs ?? 1000,
  });

  const report = (
    operation: QueryOperation,
    kind: string,
    namespace: string,
    status: number,
    start: number,
  ) =>
    options.onQuery?.({
      operation,
      clientType,
      kind,
      namespace,
      status,
      durationMs: clock.now() - start,
    });

  interface Target {
    info: ApiResourceInfo;
    path: string;
    namespace: string;
  }

  /** Resolves the URL of a collection (no name) or of one object (and subresource). */
  const target = async (
    ref: { apiVersion?: string; kind?: string; namespace?: string; name?: string },
    scope: "collection" | "object" | "query",
    subresource?: string,
    signal?: AbortSignal,
  ): Promise<Target | ApiFailure> => {
    if (ref.apiVersion === undefined || ref.apiVersion === "" || ref.kind === undefined || ref.kind === "")
      return clientFailure(0, "InvalidRequest", "apiVersion and kind are required");
    const resolved = await discovery.resource(ref.apiVersion, ref.kind, signal);
    if (!resolved.ok) return resolved;
    const info = resolved.value;
    const namespace = info.namespaced ? (ref.namespace ?? "") : "";
    if (info.namespaced && namespace === "" && scope !== "query")
      return clientFailure(0, "InvalidRequest", `${ref.kind} is namespaced: a namespace is required`);
    let path = groupVersionPath(ref.apiVersion);
    if (namespace !== "") path += `/namespaces/${encodeURIComponent(namespace)}`;
    path += `/${info.name}`;
    if (scope === "object") {
      if (ref.name === undefined || ref.name === "")
        return clientFailure(0, "InvalidRequest", "metadata.name is required");
      path += `/${encodeURIComponent(ref.name)}`;
      if (subresource !== undefined) path += `/${encodeURIComponent(subresource)}`;
    }
    return { info, path, namespace };
  };

  /** Sends one request to a resolved target and reports it. */
  const call = async <T>(
    operation: QueryOperation,
    kind: string,
    resolved: Target | ApiFailure,
    req: Omit<HttpRequest, "path" | "timeoutMs">,
  ): Promise<ApiResult<T>> => {
    if ("ok" in resolved) return resolved;
    const start = clock.now();
    const result = await limited({ ...req, path: resolved.path, timeoutMs }, (r) => transport.request(r));
    report(operation, kind, resolved.namespace, result.status, start);
    return result as ApiResult<T>;
  };

  const writeQuery = (options: WriteOptions | undefined, extra?: Record<string, string>): URLSearchParams => {
    const query = new URLSearchParams(extra);
    if (options?.dryRun === true) query.set("dryRun", "All");
    if (options?.fieldManager !== undefined) query.set("fieldManager", options.fieldManager);
    return query;
  };

  const refOf = (object: ObjectHeader): ObjectRef => {
    const ref: ObjectRef = {
      apiVersion: object.apiVersion ?? "",
      kind: object.kind ?? "",
      name: object.metadata?.name ?? "",
    };
    if (object.metadata?.namespace !== undefined) ref.namespace = object.metadata.namespace;
    return ref;
  };

  const withSignal = <R extends object>(req: R, signal: AbortSignal | undefined): R =>
    signal === undefined ? req : { ...req, signal };

  const selectors = (query: ListQuery | WatchQuery, params: URLSearchParams): URLSearchParams => {
    if (query.labelSelector !== undefined && query.labelSelector !== "")
      params.set("labelSelector", query.labelSelector);
    if (query.fieldSelector !== undefined && query.fieldSelector !== "")
      params.set("fieldSelector", query.fieldSelector);
    return params;
  };

  return {
    async get(ref, opts) {
      const resolved = await target(ref, "object", undefined, opts?.signal);
      return call("get", ref.kind, resolved, withSignal({ method: "GET" }, opts?.signal));
    },

    async list<T extends ObjectHeader>(query: ListQuery): Promise<ApiResult<ObjectList<T>>> {
      const resolved = await target(query, "query", undefined, query.signal);
      const params = selectors(query, new URLSearchParams());
      if (query.limit !== undefined) params.set("limit", String(query.limit));
      if (query.continue !== undefined) params.set("continue", query.continue);
      if (query.resourceVersion !== undefined) params.set("resourceVersion", query.resourceVersion);
      if (query.resourceVersionMatch !== undefined)
        params.set("resourceVersionMatch", query.resourceVersionMatch);
      const result = await call<ObjectList<T>>(
        "list",
        query.kind,
        resolved,
        withSignal({ method: "GET", query: params }, query.signal),
      );
      if (!result.ok) return result;
      const list = result.value;
      if (!Array.isArray(list?.items))
        return clientFailure(result.status, "BadResponse", `list of ${query.kind}: no items in the response`);
      list.metadata ??= { resourceVersion: "" };
      for (const item of list.items) {
        item.apiVersion ??= query.apiVersion;
        item.kind ??= query.kind;
      }
      return result;
    },

    async create(object, opts) {
      const resolved = await target(refOf(object), "collection", undefined, opts?.signal);
      const req = { method: "POST" as const, query: writeQuery(opts), body: JSON.stringify(object) };
      return call("create", object.kind ?? "", resolved, withSignal(req, opts?.signal));
    },

    async update(object, opts) {
      const resolved = await target(refOf(object), "object", opts?.subresource, opts?.signal);
      const req = { method: "PUT" as const, query: writeQuery(opts), body: JSON.stringify(object) };
      const operation = opts?.subresource === "status" ? "update_status" : "update";
      return call(operation, object.kind ?? "", resolved, withSignal(req, opts?.signal));
    },

    async patch(ref, patch, opts) {
      const resolved = await target(ref, "object", opts?.subresource, opts?.signal);
      const req = {
        method: "PATCH" as const,
        query: writeQuery(opts),
        body: JSON.stringify(patch.patch),
        contentType: PATCH_TYPES[patch.type],
      };
      return call("patch", ref.kind, resolved, withSignal(req, opts?.signal));
    },

    async apply(object, opts) {
      const resolved = await target(refOf(object), "object", opts.subresource, opts.signal);
      const query = writeQuery(opts, opts.force === true ? { force: "true" } : undefined);
      const req = { method: "PATCH" as const, query, body: JSON.stringify(object), contentType: APPLY_PATCH };
      return call("apply", object.kind ?? "", resolved, withSignal(req, opts.signal));
    },

    async delete(ref, opts) {
      const resolved = await target(ref, "object", undefined, opts?.signal);
      const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
      if (opts?.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
      if (opts?.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
      if (opts?.preconditions !== undefined) body.preconditions = opts.preconditions;
      if (opts?.dryRun === true) body.dryRun = ["All"];
      const req = { method: "DELETE" as const, query: writeQuery(opts), body: JSON.stringify(body) };
      return call("delete", ref.kind, resolved, withSignal(req, opts?.signal));
    },

    async watch<T extends ObjectHeader>(
      query: WatchQuery,
      onEvent: (event: WatchEvent<T>) => void,
    ): Promise<ApiResult<WatchStream>> {
      const resolved = await target(query, "query", undefined, query.signal);
      if ("ok" in resolved) return resolved;
      const params = selectors(query, new URLSearchParams({ watch: "true" }));
      if (query.resourceVersion !== undefined) params.set("resourceVersion", query.resourceVersion);
      if (query.allowWatchBookmarks !== false) params.set("allowWatchBookmarks", "true");
      const timeoutSeconds = query.timeoutSeconds ?? 300;
      params.set("timeoutSeconds", String(timeoutSeconds));
      const req = withSignal(
        {
          method: "GET" as const,
          path: resolved.path,
          query: params,
          timeoutMs: idleLimit(timeoutSeconds),
        },
        query.signal,
      );
      let finish: (end: WatchEnd) => void = () => undefined;
      const done = new Promise<WatchEnd>((resolve) => {
        finish = resolve;
      });
      const start = clock.now();
      const opened = await limited(req, (r) =>
        transport.stream(r, {
          line(text) {
            const event = decodeWatchLine<T>(text);
            if ("ok" in event) return event;
            try {
              onEvent(event);
            } catch (error) {
              const message = error instanceof Error ? error.message : String(error);
              return clientFailure(0, "HandlerError", `watch event handler threw: ${message}`);
            }
            return undefined;
          },
          end: (end) => finish(end),
        }),
      );
      report("watch", query.kind, resolved.namespace, opened.status, start);
      if (!opened.ok) return opened;
      return { ok: true, status: opened.status, value: { done, stop: opened.value } };
    },

    resource: (apiVersion, kind, signal) => discovery.resource(apiVersion, kind, signal),
    cachedKind: (apiVersion, resource) => discovery.cachedKind(apiVersion, resource),
    recovered: (signal) => recovery.wait(signal),

    close: () => transport.close(),
  };
}

/**
 * `createKubeClient`: get / list / create / update / patch / apply / delete / watch for any apiVersion
 * and kind, through one shared token bucket, reporting each request to `onQuery`. API errors come back
 * as `ApiFailure` values; nothing here throws once the client is created. Credentials come from
 * `credentials.ts`, which reads kubeconfigs itself and loads `@kubernetes/client-node` only for what it
 * does not handle (exec and auth-provider plugins, proxies, ...).
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { type Clock, type KubeObject, systemClock } from "@kyverno-ts/api";
import { createTokenBucket } from "../ratelimit/token-bucket.js";
import { loadCredentials } from "./credentials.js";
import { clientFailure } from "./failure.js";
import { createRecoveryProbe } from "./recovery.js";
import { createRequestCore } from "./request-core.js";
import { deleteBody, listParams, refOf, withSignal, writeQuery } from "./request-params.js";
import { createTransport, type Transport } from "./transport.js";
import type {
  ApiResourceInfo,
  ApiResult,
  DeleteOptions,
  ListQuery,
  ObjectHeader,
  ObjectList,
  ObjectRef,
  Patch,
  QueryEvent,
  WatchEvent,
  WatchQuery,
  WatchStream,
  WriteOptions,
} from "./types.js";

/**
 * Where the credentials come from (first match wins; none: `KUBECONFIG`, `~/.kube/config`, then
 * in-cluster). Kubeconfigs are read without `@kubernetes/client-node` unless the chosen cluster or user
 * needs it (exec, auth-provider, proxy-url, ...: see `credentials.ts`) or a `KubeConfig` is passed.
 */
export interface KubeClientOptions {
  /** An already loaded config (used through client-node), or the YAML of one. */
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
  /** For the rate limiter and the age of a token read from a file. */
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
  create<T extends ObjectHeader = KubeObject>(
    object: T,
    options: WriteOptions & { decode: "header" },
  ): Promise<ApiResult<ObjectHeader>>;
  create<T extends ObjectHeader = KubeObject>(object: T, options?: WriteOptions): Promise<ApiResult<T>>;
  /** Replaces `object`; with `metadata.resourceVersion` set, 409 `Conflict` when it is stale. */
  update<T extends ObjectHeader = KubeObject>(
    object: T,
    options: WriteOptions & { decode: "header" },
  ): Promise<ApiResult<ObjectHeader>>;
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

/** `req` decoding only the answer's header when the write options ask for it. */
const decodeOf = <R extends object>(req: R, opts: WriteOptions | undefined): R =>
  opts?.decode === "header" ? { ...req, decode: "header" as const } : req;

/** How long one reachability probe may take. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * Creates a client from a kubeconfig, a kubeconfig file or the in-cluster service account. Throws only
 * for an unusable configuration (unreadable file, no current cluster); every request failure is an
 * `ApiFailure` value. Share one client per process so the QPS limit holds for all its users.
 */
export function createKubeClient(options: KubeClientOptions = {}): KubeClient {
  const transport = createTransport(loadCredentials(options), options.userAgent ?? "kyverno-ts");
  return clientOver(transport, options);
}

/** The client over a transport (separate for tests). */
export function clientOver(transport: Transport, options: KubeClientOptions = {}): KubeClient {
  const clock = options.clock ?? systemClock;
  const core = createRequestCore({
    transport,
    bucket: createTokenBucket({ qps: options.qps ?? 300, burst: options.burst ?? 300, clock }),
    clock,
    timeoutMs: options.timeoutMs ?? 30000,
    clientType: options.clientType ?? "dynamic",
    ...(options.onQuery ? { onQuery: options.onQuery } : {}),
  });
  const { target, call, discovery } = core;

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

  return {
    async get(ref, opts) {
      const resolved = await target(ref, "object", undefined, opts?.signal);
      return call("get", ref.kind, resolved, withSignal({ method: "GET" }, opts?.signal));
    },

    async list<T extends ObjectHeader>(query: ListQuery): Promise<ApiResult<ObjectList<T>>> {
      const resolved = await target(query, "query", undefined, query.signal);
      const req = withSignal({ method: "GET" as const, query: listParams(query) }, query.signal);
      const result = await call<ObjectList<T>>("list", query.kind, resolved, req);
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

    async create<T extends ObjectHeader>(object: T, opts?: WriteOptions): Promise<ApiResult<T>> {
      const resolved = await target(refOf(object), "collection", undefined, opts?.signal);
      const req = { method: "POST" as const, query: writeQuery(opts), body: JSON.stringify(object) };
      return call("create", object.kind ?? "", resolved, withSignal(decodeOf(req, opts), opts?.signal));
    },

    async update<T extends ObjectHeader>(object: T, opts?: WriteOptions): Promise<ApiResult<T>> {
      const resolved = await target(refOf(object), "object", opts?.subresource, opts?.signal);
      const req = { method: "PUT" as const, query: writeQuery(opts), body: JSON.stringify(object) };
      const operation = opts?.subresource === "status" ? "update_status" : "update";
      return call(operation, object.kind ?? "", resolved, withSignal(decodeOf(req, opts), opts?.signal));
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
      const req = { method: "DELETE" as const, query: writeQuery(opts), body: deleteBody(opts) };
      return call("delete", ref.kind, resolved, withSignal(req, opts?.signal));
    },

    watch: <T extends ObjectHeader>(query: WatchQuery, onEvent: (event: WatchEvent<T>) => void) =>
      core.watch<T>(query, onEvent),
    resource: (apiVersion, kind, signal) => discovery.resource(apiVersion, kind, signal),
    cachedKind: (apiVersion, resource) => discovery.cachedKind(apiVersion, resource),
    recovered: (signal) => recovery.wait(signal),

    close: () => transport.close(),
  };
}

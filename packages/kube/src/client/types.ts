/** The wire-level types of the client: references, queries, patches, results and the query hook. */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** Identifies one object: `apiVersion` + `kind` select the resource, `namespace` is omitted for cluster scope. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** The `details` of a Kubernetes `Status`. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Array<{ reason?: string; message?: string; field?: string }>;
  retryAfterSeconds?: number;
}

/**
 * A request that did not succeed, as a value. `status` is the HTTP status (0 when no response arrived);
 * `reason` is the `Status.reason` of the API server (`NotFound`, `AlreadyExists`, `Conflict`, `Invalid`,
 * `Forbidden`, `Expired`, `Gone`, `TooManyRequests`, …) or, for failures on this side, one of
 * `UnknownKind` (status 404: the server does not serve that apiVersion/kind), `Unreachable` (no
 * connection, or it was lost), `Timeout`, `Aborted` (the caller's signal), `InvalidRequest` (e.g. no
 * namespace for a namespaced kind), `BadResponse` (not JSON, not a watch event), `ConfigError`
 * (credentials could not be obtained) and `HandlerError` (a watch event handler threw). Tell failures
 * apart by `status` and `reason`, never by `message`.
 */
export interface ApiFailure {
  ok: false;
  status: number;
  reason: string;
  message: string;
  details?: StatusDetails;
}

/** A successful response: `status` is the HTTP status, `value` the decoded body. */
export interface ApiSuccess<T> {
  ok: true;
  status: number;
  value: T;
  /** The texts of the response's `Warning` headers (admission webhooks' warnings, deprecations), as kubectl prints them. */
  warnings?: string[];
}

/** The outcome of every client call: API errors are returned, never thrown. */
export type ApiResult<T> = ApiSuccess<T> | ApiFailure;

/** A list response; every item carries `apiVersion` and `kind` (filled in when the server omits them). */
export interface ObjectList<T> {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** What to list or watch: a resource, optionally one namespace, and selectors. */
export interface ResourceQuery {
  apiVersion: string;
  kind: string;
  /** Omit (or leave empty) for all namespaces, and for cluster-scoped kinds. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  signal?: AbortSignal;
}

/** A `list` call: one page when `limit` is set (follow `metadata.continue`), everything otherwise. */
export interface ListQuery extends ResourceQuery {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
}

/** A `watch` call; use an informer unless you need the raw event stream. */
export interface WatchQuery extends ResourceQuery {
  /** Start after this version; omit to get the current objects as ADDED events first. */
  resourceVersion?: string;
  /** Ask for BOOKMARK events (default true). */
  allowWatchBookmarks?: boolean;
  /**
   * Server-side timeout of the watch (default 300). The client also gives up after this much silence
   * plus as much again (at most 30 s more), in case the connection died without a reset.
   */
  timeoutSeconds?: number;
}

/** One event of a watch stream; `ERROR` carries the Status as a failure (410 `Expired`: relist). */
export type WatchEvent<T> =
  | { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T }
  | { type: "ERROR"; failure: ApiFailure };

/** Why a watch stream ended: the server closed it, `stop()` was called, or it failed (connection lost, bad data). */
export type WatchEnd =
  | { reason: "closed" }
  | { reason: "stopped" }
  | { reason: "failed"; failure: ApiFailure };

/** An open watch; events go to the handler given to `watch`. */
export interface WatchStream {
  /** Resolves once, when the stream ends. */
  done: Promise<WatchEnd>;
  /** Closes the connection; `done` resolves with `stopped`. */
  stop(): void;
}

/** One JSON Patch (RFC 6902) operation. */
export interface JsonPatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: JsonValue;
  from?: string;
}

/** A patch body by type: JSON merge patch, strategic merge patch (built-in kinds only), or JSON Patch. */
export type Patch =
  | { type: "merge"; patch: JsonObject }
  | { type: "strategic"; patch: JsonObject }
  | { type: "json"; patch: JsonPatchOperation[] };

/** Options of the write calls. */
export interface WriteOptions {
  /** Run admission and validation without persisting (`dryRun=All`). */
  dryRun?: boolean;
  fieldManager?: string;
  /** Write a subresource, e.g. `status`. */
  subresource?: string;
  signal?: AbortSignal;
  /**
   * `header`: of a successful answer only `apiVersion`, `kind` and `metadata` are decoded (the rest of
   * the object is not parsed), for writers that keep what they sent and need only the server's
   * metadata (resourceVersion, uid). Honoured by `create` and `update` (default `object`).
   */
  decode?: "object" | "header";
}

/** Options of `delete`. */
export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid / resourceVersion (409 `Conflict` otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
  signal?: AbortSignal;
}

/** The values of the `operation` label of `kyverno_client_queries_total`. */
export type QueryOperation =
  | "get"
  | "list"
  | "watch"
  | "create"
  | "update"
  | "update_status"
  | "patch"
  | "delete"
  | "apply";

/** Passed to `onQuery` once per API request (after it completes), for `kyverno_client_queries_total`. */
export interface QueryEvent {
  operation: QueryOperation;
  /** `client_type` label: the `clientType` option of the client. */
  clientType: string;
  /** `resource_kind` label. */
  kind: string;
  /** `resource_namespace` label: empty for cluster-scoped or all-namespace requests. */
  namespace: string;
  /** HTTP status, or 0 when no response arrived. */
  status: number;
  durationMs: number;
}

/** How the server serves a kind (from discovery). */
export interface ApiResourceInfo {
  apiVersion: string;
  kind: string;
  /** The plural resource name used in URLs. */
  name: string;
  namespaced: boolean;
  verbs: string[];
}

/** The least an object must have to be read or written: typed objects and `KubeObject` both fit. */
export interface ObjectHeader {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

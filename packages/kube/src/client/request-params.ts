/** The query strings and bodies of the client's requests, built from its options; pure. */
import type { DeleteOptions, ListQuery, ObjectHeader, ObjectRef, WatchQuery, WriteOptions } from "./types.js";

/** `dryRun` and `fieldManager` of a write (and `extra`, as `force` of an apply). */
export function writeQuery(
  options: WriteOptions | undefined,
  extra?: Record<string, string>,
): URLSearchParams {
  const query = new URLSearchParams(extra);
  if (options?.dryRun === true) query.set("dryRun", "All");
  if (options?.fieldManager !== undefined) query.set("fieldManager", options.fieldManager);
  return query;
}

/** The reference of an object (its apiVersion, kind, name and namespace). */
export function refOf(object: ObjectHeader): ObjectRef {
  const ref: ObjectRef = {
    apiVersion: object.apiVersion ?? "",
    kind: object.kind ?? "",
    name: object.metadata?.name ?? "",
  };
  if (object.metadata?.namespace !== undefined) ref.namespace = object.metadata.namespace;
  return ref;
}

/** `req` with `signal` when there is one. */
export function withSignal<R extends object>(req: R, signal: AbortSignal | undefined): R {
  return signal === undefined ? req : { ...req, signal };
}

/** Adds a query's label and field selectors to `params`. */
function selectors(query: ListQuery | WatchQuery, params: URLSearchParams): URLSearchParams {
  if (query.labelSelector !== undefined && query.labelSelector !== "")
    params.set("labelSelector", query.labelSelector);
  if (query.fieldSelector !== undefined && query.fieldSelector !== "")
    params.set("fieldSelector", query.fieldSelector);
  return params;
}

/** A list's query string: selectors, paging and resourceVersion. */
export function listParams(query: ListQuery): URLSearchParams {
  const params = selectors(query, new URLSearchParams());
  if (query.limit !== undefined) params.set("limit", String(query.limit));
  if (query.continue !== undefined) params.set("continue", query.continue);
  if (query.resourceVersion !== undefined) params.set("resourceVersion", query.resourceVersion);
  if (query.resourceVersionMatch !== undefined)
    params.set("resourceVersionMatch", query.resourceVersionMatch);
  return params;
}

/** A watch's query string (bookmarks unless refused; the server-side timeout, 300 s by default). */
export function watchParams(query: WatchQuery): { params: URLSearchParams; timeoutSeconds: number } {
  const params = selectors(query, new URLSearchParams({ watch: "true" }));
  if (query.resourceVersion !== undefined) params.set("resourceVersion", query.resourceVersion);
  if (query.allowWatchBookmarks !== false) params.set("allowWatchBookmarks", "true");
  const timeoutSeconds = query.timeoutSeconds ?? 300;
  params.set("timeoutSeconds", String(timeoutSeconds));
  return { params, timeoutSeconds };
}

/** A delete's `DeleteOptions` body. */
export function deleteBody(opts: DeleteOptions | undefined): string {
  const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
  if (opts?.propagationPolicy !== undefined) body.propagationPolicy = opts.propagationPolicy;
  if (opts?.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts?.preconditions !== undefined) body.preconditions = opts.preconditions;
  if (opts?.dryRun === true) body.dryRun = ["All"];
  return JSON.stringify(body);
}

/**
 * Watch: a chunked stream of JSON events (`{"type":…,"object":…}` per line) from a resource version,
 * with the filtering transitions of the watch cache (an object leaving the selection is DELETED,
 * entering it is ADDED), BOOKMARKs, `sendInitialEvents`, `timeoutSeconds`, and `410 Gone` as an ERROR
 * event when the requested version is no longer kept.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { negotiate, type Representation } from "../http/negotiate.js";
import { badRequest, expired } from "../http/status.js";
import { toServedVersion } from "../objects/meta.js";
import { apiVersionOf } from "../registry/types.js";
import type { StoreEvent } from "../store/history.js";
import { includeObjectOf, partialMetadata, toTable } from "../table/table.js";
import type { ApiEnv, ResourceRequest } from "../verbs/context.js";
import { selectionOf } from "../verbs/selection.js";

type EventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/**
 * What a watcher with a selection sees of a store event: an object entering the selection is
 * ADDED, one leaving it DELETED (at the event's resourceVersion), one staying in it MODIFIED;
 * nothing for objects outside it.
 */
function watchEventOf(
  event: StoreEvent,
  select: (object: JsonObject) => boolean,
): { type: EventType; object: JsonObject } | undefined {
  const now = select(event.object);
  const before = event.previous !== undefined && event.type === "MODIFIED" && select(event.previous);
  if (event.type === "DELETED") return now ? { type: "DELETED", object: event.object } : undefined;
  if (event.type === "ADDED") return now ? { type: "ADDED", object: event.object } : undefined;
  if (now) return { type: before ? "MODIFIED" : "ADDED", object: event.object };
  if (!before || event.previous === undefined) return undefined;
  const prev = event.previous;
  const last = { ...prev, metadata: { ...(prev.metadata as JsonObject), resourceVersion: String(event.rv) } };
  return { type: "DELETED", object: last };
}

/** Handles `GET /…/<resource>?watch=true` (and `?watch=1`). */
export function handleWatch(env: ApiEnv, request: ResourceRequest): void {
  const r = request.resource;
  const { query, res } = request;
  const representation = negotiate(request.req.headers.accept);
  const select = selectionOf(request);
  const rvParam = query.get("resourceVersion") ?? "";
  if (rvParam !== "" && !/^\d+$/.test(rvParam)) throw badRequest(`invalid resource version: ${rvParam}`);
  const bookmarks = query.get("allowWatchBookmarks") === "true";
  const initialEvents = query.get("sendInitialEvents");
  if (initialEvents === "true" && query.get("resourceVersionMatch") !== "NotOlderThan")
    throw badRequest(
      "sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan",
    );
  const include = includeObjectOf(query);

  res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-cache, private" });
  res.flushHeaders();
  const render = (object: JsonObject, as: Representation): JsonObject => {
    const served = toServedVersion(object, r);
    if (as === "table") return toTable(r, [served], {}, include, env.now().getTime());
    return as === "metadata" ? partialMetadata(served) : served;
  };
  const send = (type: EventType, object: JsonObject): void => {
    res.write(`${JSON.stringify({ type, object })}\n`);
  };
  const bookmark = (annotations?: Record<string, string>): void => {
    const metadata: JsonObject = { resourceVersion: String(env.store.currentRv()) };
    if (annotations !== undefined) metadata.annotations = annotations;
    send("BOOKMARK", { kind: r.kind, apiVersion: apiVersionOf(r), metadata });
  };
  const deliver = (event: StoreEvent): void => {
    if (event.storageKey !== r.storageKey) return;
    const seen = watchEventOf(event, select);
    if (seen !== undefined) send(seen.type, render(seen.object, representation));
  };

  let closed = false;
  const timers: NodeJS.Timeout[] = [];
  const close = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    env.watches.delete(handle);
    res.end();
  };
  const handle = { close, destroy: () => request.req.socket.destroy() };
  const unsubscribe = env.store.subscribe((event) => {
    if (!closed) deliver(event);
  });
  env.watches.add(handle);
  request.req.on("close", close);
  res.on("close", close);

  if (rvParam === "" || rvParam === "0" || initialEvents === "true") {
    const namespace = r.namespaced && request.namespace !== "" ? request.namespace : undefined;
    for (const object of env.store.list(r.storageKey, namespace))
      if (select(object)) send("ADDED", render(object, representation));
    if (initialEvents === "true") bookmark({ "k8s.io/initial-events-end": "true" });
  } else {
    const since = Number(rvParam);
    const events = since > env.store.currentRv() ? [] : env.store.eventsSince(since);
    if (events === undefined) {
      send(
        "ERROR",
        expired(`too old resource version: ${since} (${env.store.compactedRv() + 1})`).toStatus(),
      );
      close();
      return;
    }
    for (const event of events) deliver(event);
  }

  if (bookmarks && env.bookmarkIntervalMs > 0) {
    const interval = setInterval(() => {
      if (!closed) bookmark();
    }, env.bookmarkIntervalMs);
    timers.push(interval);
  }
  const timeoutSeconds = Number(query.get("timeoutSeconds") ?? "0");
  if (Number.isFinite(timeoutSeconds) && timeoutSeconds > 0) {
    timers.push(
      setTimeout(() => {
        if (bookmarks) bookmark();
        close();
      }, timeoutSeconds * 1000),
    );
  }
}

/**
 * GET of one object and LIST with selectors, `limit`/`continue` over a consistent snapshot, and the
 * `resourceVersion` / `resourceVersionMatch` semantics of the real server.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { negotiate } from "../http/negotiate.js";
import { sendJson } from "../http/respond.js";
import { badRequest, expired, timeout } from "../http/status.js";
import { metaString, toServedVersion } from "../objects/meta.js";
import { apiVersionOf, type ResourceType } from "../registry/types.js";
import { includeObjectOf, partialMetadata, toTable } from "../table/table.js";
import type { ApiEnv, ResourceRequest } from "./context.js";
import { selectionOf } from "./selection.js";
import { currentObject } from "./update.js";

/** Handles `GET /…/<resource>/<name>`. */
export function handleGet(env: ApiEnv, request: ResourceRequest): void {
  const representation = negotiate(request.req.headers.accept);
  const object = toServedVersion(currentObject(env, request), request.resource);
  if (representation === "table") {
    const meta = { resourceVersion: metaString(object, "resourceVersion") };
    sendJson(
      request.res,
      200,
      toTable(request.resource, [object], meta, includeObjectOf(request.query), env.now().getTime()),
    );
  } else sendJson(request.res, 200, representation === "metadata" ? partialMetadata(object) : object);
}

/** Current objects the request's namespace and selectors match (for deletecollection). */
export function listMatching(env: ApiEnv, request: ResourceRequest): JsonObject[] {
  const r = request.resource;
  const select = selectionOf(request);
  return env.store
    .list(r.storageKey, r.namespaced && request.namespace !== "" ? request.namespace : undefined)
    .filter(select);
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

function decodeContinue(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64").toString("utf8")) as ContinueToken;
    if (parsed.v !== "meta.k8s.io/v1" || typeof parsed.rv !== "number" || typeof parsed.start !== "string")
      throw new Error("bad token");
    return parsed;
  } catch {
    throw badRequest(
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString("base64");
}

const CONTINUE_EXPIRED =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/** The snapshot version a list reads at, per `resourceVersion`, `resourceVersionMatch` and `continue`. */
function listVersion(env: ApiEnv, query: URLSearchParams): { rv: number; exact: boolean; start: string } {
  const current = env.store.currentRv();
  const token = query.get("continue") ?? "";
  const rvParam = query.get("resourceVersion") ?? "";
  const match = query.get("resourceVersionMatch") ?? "";
  if (token !== "") {
    if (rvParam !== "" && rvParam !== "0")
      throw badRequest("specifying resource version is not allowed when using continue");
    const t = decodeContinue(token);
    return { rv: t.rv, exact: true, start: t.start };
  }
  if (match !== "" && rvParam === "")
    throw badRequest("resourceVersionMatch is forbidden unless resourceVersion is provided");
  if (match !== "" && match !== "Exact" && match !== "NotOlderThan")
    throw badRequest(
      `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
    );
  if (rvParam === "" || rvParam === "0") return { rv: current, exact: false, start: "" };
  if (!/^\d+$/.test(rvParam)) throw badRequest(`invalid resource version: ${rvParam}`);
  const rv = Number(rvParam);
  if (rv > current) throw timeout(`Too large resource version: ${rv}, current: ${current}`);
  return match === "Exact" ? { rv, exact: true, start: "" } : { rv: current, exact: false, start: "" };
}

/** Handles `GET /…/<resource>` (list). */
export function handleList(env: ApiEnv, request: ResourceRequest): void {
  const r = request.resource;
  const representation = negotiate(request.req.headers.accept);
  const select = selectionOf(request);
  const { rv, exact, start } = listVersion(env, request.query);
  const namespace = r.namespaced && request.namespace !== "" ? request.namespace : undefined;
  const scan = env.store.scan(r.storageKey, { ...(exact ? { at: rv } : {}), namespace, start });
  if (scan === undefined) {
    if (request.query.has("continue")) throw expired(CONTINUE_EXPIRED);
    throw expired("The resourceVersion for the provided list is too old.");
  }
  const keyOf = (o: JsonObject): string => `${metaString(o, "namespace")}/${metaString(o, "name")}`;
  const limitParam = Number(request.query.get("limit") ?? "0");
  const limit = Number.isInteger(limitParam) && limitParam > 0 ? limitParam : Number.POSITIVE_INFINITY;
  const items: JsonObject[] = [];
  let more = false;
  for (const object of scan.items) {
    if (!select(object)) continue;
    if (items.length === limit) {
      more = true;
      break;
    }
    items.push(object);
  }
  const listMeta: JsonObject = { resourceVersion: String(rv) };
  if (more) {
    const last = items[items.length - 1];
    listMeta.continue = encodeContinue({
      v: "meta.k8s.io/v1",
      rv,
      start: `${last === undefined ? "" : keyOf(last)}\u0000`,
    });
    if (!request.query.has("labelSelector") && !request.query.has("fieldSelector"))
      listMeta.remainingItemCount = scan.total - items.length;
  }
  const served = items.map((o) => toServedVersion(o, r));
  if (representation === "table") {
    sendJson(
      request.res,
      200,
      toTable(r, served, listMeta, includeObjectOf(request.query), env.now().getTime()),
    );
    return;
  }
  if (representation === "metadata") {
    sendJson(request.res, 200, {
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: listMeta,
      items: served.map(partialMetadata),
    });
    return;
  }
  sendJson(request.res, 200, {
    kind: r.listKind,
    apiVersion: apiVersionOf(r),
    metadata: listMeta,
    items: served.map((o) => listItem(r, o)),
  });
}

/** Typed lists of built-in kinds carry no `kind`/`apiVersion` on their items; custom resource lists do. */
function listItem(resource: ResourceType, object: JsonObject): JsonObject {
  if (resource.custom) return object;
  const { kind: _k, apiVersion: _a, ...rest } = object;
  return rest;
}

/**
 * DELETE and deletecollection: preconditions, propagation policy (Background / Foreground / Orphan
 * via the `foregroundDeletion` / `orphan` finalizers the garbage collector resolves), finalizers
 * (`deletionTimestamp` set, object kept) and namespaces (marked Terminating, emptied by the
 * namespace controller).
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { readBody } from "../http/body.js";
import { decodeDeleteOptionsProtobuf, isProtobufEnvelope } from "../http/protobuf.js";
import { sendJson } from "../http/respond.js";
import { badRequest, conflict } from "../http/status.js";
import {
  asObject,
  finalizersOf,
  metadataOf,
  metaString,
  timestamp,
  toServedVersion,
} from "../objects/meta.js";
import type { ResourceType } from "../registry/types.js";
import { admit, operationOptions } from "./admit.js";
import type { ApiEnv, ResourceRequest } from "./context.js";
import { isDryRun } from "./context.js";
import { isFinalized } from "./object-rules.js";
import { listMatching } from "./read.js";
import { currentObject } from "./update.js";

/** The delete options that matter here. */
export interface DeleteOptions {
  propagationPolicy: "Orphan" | "Background" | "Foreground";
  preconditions: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
  /** `gracePeriodSeconds` of the request (Pods on a node: how long the kubelet has to stop them). */
  gracePeriodSeconds?: number;
}

/** What a delete did: removed the object, or marked it for deletion (finalizers pending). */
export interface DeleteOutcome {
  object: JsonObject;
  removed: boolean;
}

/** Handles `DELETE /…/<resource>/<name>`. */
export async function handleDelete(env: ApiEnv, request: ResourceRequest): Promise<void> {
  const { options, raw } = await deleteOptions(request);
  const existing = currentObject(env, request);
  checkPreconditions(request.resource, request.name, existing, options);
  await admit(env, request, deleteAdmission(request, existing, raw));
  const outcome = performDelete(env, request.resource, existing, options);
  const r = request.resource;
  if (outcome.removed && !r.returnDeletedObject) {
    const details: JsonObject = { name: request.name };
    if (r.group !== "") details.group = r.group;
    details.kind = r.plural;
    details.uid = metaString(existing, "uid");
    sendJson(request.res, 200, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details,
    });
    return;
  }
  sendJson(request.res, 200, toServedVersion(outcome.object, r));
}

/** Handles `DELETE /…/<resource>` (deletecollection) with the list selectors. */
export async function handleDeleteCollection(env: ApiEnv, request: ResourceRequest): Promise<void> {
  const { options, raw } = await deleteOptions(request);
  const r = request.resource;
  const deleted: JsonObject[] = [];
  for (const existing of listMatching(env, request)) {
    const named = {
      ...request,
      name: metaString(existing, "name"),
      namespace: metaString(existing, "namespace"),
    };
    await admit(env, named, deleteAdmission(named, existing, raw));
    deleted.push(toServedVersion(performDelete(env, r, existing, options).object, r));
  }
  const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
  sendJson(request.res, 200, { kind: r.listKind, apiVersion, metadata: {}, items: deleted });
}

function deleteAdmission(request: ResourceRequest, existing: JsonObject, raw: JsonObject) {
  return {
    operation: "DELETE" as const,
    object: null,
    oldObject: existing,
    options: {
      ...operationOptions("DeleteOptions", request),
      ...raw,
      kind: "DeleteOptions",
      apiVersion: "meta.k8s.io/v1",
    },
    name: request.name,
    namespace: request.resource.namespaced ? request.namespace : "",
  };
}

async function deleteOptions(request: ResourceRequest): Promise<{ options: DeleteOptions; raw: JsonObject }> {
  const body = await readBody(request.req);
  let raw: JsonObject = {};
  if (isProtobufEnvelope(body)) raw = decodeDeleteOptionsProtobuf(body);
  else if (body.length > 0) {
    let parsed: JsonValue;
    try {
      parsed = JSON.parse(body.toString("utf8")) as JsonValue;
    } catch (e) {
      throw badRequest(
        `couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    raw = asObject(parsed) ?? {};
  }
  const q = request.query;
  const policy =
    q.get("propagationPolicy") ?? (typeof raw.propagationPolicy === "string" ? raw.propagationPolicy : "");
  const orphan =
    q.get("orphanDependents") ??
    (typeof raw.orphanDependents === "boolean" ? String(raw.orphanDependents) : "");
  let propagationPolicy: DeleteOptions["propagationPolicy"] = "Background";
  if (policy === "Orphan" || policy === "Foreground" || policy === "Background") propagationPolicy = policy;
  else if (policy !== "")
    throw badRequest(
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`,
    );
  else if (orphan === "true") propagationPolicy = "Orphan";
  const pre = asObject(raw.preconditions) ?? {};
  const preconditions: DeleteOptions["preconditions"] = {};
  if (typeof pre.uid === "string") preconditions.uid = pre.uid;
  if (typeof pre.resourceVersion === "string") preconditions.resourceVersion = pre.resourceVersion;
  const dryRun = isDryRun(q) || (Array.isArray(raw.dryRun) && raw.dryRun.includes("All"));
  const grace =
    q.get("gracePeriodSeconds") ??
    (typeof raw.gracePeriodSeconds === "number" ? String(raw.gracePeriodSeconds) : null);
  const options: DeleteOptions = { propagationPolicy, preconditions, dryRun };
  if (grace !== null && /^-?\d+$/.test(grace)) options.gracePeriodSeconds = Math.max(0, Number(grace));
  return { options, raw };
}

/** A DELETE's `preconditions` (uid, resourceVersion) against the stored object: a 409 when one differs. */
export function checkPreconditions(
  resource: ResourceType,
  name: string,
  existing: JsonObject,
  options: DeleteOptions,
): void {
  const gr = { group: resource.group, resource: resource.plural };
  const { uid, resourceVersion } = options.preconditions;
  if (uid !== undefined && uid !== metaString(existing, "uid"))
    throw conflict(
      gr,
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${metaString(existing, "uid")}`,
    );
  if (resourceVersion !== undefined && resourceVersion !== metaString(existing, "resourceVersion"))
    throw conflict(
      gr,
      name,
      `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${metaString(existing, "resourceVersion")}`,
    );
}

/**
 * Deletes (or marks for deletion) one stored object without admission: the shared core of DELETE,
 * deletecollection, the garbage collector and the namespace controller.
 */
export function performDelete(
  env: ApiEnv,
  resource: ResourceType,
  existing: JsonObject,
  options: DeleteOptions,
): DeleteOutcome {
  const namespace = metaString(existing, "namespace");
  const name = metaString(existing, "name");
  const grace = podGracePeriod(resource, existing, options);
  if (grace !== undefined && grace > 0) return markPodTerminating(env, resource, existing, grace, options);
  if (metaString(existing, "deletionTimestamp") !== "" && grace === undefined)
    return { object: existing, removed: false };
  const isNamespace = resource.kind === "Namespace" && resource.group === "";
  const finalizers = finalizersOf(existing);
  if (options.propagationPolicy === "Foreground" && !isNamespace) finalizers.push("foregroundDeletion");
  if (options.propagationPolicy === "Orphan" && !isNamespace) finalizers.push("orphan");
  const marked: JsonObject = {
    ...existing,
    metadata: {
      ...metadataOf(existing),
      deletionTimestamp: timestamp(env.now()),
      deletionGracePeriodSeconds: 0,
      ...(finalizers.length > 0 ? { finalizers: [...new Set(finalizers)] } : {}),
    },
  };
  if (isNamespace) marked.status = { ...(asObject(existing.status) ?? {}), phase: "Terminating" };
  if (!isFinalized(marked) || isNamespace) {
    if (options.dryRun) return { object: marked, removed: false };
    return { object: env.store.update(resource.storageKey, marked), removed: false };
  }
  if (options.dryRun) return { object: existing, removed: true };
  const last = env.store.remove(resource.storageKey, namespace, name);
  return { object: last ?? existing, removed: true };
}

/**
 * kube-apiserver's graceful deletion of Pods: a Pod bound to a node (`spec.nodeName`) that has not
 * finished is kept with `deletionTimestamp` + `deletionGracePeriodSeconds` until its kubelet, having
 * stopped the containers, deletes it with grace 0. `undefined` for every other object (and unbound
 * or finished Pods), which are deleted at once.
 */
function podGracePeriod(
  resource: ResourceType,
  existing: JsonObject,
  options: DeleteOptions,
): number | undefined {
  if (resource.kind !== "Pod" || resource.group !== "") return undefined;
  const spec = asObject(existing.spec) ?? {};
  const phase = asObject(existing.status)?.phase;
  if (
    typeof spec.nodeName !== "string" ||
    spec.nodeName === "" ||
    phase === "Succeeded" ||
    phase === "Failed"
  )
    return undefined;
  const fromSpec =
    typeof spec.terminationGracePeriodSeconds === "number" ? spec.terminationGracePeriodSeconds : 30;
  return options.gracePeriodSeconds ?? fromSpec;
}

function markPodTerminating(
  env: ApiEnv,
  resource: ResourceType,
  existing: JsonObject,
  grace: number,
  options: DeleteOptions,
): DeleteOutcome {
  const meta = metadataOf(existing);
  const previous =
    typeof meta.deletionGracePeriodSeconds === "number" ? meta.deletionGracePeriodSeconds : undefined;
  // A later delete may shorten the grace period, never lengthen it.
  if (previous !== undefined && previous <= grace) return { object: existing, removed: false };
  const marked: JsonObject = {
    ...existing,
    metadata: {
      ...meta,
      deletionTimestamp: timestamp(new Date(env.now().getTime() + grace * 1000)),
      deletionGracePeriodSeconds: grace,
    },
  };
  if (options.dryRun) return { object: marked, removed: false };
  return { object: env.store.update(resource.storageKey, marked), removed: false };
}

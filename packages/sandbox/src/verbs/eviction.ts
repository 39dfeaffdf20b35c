/**
 * The `eviction` subresource of Pods (`POST …/pods/<name>/eviction` with a policy/v1 Eviction), as
 * kube-apiserver serves it for `kubectl drain`: the webhooks see a CREATE of `pods/eviction` carrying
 * the Eviction, then the Pod is deleted with the Eviction's `deleteOptions` (that delete is not admitted
 * a second time) and the answer is a `201` Success Status. PodDisruptionBudgets are not consulted: the
 * sandbox runs no disruption controller to keep their `disruptionsAllowed` current.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { sendJson } from "../http/respond.js";
import { badRequest, methodNotAllowed } from "../http/status.js";
import { asObject, metadataOf, metaString } from "../objects/meta.js";
import { admit, operationOptions } from "./admit.js";
import type { ApiEnv, ResourceRequest } from "./context.js";
import { isDryRun } from "./context.js";
import { readJson } from "./decode.js";
import { checkPreconditions, type DeleteOptions, performDelete } from "./delete.js";
import { currentObject } from "./update.js";

const EVICTION = { group: "policy", version: "v1", kind: "Eviction" };

/** The Eviction's `deleteOptions`, read as a DELETE's (propagation, preconditions, grace, dry run). */
function evictionDeleteOptions(request: ResourceRequest, eviction: JsonObject): DeleteOptions {
  const raw = asObject(eviction.deleteOptions) ?? {};
  const policy = raw.propagationPolicy;
  const pre = asObject(raw.preconditions) ?? {};
  const options: DeleteOptions = {
    propagationPolicy:
      policy === "Orphan" || policy === "Foreground" || policy === "Background" ? policy : "Background",
    preconditions: {
      ...(typeof pre.uid === "string" ? { uid: pre.uid } : {}),
      ...(typeof pre.resourceVersion === "string" ? { resourceVersion: pre.resourceVersion } : {}),
    },
    dryRun: isDryRun(request.query) || (Array.isArray(raw.dryRun) && raw.dryRun.includes("All")),
  };
  if (typeof raw.gracePeriodSeconds === "number")
    options.gracePeriodSeconds = Math.max(0, raw.gracePeriodSeconds);
  return options;
}

/** `POST …/pods/<name>/eviction`. */
export async function handleEviction(env: ApiEnv, request: ResourceRequest, method: string): Promise<void> {
  if (method !== "POST") throw methodNotAllowed();
  const body = asObject(await readJson(request, "Eviction"));
  if (body === undefined) throw badRequest("the object provided is unrecognized (must be of type Eviction)");
  const named = metaString(body, "name");
  if (named !== "" && named !== request.name)
    throw badRequest("name in URL does not match name in Eviction object");
  const pod = currentObject(env, request);
  const namespace = metaString(pod, "namespace");
  const eviction: JsonObject = {
    ...body,
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { ...metadataOf(body), name: request.name, namespace },
  };
  await admit(env, request, {
    operation: "CREATE",
    object: eviction,
    oldObject: null,
    options: operationOptions("CreateOptions", request),
    name: request.name,
    namespace,
    kind: EVICTION,
  });
  const options = evictionDeleteOptions(request, eviction);
  checkPreconditions(request.resource, request.name, pod, options);
  performDelete(env, request.resource, pod, options);
  sendJson(request.res, 201, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    code: 201,
  });
}

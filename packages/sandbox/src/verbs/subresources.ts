/**
 * The `scale` subresource of built-in workloads (autoscaling/v1 Scale) and the connect subresources of
 * pods (`exec`, `attach`, `portforward`): CONNECT is admitted, then answered as a real server answers a
 * request that is not a protocol upgrade (streaming is not supported).
 */
import type { JsonObject } from "@kyverno-ts/api";
import { mediaType } from "../http/body.js";
import { sendJson } from "../http/respond.js";
import { badRequest, unsupportedMediaType } from "../http/status.js";
import { applyMergePatch } from "../objects/merge-patch.js";
import { asObject, metadataOf, metaString } from "../objects/meta.js";
import { admit, operationOptions } from "./admit.js";
import type { ApiEnv, ResourceRequest } from "./context.js";
import { readJson } from "./decode.js";
import { currentObject, updateObject } from "./update.js";

function scaleOf(object: JsonObject): JsonObject {
  const meta = metadataOf(object);
  const spec = asObject(object.spec) ?? {};
  const status = asObject(object.status) ?? {};
  const selector = asObject(asObject(spec.selector)?.matchLabels) ?? {};
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name ?? "",
      namespace: meta.namespace ?? "",
      uid: meta.uid ?? "",
      resourceVersion: meta.resourceVersion ?? "",
      creationTimestamp: meta.creationTimestamp ?? null,
    },
    spec: { replicas: typeof spec.replicas === "number" ? spec.replicas : 1 },
    status: {
      replicas: typeof status.replicas === "number" ? status.replicas : 0,
      selector: Object.entries(selector)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(","),
    },
  };
}

/** GET / PUT / PATCH (merge and strategic, both merge a Scale) of `…/<workload>/<name>/scale`. */
export async function handleScale(env: ApiEnv, request: ResourceRequest, method: string): Promise<void> {
  const existing = currentObject(env, request);
  if (method === "GET") {
    sendJson(request.res, 200, scaleOf(existing));
    return;
  }
  let scale: JsonObject;
  if (method === "PUT") scale = asObject(await readJson(request, "Scale")) ?? {};
  else {
    const type = mediaType(request.req.headers["content-type"]);
    if (type !== "application/merge-patch+json" && type !== "application/strategic-merge-patch+json")
      throw unsupportedMediaType(["application/merge-patch+json", "application/strategic-merge-patch+json"]);
    scale = asObject(applyMergePatch(scaleOf(existing), await readJson(request, "Scale"))) ?? {};
  }
  // As kube-apiserver: the webhooks see an UPDATE of `<workload>/scale` carrying autoscaling/v1
  // Scale objects (new and old), and the workload's own update is not admitted a second time.
  const old = scaleOf(existing);
  const requested: JsonObject = { ...scale, kind: "Scale", apiVersion: "autoscaling/v1" };
  scale =
    (await admit(env, request, {
      operation: "UPDATE",
      object: requested,
      oldObject: old,
      options: operationOptions(method === "PUT" ? "UpdateOptions" : "PatchOptions", request),
      name: request.name,
      namespace: request.resource.namespaced ? request.namespace : "",
      kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    })) ?? requested;
  const replicas = asObject(scale.spec)?.replicas;
  if (typeof replicas !== "number" || replicas < 0)
    throw badRequest("spec.replicas must be a non-negative integer");
  const rv = metaString(scale, "resourceVersion");
  const next: JsonObject = {
    ...existing,
    metadata: {
      ...metadataOf(existing),
      resourceVersion: rv === "" ? metaString(existing, "resourceVersion") : rv,
    },
    spec: { ...(asObject(existing.spec) ?? {}), replicas },
  };
  const updated = await updateObject(env, { ...request, subresource: "" }, existing, next, {
    put: false,
    admitted: true,
  });
  sendJson(request.res, 200, scaleOf(updated));
}

const CONNECT_KINDS: Record<string, string> = {
  exec: "PodExecOptions",
  attach: "PodAttachOptions",
  portforward: "PodPortForwardOptions",
};

/** `…/pods/<name>/exec|attach|portforward`: admission CONNECT, then `Upgrade request required`. */
export async function handleConnect(env: ApiEnv, request: ResourceRequest): Promise<void> {
  const pod = currentObject(env, request);
  const kind = CONNECT_KINDS[request.subresource] ?? "PodExecOptions";
  const options: JsonObject = { kind, apiVersion: "v1" };
  const commands = request.query.getAll("command");
  if (commands.length > 0) options.command = commands;
  for (const flag of ["stdin", "stdout", "stderr", "tty"])
    if (request.query.get(flag) === "true") options[flag] = true;
  const container = request.query.get("container");
  if (container !== null) options.container = container;
  await admit(env, request, {
    operation: "CONNECT",
    object: options,
    oldObject: null,
    options: null,
    name: request.name,
    namespace: metaString(pod, "namespace"),
    kind: { group: "", version: "v1", kind },
  });
  throw badRequest("Upgrade request required");
}

/** POST on a collection: create (with `generateName`, dry run, admission and validation). */
import type { JsonObject } from "@kyverno-ts/api";
import { admitPodServiceAccount } from "../defaults/service-account-admission.js";
import { toStoredForm } from "../defaults/stored-form.js";
import { sendJson } from "../http/respond.js";
import { ApiError, alreadyExists, forbidden, notFound } from "../http/status.js";
import { metadataOf, metaString, toServedVersion, toStorageVersion } from "../objects/meta.js";
import { checkObjectSize, validateObject } from "../validation/object.js";
import { admit, operationOptions } from "./admit.js";
import type { ApiEnv, ResourceRequest } from "./context.js";
import { isDryRun } from "./context.js";
import { validateCrd } from "./crd-rules.js";
import { asResourceObject, readJson } from "./decode.js";
import { prepareCreate } from "./object-rules.js";
import { checkCustomResource, decodeCustomResource, validateCustomResource } from "./schema-rules.js";

/** Handles `POST /…/<resource>`. */
export async function handleCreate(env: ApiEnv, request: ResourceRequest): Promise<void> {
  const body = asResourceObject(request, await readJson(request, request.resource.kind));
  const created = await createObject(env, request, body);
  sendJson(request.res, 201, toServedVersion(created, request.resource));
}

/** Checks that objects may be created in `namespace` (exists and is not terminating). */
export function checkNamespace(env: ApiEnv, request: ResourceRequest, namespace: string, name: string): void {
  const ns = env.store.get("namespaces", "", namespace);
  if (ns === undefined) throw notFound({ group: "", resource: "namespaces" }, namespace);
  if (metaString(ns, "deletionTimestamp") !== "") {
    const r = request.resource;
    throw forbidden(
      { group: r.group, resource: r.plural },
      name,
      `unable to create new content in namespace ${namespace} because it is being terminated`,
      {
        reason: "NamespaceTerminating",
        message: `namespace ${namespace} is being terminated`,
        field: "metadata.namespace",
      },
    );
  }
}

/** Creates `body` (already checked against the resource): the shared path of POST and apply-create. */
export async function createObject(
  env: ApiEnv,
  request: ResourceRequest,
  body: JsonObject,
): Promise<JsonObject> {
  const resource = request.resource;
  const meta = metadataOf(body);
  if (typeof meta.resourceVersion === "string" && meta.resourceVersion !== "")
    throw new ApiError(500, "InternalError", "resourceVersion should not be set on objects to be created");
  let name = metaString(body, "name");
  const generateName = metaString(body, "generateName");
  if (name === "" && generateName !== "") name = `${generateName}${env.nameSuffix()}`;
  const namespace = resource.namespaced ? metaString(body, "namespace") : "";
  if (resource.namespaced && namespace !== "") checkNamespace(env, request, namespace, name);
  let object = prepareCreate(resource, { ...body, metadata: { ...meta, name } }, env.newUid(), env.now());
  if (resource.custom) object = decodeCustomResource(resource, object, request);
  if (resource.kind === "Pod" && resource.group === "") {
    // kube-apiserver's built-in mutating plugins run before the webhooks.
    const refused = admitPodServiceAccount(object, namespace, {
      serviceAccount: (ns, n) => env.store.get("serviceaccounts", ns, n),
      nameSuffix: env.nameSuffix,
    });
    if (refused !== undefined)
      throw forbidden({ group: "", resource: "pods" }, metaString(body, "name"), refused);
    object = toStoredForm(resource, object);
  }
  const fixed = metadataOf(object);
  const admitted = await admit(env, request, {
    operation: "CREATE",
    object,
    oldObject: null,
    options: operationOptions("CreateOptions", request),
    name,
    namespace,
  });
  if (admitted !== null) {
    object = {
      ...admitted,
      metadata: {
        ...metadataOf(admitted),
        uid: fixed.uid ?? null,
        creationTimestamp: fixed.creationTimestamp ?? null,
        name,
      },
    };
    if (resource.namespaced) metadataOf(object).namespace = namespace;
    if (fixed.generation === undefined) delete metadataOf(object).generation;
    else metadataOf(object).generation = fixed.generation;
    // Webhook patches are decoded into the typed object again: defaults and omitted empties as above.
    object = toStoredForm(resource, object);
  }
  validateObject(resource, object);
  env.checkWrite?.(request, object, undefined);
  if (resource.kind === "CustomResourceDefinition" && resource.group === "apiextensions.k8s.io")
    validateCrd(object);
  if (resource.custom) {
    // Decoded above; again only when a webhook's patch may have added fields or removed defaults.
    if (admitted === null) checkCustomResource(resource, object);
    else object = validateCustomResource(resource, object, request);
  }
  object = toStorageVersion(object, resource);
  checkObjectSize(object);
  const gr = { group: resource.group, resource: resource.plural };
  let existing = env.store.get(resource.storageKey, namespace, name);
  for (
    let retry = 0;
    existing !== undefined && generateName !== "" && metaString(body, "name") === "" && retry < 7;
    retry++
  ) {
    name = `${generateName}${env.nameSuffix()}`;
    metadataOf(object).name = name;
    existing = env.store.get(resource.storageKey, namespace, name);
  }
  if (existing !== undefined) throw alreadyExists(gr, name);
  if (resource.namespaced && env.store.get("namespaces", "", namespace) === undefined)
    throw notFound({ group: "", resource: "namespaces" }, namespace);
  if (isDryRun(request.query)) return object;
  return env.store.create(resource.storageKey, object);
}

/** Writes made by the sandbox's own controllers (no admission, as kube-controller-manager's are not ours to model). */
import type { JsonObject } from "@kyverno-ts/api";
import { metaString } from "../objects/meta.js";
import type { ResourceType } from "../registry/types.js";
import type { ApiEnv } from "./context.js";
import { isFinalized, prepareCreate } from "./object-rules.js";

/** Stores an update and removes the object when it was being deleted and has no finalizers left. */
export function internalUpdate(env: ApiEnv, resource: ResourceType, object: JsonObject): JsonObject {
  const stored = env.store.update(resource.storageKey, object);
  if (metaString(stored, "deletionTimestamp") !== "" && isFinalized(stored))
    env.store.remove(resource.storageKey, metaString(stored, "namespace"), metaString(stored, "name"));
  return stored;
}

/** Creates an object unless it exists (bootstrap namespaces). */
export function internalEnsure(env: ApiEnv, resource: ResourceType, object: JsonObject): void {
  if (
    env.store.get(resource.storageKey, metaString(object, "namespace"), metaString(object, "name")) !==
    undefined
  )
    return;
  env.store.create(resource.storageKey, prepareCreate(resource, object, env.newUid(), env.now()));
}

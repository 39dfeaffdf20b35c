/**
 * The namespace controller: a namespace marked for deletion has every object in it deleted; once none
 * is left (objects with finalizers keep it Terminating) its `kubernetes` finalizer is removed and it goes.
 */
import { asObject, metaString } from "../objects/meta.js";
import type { ApiEnv } from "../verbs/context.js";
import { performDelete } from "../verbs/delete.js";
import { internalUpdate } from "../verbs/internal.js";
import type { WorkQueue } from "./work-queue.js";

/** Starts the controller; returns the function that stops listening. */
export function startNamespaceController(env: ApiEnv, queue: WorkQueue): () => void {
  const cleanup = (namespace: string): void => {
    const ns = env.store.get("namespaces", "", namespace);
    const nsResource = env.registry.byStorageKey("namespaces");
    if (ns === undefined || nsResource === undefined || metaString(ns, "deletionTimestamp") === "") return;
    let remaining = 0;
    for (const { storageKey, object } of env.store.entries()) {
      if (metaString(object, "namespace") !== namespace) continue;
      remaining++;
      const resource = env.registry.byStorageKey(storageKey);
      if (resource === undefined) {
        env.store.remove(storageKey, namespace, metaString(object, "name"));
        remaining--;
        continue;
      }
      const outcome = performDelete(env, resource, object, {
        propagationPolicy: "Background",
        preconditions: {},
        dryRun: false,
      });
      if (outcome.removed) remaining--;
    }
    if (remaining > 0) return;
    const spec = asObject(ns.spec) ?? {};
    internalUpdate(env, nsResource, { ...ns, spec: { ...spec, finalizers: [] } });
  };
  const schedule = (namespace: string): void => queue.add(`ns|${namespace}`, () => cleanup(namespace));
  for (const ns of env.store.list("namespaces"))
    if (metaString(ns, "deletionTimestamp") !== "") schedule(metaString(ns, "name"));
  return env.store.subscribe((event) => {
    if (event.storageKey === "namespaces") {
      if (event.type !== "DELETED" && metaString(event.object, "deletionTimestamp") !== "")
        schedule(metaString(event.object, "name"));
      return;
    }
    const namespace = metaString(event.object, "namespace");
    if (event.type === "DELETED" && namespace !== "") {
      const ns = env.store.get("namespaces", "", namespace);
      if (ns !== undefined && metaString(ns, "deletionTimestamp") !== "") schedule(namespace);
    }
  });
}

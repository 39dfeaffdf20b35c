/**
 * Keeps the registry in step with stored CRDs: a created or changed CRD is served at once; when a CRD
 * goes, its custom resources are removed (the apiextensions cleanup finalizer, done synchronously).
 */
import { metaString } from "../objects/meta.js";
import type { ObjectStore } from "../store/store.js";
import type { ResourceRegistry } from "./registry.js";

const CRD_KEY = "apiextensions.k8s.io/customresourcedefinitions";

/** Serves the stored CRDs now and on every change; returns the function that stops listening. */
export function syncCrds(store: ObjectStore, registry: ResourceRegistry): () => void {
  const refresh = (): void =>
    registry.setCrds(store.list(CRD_KEY).filter((c) => metaString(c, "deletionTimestamp") === ""));
  refresh();
  return store.subscribe((event) => {
    if (event.storageKey !== CRD_KEY) return;
    const before = new Set(
      registry
        .all()
        .filter((r) => r.custom)
        .map((r) => r.storageKey),
    );
    refresh();
    const after = new Set(
      registry
        .all()
        .filter((r) => r.custom)
        .map((r) => r.storageKey),
    );
    const gone = [...before].filter((key) => !after.has(key));
    if (gone.length === 0) return;
    queueMicrotask(() => {
      for (const key of gone) {
        if (registry.byStorageKey(key) !== undefined) continue;
        for (const object of store.list(key))
          store.remove(key, metaString(object, "namespace"), metaString(object, "name"));
      }
    });
  });
}

/**
 * The garbage collector: dependents whose owners (by `ownerReferences[].uid`) are all gone are deleted
 * in the background; dangling references beside a live owner are dropped; owners deleted with
 * `Foreground` keep the `foregroundDeletion` finalizer until their dependents are gone, and with
 * `Orphan` have the references to them removed from dependents before the `orphan` finalizer goes.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { finalizersOf, metadataOf, metaString, ownerReferencesOf } from "../objects/meta.js";
import type { StoreEvent } from "../store/history.js";
import type { ApiEnv } from "../verbs/context.js";
import { performDelete } from "../verbs/delete.js";
import { internalUpdate } from "../verbs/internal.js";
import type { WorkQueue } from "./work-queue.js";

interface Ref {
  storageKey: string;
  namespace: string;
  name: string;
}

/** Starts collecting; returns the function that stops listening. */
export function startGarbageCollector(env: ApiEnv, queue: WorkQueue): () => void {
  const dependents = new Map<string, Map<string, Ref>>();
  const refKey = (r: Ref): string => `${r.storageKey}|${r.namespace}/${r.name}`;
  const index = (storageKey: string, object: JsonObject, add: boolean): void => {
    const ref = { storageKey, namespace: metaString(object, "namespace"), name: metaString(object, "name") };
    for (const owner of ownerReferencesOf(object)) {
      const uid = typeof owner.uid === "string" ? owner.uid : "";
      const set = dependents.get(uid) ?? new Map<string, Ref>();
      if (add) set.set(refKey(ref), ref);
      else set.delete(refKey(ref));
      if (set.size === 0) dependents.delete(uid);
      else dependents.set(uid, set);
    }
  };
  const current = (ref: Ref): JsonObject | undefined =>
    env.store.get(ref.storageKey, ref.namespace, ref.name);
  const dependentsOf = (uid: string): Array<{ ref: Ref; object: JsonObject }> =>
    [...(dependents.get(uid)?.values() ?? [])].flatMap((ref) => {
      const object = current(ref);
      return object !== undefined && ownerReferencesOf(object).some((o) => o.uid === uid)
        ? [{ ref, object }]
        : [];
    });

  const resourceOf = (storageKey: string) => env.registry.byStorageKey(storageKey);

  const checkDependent = (ref: Ref): void => {
    const object = current(ref);
    const resource = resourceOf(ref.storageKey);
    if (object === undefined || resource === undefined) return;
    const owners = ownerReferencesOf(object);
    if (owners.length === 0) return;
    const live = owners.filter((o) => typeof o.uid === "string" && env.store.byUid(o.uid) !== undefined);
    if (live.length === 0) {
      performDelete(env, resource, object, {
        propagationPolicy: "Background",
        preconditions: {},
        dryRun: false,
      });
    } else if (live.length < owners.length) {
      internalUpdate(env, resource, {
        ...object,
        metadata: { ...metadataOf(object), ownerReferences: live },
      });
    }
  };

  const checkOwner = (storageKey: string, namespace: string, name: string): void => {
    const owner = env.store.get(storageKey, namespace, name);
    const resource = resourceOf(storageKey);
    if (owner === undefined || resource === undefined || metaString(owner, "deletionTimestamp") === "")
      return;
    const uid = metaString(owner, "uid");
    const finalizers = finalizersOf(owner);
    const deps = dependentsOf(uid);
    let remove: string | undefined;
    if (finalizers.includes("orphan")) {
      for (const { ref, object } of deps) {
        const r = resourceOf(ref.storageKey);
        const refs = ownerReferencesOf(object).filter((o) => o.uid !== uid);
        const metadata: JsonObject = { ...metadataOf(object), ownerReferences: refs };
        if (refs.length === 0) delete metadata.ownerReferences;
        if (r !== undefined) internalUpdate(env, r, { ...object, metadata });
      }
      remove = "orphan";
    } else if (finalizers.includes("foregroundDeletion")) {
      for (const { ref, object } of deps) {
        const r = resourceOf(ref.storageKey);
        if (r !== undefined)
          performDelete(env, r, object, {
            propagationPolicy: "Background",
            preconditions: {},
            dryRun: false,
          });
      }
      if (dependentsOf(uid).length === 0) remove = "foregroundDeletion";
    }
    if (remove === undefined) return;
    const latest = env.store.get(storageKey, namespace, name);
    if (latest === undefined) return;
    const kept = finalizersOf(latest).filter((f) => f !== remove);
    const metadata: JsonObject = { ...metadataOf(latest), finalizers: kept };
    if (kept.length === 0) delete metadata.finalizers;
    internalUpdate(env, resource, { ...latest, metadata });
  };

  const onEvent = (event: StoreEvent): void => {
    if (event.previous !== undefined) index(event.storageKey, event.previous, false);
    if (event.type !== "DELETED") index(event.storageKey, event.object, true);
    const ns = metaString(event.object, "namespace");
    const name = metaString(event.object, "name");
    if (event.type === "DELETED") {
      const uid = metaString(event.object, "uid");
      for (const { ref } of dependentsOf(uid)) queue.add(`dep|${refKey(ref)}`, () => checkDependent(ref));
      for (const owner of ownerReferencesOf(event.object)) {
        const o = typeof owner.uid === "string" ? env.store.byUid(owner.uid) : undefined;
        if (o !== undefined) {
          const [ons, oname] = [metaString(o.object, "namespace"), metaString(o.object, "name")];
          queue.add(`owner|${o.storageKey}|${ons}/${oname}`, () => checkOwner(o.storageKey, ons, oname));
        }
      }
      return;
    }
    if (ownerReferencesOf(event.object).length > 0) {
      const ref = { storageKey: event.storageKey, namespace: ns, name };
      queue.add(`dep|${refKey(ref)}`, () => checkDependent(ref));
    }
    if (metaString(event.object, "deletionTimestamp") !== "")
      queue.add(`owner|${event.storageKey}|${ns}/${name}`, () => checkOwner(event.storageKey, ns, name));
  };
  for (const { storageKey, object } of env.store.entries()) index(storageKey, object, true);
  for (const { storageKey, object } of env.store.entries()) {
    const ref = { storageKey, namespace: metaString(object, "namespace"), name: metaString(object, "name") };
    if (ownerReferencesOf(object).length > 0) queue.add(`dep|${refKey(ref)}`, () => checkDependent(ref));
  }
  return env.store.subscribe(onEvent);
}

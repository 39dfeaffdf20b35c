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

const refKey = (r: Ref): string => `${r.storageKey}|${r.namespace}/${r.name}`;

/** Who depends on whom: dependents by their owners' uids, kept in step with the store's events. */
function createDependentIndex(env: ApiEnv) {
  const dependents = new Map<string, Map<string, Ref>>();
  return {
    /** Adds (or removes) an object under each owner it references. */
    index(storageKey: string, object: JsonObject, add: boolean): void {
      const ref = {
        storageKey,
        namespace: metaString(object, "namespace"),
        name: metaString(object, "name"),
      };
      for (const owner of ownerReferencesOf(object)) {
        const uid = typeof owner.uid === "string" ? owner.uid : "";
        const set = dependents.get(uid) ?? new Map<string, Ref>();
        if (add) set.set(refKey(ref), ref);
        else set.delete(refKey(ref));
        if (set.size === 0) dependents.delete(uid);
        else dependents.set(uid, set);
      }
    },
    /** The stored dependents that still reference the owner `uid`. */
    dependentsOf(uid: string): Array<{ ref: Ref; object: JsonObject }> {
      return [...(dependents.get(uid)?.values() ?? [])].flatMap((ref) => {
        const object = env.store.get(ref.storageKey, ref.namespace, ref.name);
        return object !== undefined && ownerReferencesOf(object).some((o) => o.uid === uid)
          ? [{ ref, object }]
          : [];
      });
    },
  };
}
type DependentIndex = ReturnType<typeof createDependentIndex>;

const BACKGROUND = { propagationPolicy: "Background", preconditions: {}, dryRun: false } as const;

/** A dependent whose owners are all gone is deleted; dangling references beside a live owner are dropped. */
function checkDependent(env: ApiEnv, ref: Ref): void {
  const object = env.store.get(ref.storageKey, ref.namespace, ref.name);
  const resource = env.registry.byStorageKey(ref.storageKey);
  if (object === undefined || resource === undefined) return;
  const owners = ownerReferencesOf(object);
  if (owners.length === 0) return;
  const live = owners.filter((o) => typeof o.uid === "string" && env.store.byUid(o.uid) !== undefined);
  if (live.length === 0) performDelete(env, resource, object, { ...BACKGROUND });
  else if (live.length < owners.length)
    internalUpdate(env, resource, { ...object, metadata: { ...metadataOf(object), ownerReferences: live } });
}

/** Removes the references to the owner `uid` from its dependents (`Orphan`). */
function orphan(env: ApiEnv, uid: string, deps: Array<{ ref: Ref; object: JsonObject }>): void {
  for (const { ref, object } of deps) {
    const r = env.registry.byStorageKey(ref.storageKey);
    const refs = ownerReferencesOf(object).filter((o) => o.uid !== uid);
    const metadata: JsonObject = { ...metadataOf(object), ownerReferences: refs };
    if (refs.length === 0) delete metadata.ownerReferences;
    if (r !== undefined) internalUpdate(env, r, { ...object, metadata });
  }
}

/** Deletes an owner's dependents in the background (`Foreground`: the owner waits for them). */
function deleteDependents(env: ApiEnv, deps: Array<{ ref: Ref; object: JsonObject }>): void {
  for (const { ref, object } of deps) {
    const r = env.registry.byStorageKey(ref.storageKey);
    if (r !== undefined) performDelete(env, r, object, { ...BACKGROUND });
  }
}

/** An owner being deleted with `Orphan` or `Foreground`: its dependents handled, then its finalizer removed. */
function checkOwner(
  env: ApiEnv,
  index: DependentIndex,
  storageKey: string,
  namespace: string,
  name: string,
): void {
  const owner = env.store.get(storageKey, namespace, name);
  const resource = env.registry.byStorageKey(storageKey);
  if (owner === undefined || resource === undefined || metaString(owner, "deletionTimestamp") === "") return;
  const uid = metaString(owner, "uid");
  const finalizers = finalizersOf(owner);
  let remove: string | undefined;
  if (finalizers.includes("orphan")) {
    orphan(env, uid, index.dependentsOf(uid));
    remove = "orphan";
  } else if (finalizers.includes("foregroundDeletion")) {
    deleteDependents(env, index.dependentsOf(uid));
    if (index.dependentsOf(uid).length === 0) remove = "foregroundDeletion";
  }
  if (remove === undefined) return;
  const latest = env.store.get(storageKey, namespace, name);
  if (latest === undefined) return;
  const kept = finalizersOf(latest).filter((f) => f !== remove);
  const metadata: JsonObject = { ...metadataOf(latest), finalizers: kept };
  if (kept.length === 0) delete metadata.finalizers;
  internalUpdate(env, resource, { ...latest, metadata });
}

/** Starts collecting; returns the function that stops listening. */
export function startGarbageCollector(env: ApiEnv, queue: WorkQueue): () => void {
  const deps = createDependentIndex(env);
  const queueDependent = (ref: Ref): void => queue.add(`dep|${refKey(ref)}`, () => checkDependent(env, ref));
  const queueOwner = (storageKey: string, ns: string, name: string): void =>
    queue.add(`owner|${storageKey}|${ns}/${name}`, () => checkOwner(env, deps, storageKey, ns, name));

  const onEvent = (event: StoreEvent): void => {
    if (event.previous !== undefined) deps.index(event.storageKey, event.previous, false);
    if (event.type !== "DELETED") deps.index(event.storageKey, event.object, true);
    const ns = metaString(event.object, "namespace");
    const name = metaString(event.object, "name");
    if (event.type === "DELETED") {
      const uid = metaString(event.object, "uid");
      for (const { ref } of deps.dependentsOf(uid)) queueDependent(ref);
      for (const owner of ownerReferencesOf(event.object)) {
        const o = typeof owner.uid === "string" ? env.store.byUid(owner.uid) : undefined;
        if (o !== undefined)
          queueOwner(o.storageKey, metaString(o.object, "namespace"), metaString(o.object, "name"));
      }
      return;
    }
    if (ownerReferencesOf(event.object).length > 0)
      queueDependent({ storageKey: event.storageKey, namespace: ns, name });
    if (metaString(event.object, "deletionTimestamp") !== "") queueOwner(event.storageKey, ns, name);
  };
  for (const { storageKey, object } of env.store.entries()) deps.index(storageKey, object, true);
  for (const { storageKey, object } of env.store.entries()) {
    const ref = { storageKey, namespace: metaString(object, "namespace"), name: metaString(object, "name") };
    if (ownerReferencesOf(object).length > 0) queueDependent(ref);
  }
  return env.store.subscribe(onEvent);
}

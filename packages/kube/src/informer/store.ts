/** The informer's local cache: objects by namespace and name, replaced wholesale on relist. */
import type { ObjectHeader } from "../client/types.js";

/** What a relist changed, for the informer to report as events. */
export interface StoreDiff<T> {
  added: T[];
  updated: Array<{ object: T; old: T }>;
  deleted: T[];
}

/** Objects by namespace ("" for cluster scope) and name. */
export interface ObjectStore<T> {
  /** Stores `object`; returns the previous version. */
  put(object: T): T | undefined;
  /** Removes `object`; returns the version that was stored. */
  remove(object: T): T | undefined;
  get(namespace: string, name: string): T | undefined;
  list(namespace?: string): T[];
  /** Replaces the content with `objects`, returning what changed (same resourceVersion: unchanged). */
  replace(objects: T[]): StoreDiff<T>;
  size(): number;
}

function keyOf(object: ObjectHeader): { namespace: string; name: string } {
  return { namespace: object.metadata?.namespace ?? "", name: object.metadata?.name ?? "" };
}

/** Creates an empty store. */
export function createObjectStore<T extends ObjectHeader>(): ObjectStore<T> {
  let byNamespace = new Map<string, Map<string, T>>();
  let count = 0;

  const put = (object: T): T | undefined => {
    const { namespace, name } = keyOf(object);
    let names = byNamespace.get(namespace);
    if (names === undefined) {
      names = new Map();
      byNamespace.set(namespace, names);
    }
    const old = names.get(name);
    names.set(name, object);
    if (old === undefined) count++;
    return old;
  };

  return {
    put,
    remove(object) {
      const { namespace, name } = keyOf(object);
      const names = byNamespace.get(namespace);
      const old = names?.get(name);
      if (names === undefined || old === undefined) return undefined;
      names.delete(name);
      count--;
      if (names.size === 0) byNamespace.delete(namespace);
      return old;
    },
    get: (namespace, name) => byNamespace.get(namespace)?.get(name),
    list(namespace) {
      if (namespace !== undefined) return [...(byNamespace.get(namespace)?.values() ?? [])];
      const all: T[] = [];
      for (const names of byNamespace.values()) for (const object of names.values()) all.push(object);
      return all;
    },
    replace(objects) {
      const previous = byNamespace;
      byNamespace = new Map();
      count = 0;
      const diff: StoreDiff<T> = { added: [], updated: [], deleted: [] };
      for (const object of objects) {
        const { namespace, name } = keyOf(object);
        const old = previous.get(namespace)?.get(name);
        if (put(object) !== undefined) continue; // a duplicate in the list: the last one wins
        previous.get(namespace)?.delete(name);
        if (old === undefined) diff.added.push(object);
        else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion)
          diff.updated.push({ object, old });
      }
      for (const names of previous.values()) diff.deleted.push(...names.values());
      return diff;
    },
    size: () => count,
  };
}

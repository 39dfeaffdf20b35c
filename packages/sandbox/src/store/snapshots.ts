/**
 * Point-in-time views of one storage key for LIST: its keys sorted once (and again only after a key is
 * added or removed), and the objects as they were at a resourceVersion rebuilt from the event history.
 * A view at a version never changes, so the pages of one chunked list (`limit` / `continue`, all read
 * at the first page's version) share it: a page costs a binary search and the page itself, not a copy
 * and a sort of the whole storage key (which made listing 100,000 reports in pages of 500 quadratic).
 */
import type { JsonObject } from "@kyverno-ts/api";
import type { StoreEvent } from "./history.js";

/** The objects of one storage key at one version, in key (`namespace/name`) order. */
export interface Snapshot {
  /** The keys present at that version, sorted. */
  readonly keys: readonly string[];
  /** The object of a key at that version. */
  objectAt(key: string): JsonObject | undefined;
}

/** Objects from a start key, in key order, with how many there are. */
export interface Scan {
  /** How many objects the scan yields in all (selectors not applied). */
  total: number;
  items: Iterable<JsonObject>;
}

/** The first index whose key is ≥ `key`. */
export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((keys[mid] ?? "") < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The objects of `snapshot` in `namespace` (all when undefined) whose key is ≥ `start`. Keys are
 * `namespace/name`, so a namespace's keys are those in [`ns/`, `ns0`) ("0" follows "/").
 */
export function scanSnapshot(snapshot: Snapshot, namespace: string | undefined, start: string): Scan {
  const { keys } = snapshot;
  const from = namespace === undefined ? start : start > `${namespace}/` ? start : `${namespace}/`;
  const lo = lowerBound(keys, from);
  const hi = namespace === undefined ? keys.length : lowerBound(keys, `${namespace}0`);
  const items: Iterable<JsonObject> = {
    *[Symbol.iterator]() {
      for (let i = lo; i < hi; i++) {
        const object = snapshot.objectAt(keys[i] as string);
        if (object !== undefined) yield object;
      }
    },
  };
  return { total: Math.max(0, hi - lo), items };
}

/**
 * The view of a storage key at an earlier version `at`, from its current objects and sorted keys and
 * the events after `at` (oldest first). `extend` takes later events into account when the view is
 * reused after more writes: the keys at `at` never change, only which objects were overwritten since.
 */
export function snapshotAt(
  current: ReadonlyMap<string, JsonObject>,
  sortedKeys: readonly string[],
  storageKey: string,
  events: readonly StoreEvent[],
): Snapshot & { extend(events: readonly StoreEvent[]): void } {
  /** The state at `at` of every key written since: the object, or undefined when it did not exist. */
  const before = new Map<string, JsonObject | undefined>();
  const extend = (later: readonly StoreEvent[]): void => {
    for (const e of later) {
      if (e.storageKey !== storageKey || before.has(e.key)) continue;
      before.set(e.key, e.type === "ADDED" ? undefined : e.previous);
    }
  };
  extend(events);
  let keys: readonly string[] = sortedKeys;
  if (before.size > 0) {
    const kept = sortedKeys.filter((k) => !before.has(k) || before.get(k) !== undefined);
    const restored = [...before].filter(([k, o]) => o !== undefined && !current.has(k)).map(([k]) => k);
    keys = restored.length === 0 ? kept : [...kept, ...restored].sort();
  }
  return {
    keys,
    objectAt: (key) => (before.has(key) ? before.get(key) : current.get(key)),
    extend,
  };
}

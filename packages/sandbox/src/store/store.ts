/**
 * The object store: every object by storage key and `namespace/name`, a global increasing
 * resourceVersion, a uid index, a bounded event history and synchronous change listeners.
 * Stored objects are frozen snapshots: callers clone before changing them.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { createHistory, type StoreEvent } from "./history.js";
import { type Scan, type Snapshot, scanSnapshot, snapshotAt } from "./snapshots.js";

/** A stored object with where it lives. */
export interface StoredRef {
  storageKey: string;
  object: JsonObject;
}

/** Options of `createStore`. */
export interface StoreOptions {
  /** How many write events are kept for watch resumption and consistent pagination (default 10000). */
  historySize?: number;
  /** Objects to start with (restored from persistence) and the version they are at. */
  initial?: { objects: StoredRef[]; rv: number };
  /** Called after every write, before listeners (persistence). */
  onWrite?: (event: StoreEvent) => void;
}

/** The in-memory object store. */
export interface ObjectStore {
  /** The newest resourceVersion handed out. */
  currentRv(): number;
  get(storageKey: string, namespace: string, name: string): JsonObject | undefined;
  /** Objects of a storage key (in one namespace when given), sorted by namespace then name. */
  list(storageKey: string, namespace?: string): JsonObject[];
  /** The object with this uid, wherever it is. */
  byUid(uid: string): StoredRef | undefined;
  /** Every stored object. */
  entries(): StoredRef[];
  /** Stores a new object; sets its resourceVersion. Throws if it exists (callers check first). */
  create(storageKey: string, object: JsonObject): JsonObject;
  /** Replaces an existing object; sets its resourceVersion. */
  update(storageKey: string, object: JsonObject): JsonObject;
  /** Removes an object; returns its last state at the deletion's resourceVersion. */
  remove(storageKey: string, namespace: string, name: string): JsonObject | undefined;
  /** The newest version whose following events may have been dropped (watches from before it get 410). */
  compactedRv(): number;
  /** Events after `rv` (oldest first), or `undefined` when they are no longer all kept. */
  eventsSince(rv: number): StoreEvent[] | undefined;
  /**
   * The objects of a storage key (in one namespace when given) from key `start` on, as they were at
   * `at` (now when undefined or not older), or `undefined` when `at` is too old. Chunked lists read
   * every page at one version; the view of that version is kept, so a page costs about its size.
   */
  scan(storageKey: string, options: { at?: number; namespace?: string; start?: string }): Scan | undefined;
  /** Registers a listener called synchronously after each write; returns the unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void;
}

/** `namespace/name` key of an object. */
export function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function meta(object: JsonObject): JsonObject {
  const m = object.metadata;
  return m !== null && typeof m === "object" && !Array.isArray(m) ? m : {};
}

function metaString(object: JsonObject, field: string): string {
  const v = meta(object)[field];
  return typeof v === "string" ? v : "";
}

function deepFreeze<T extends JsonValue>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function withRv(object: JsonObject, rv: number): JsonObject {
  return deepFreeze({ ...object, metadata: { ...meta(object), resourceVersion: String(rv) } });
}

/** Creates an empty (or restored) store. */
export function createStore(options: StoreOptions = {}): ObjectStore {
  let rv = options.initial?.rv ?? 0;
  const buckets = new Map<string, Map<string, JsonObject>>();
  const uids = new Map<string, { storageKey: string; key: string }>();
  const history = createHistory(options.historySize ?? 10000, rv);
  const listeners = new Set<(event: StoreEvent) => void>();
  /** Sorted keys per storage key, dropped when a key is added or removed. */
  const sorted = new Map<string, string[]>();
  /** Views of earlier versions for chunked lists (`storageKey@rv`), the most recent few. */
  const views = new Map<string, { asOf: number; view: ReturnType<typeof snapshotAt> }>();
  const sortedKeys = (storageKey: string): string[] => {
    let keys = sorted.get(storageKey);
    if (keys === undefined) {
      keys = [...(buckets.get(storageKey)?.keys() ?? [])].sort();
      sorted.set(storageKey, keys);
    }
    return keys;
  };
  const NO_OBJECTS = new Map<string, JsonObject>();
  /** The view of a storage key at `at` (earlier than now), or undefined when the history no longer has it. */
  const viewAt = (storageKey: string, at: number): Snapshot | undefined => {
    const id = `${storageKey}@${at}`;
    const cached = views.get(id);
    if (cached !== undefined) {
      const later = history.since(cached.asOf);
      if (later !== undefined) {
        cached.view.extend(later);
        cached.asOf = rv;
        views.delete(id);
        views.set(id, cached);
        return cached.view;
      }
      views.delete(id);
    }
    const events = history.since(at);
    if (events === undefined) return undefined;
    const view = snapshotAt(
      buckets.get(storageKey) ?? NO_OBJECTS,
      sortedKeys(storageKey),
      storageKey,
      events,
    );
    views.set(id, { asOf: rv, view });
    for (const old of views.keys()) {
      if (views.size <= 8) break;
      views.delete(old);
    }
    return view;
  };

  const bucket = (storageKey: string): Map<string, JsonObject> => {
    let b = buckets.get(storageKey);
    if (b === undefined) {
      b = new Map();
      buckets.set(storageKey, b);
    }
    return b;
  };
  const keyOf = (object: JsonObject): string =>
    objectKey(metaString(object, "namespace"), metaString(object, "name"));
  const index = (storageKey: string, object: JsonObject): void => {
    const uid = metaString(object, "uid");
    if (uid !== "") uids.set(uid, { storageKey, key: keyOf(object) });
  };
  for (const { storageKey, object } of options.initial?.objects ?? []) {
    const frozen = deepFreeze(structuredClone(object));
    bucket(storageKey).set(keyOf(frozen), frozen);
    index(storageKey, frozen);
  }
  const emit = (event: StoreEvent): void => {
    history.push(event);
    options.onWrite?.(event);
    for (const listener of [...listeners]) listener(event);
  };

  const store: ObjectStore = {
    currentRv: () => rv,
    get: (storageKey, namespace, name) => buckets.get(storageKey)?.get(objectKey(namespace, name)),
    list(storageKey, namespace) {
      const b = buckets.get(storageKey);
      if (b === undefined) return [];
      return [
        ...scanSnapshot({ keys: sortedKeys(storageKey), objectAt: (k) => b.get(k) }, namespace, "").items,
      ];
    },
    byUid(uid) {
      const ref = uids.get(uid);
      const object = ref === undefined ? undefined : buckets.get(ref.storageKey)?.get(ref.key);
      return ref === undefined || object === undefined ? undefined : { storageKey: ref.storageKey, object };
    },
    entries: () =>
      [...buckets].flatMap(([storageKey, b]) => [...b.values()].map((object) => ({ storageKey, object }))),
    create(storageKey, object) {
      const key = keyOf(object);
      const b = bucket(storageKey);
      if (b.has(key)) throw new Error(`object ${storageKey} ${key} already exists`);
      sorted.delete(storageKey);
      rv++;
      const stored = withRv(object, rv);
      b.set(key, stored);
      index(storageKey, stored);
      emit({ rv, type: "ADDED", storageKey, key, object: stored });
      return stored;
    },
    update(storageKey, object) {
      const key = keyOf(object);
      const b = bucket(storageKey);
      const previous = b.get(key);
      if (previous === undefined) throw new Error(`object ${storageKey} ${key} does not exist`);
      rv++;
      const stored = withRv(object, rv);
      b.set(key, stored);
      index(storageKey, stored);
      emit({ rv, type: "MODIFIED", storageKey, key, object: stored, previous });
      return stored;
    },
    remove(storageKey, namespace, name) {
      const key = objectKey(namespace, name);
      const b = buckets.get(storageKey);
      const previous = b?.get(key);
      if (b === undefined || previous === undefined) return undefined;
      b.delete(key);
      sorted.delete(storageKey);
      uids.delete(metaString(previous, "uid"));
      rv++;
      const last = withRv(previous, rv);
      emit({ rv, type: "DELETED", storageKey, key, object: last, previous });
      return last;
    },
    compactedRv: () => history.compactedRv(),
    eventsSince: (since) => history.since(since),
    scan(storageKey, options) {
      const { at, namespace, start = "" } = options;
      if (at !== undefined && at < rv) {
        const view = viewAt(storageKey, at);
        return view === undefined ? undefined : scanSnapshot(view, namespace, start);
      }
      const b = buckets.get(storageKey) ?? NO_OBJECTS;
      return scanSnapshot({ keys: sortedKeys(storageKey), objectAt: (k) => b.get(k) }, namespace, start);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return store;
}

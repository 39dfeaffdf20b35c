/** A bounded ring of recent write events, from which watches resume and old list snapshots are rebuilt. */
import type { JsonObject } from "@kyverno-ts/api";

/** A change to one stored object. */
export interface StoreEvent {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  storageKey: string;
  /** `namespace/name` (`/name` for cluster-scoped objects). */
  key: string;
  /** The object after the change (its last state for DELETED). */
  object: JsonObject;
  /** The object before the change (absent for ADDED). */
  previous?: JsonObject;
}

/** The retained events and the newest version no longer covered by them. */
export interface EventHistory {
  push(event: StoreEvent): void;
  /** Events with `rv > since`, oldest first; `undefined` when some of them were already dropped. */
  since(since: number): StoreEvent[] | undefined;
  /** The newest resource version whose successor events may have been dropped. */
  compactedRv(): number;
}

/** Creates a history keeping the last `capacity` events; `startRv` is the version it starts at. */
export function createHistory(capacity: number, startRv: number): EventHistory {
  const events: StoreEvent[] = [];
  let compacted = startRv;
  return {
    push(event) {
      events.push(event);
      if (events.length > capacity) {
        const dropped = events.splice(0, events.length - capacity);
        compacted = dropped[dropped.length - 1]?.rv ?? compacted;
      }
    },
    since(since) {
      if (since < compacted) return undefined;
      let lo = 0;
      let hi = events.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((events[mid]?.rv ?? 0) <= since) lo = mid + 1;
        else hi = mid;
      }
      return events.slice(lo);
    },
    compactedRv: () => compacted,
  };
}

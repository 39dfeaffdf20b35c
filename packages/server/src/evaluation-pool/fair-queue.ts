/**
 * A fair queue of evaluation jobs: one FIFO lane per tenant (the request's namespace), served round
 * robin, so a tenant whose requests are many or slow waits behind its own requests rather than
 * making everyone else wait. A tenant may also be capped in how many jobs it runs at once, which
 * keeps workers free for the others.
 */

/** The queue; see `createFairQueue`. */
export interface FairQueue<T> {
  /** Appends an item to its tenant's lane. */
  push(tenant: string, item: T): void;
  /**
   * Takes the next item: from the lane after the one served last, skipping tenants for which
   * `eligible` says no (those already running their share). Undefined when nothing can be taken.
   */
  take(eligible?: (tenant: string) => boolean): { tenant: string; item: T } | undefined;
  /** Removes an item (it timed out while waiting); false when it was not queued. */
  remove(tenant: string, item: T): boolean;
  /** Items waiting in every lane. */
  readonly size: number;
}

/** Creates an empty queue. */
export function createFairQueue<T>(): FairQueue<T> {
  // Lanes in the order they are served; an emptied lane is dropped (tenants cannot grow the map).
  const lanes = new Map<string, T[]>();
  let size = 0;
  return {
    get size() {
      return size;
    },
    push(tenant, item) {
      const lane = lanes.get(tenant);
      if (lane === undefined) lanes.set(tenant, [item]);
      else lane.push(item);
      size++;
    },
    take(eligible) {
      for (const [tenant, lane] of lanes) {
        if (eligible !== undefined && !eligible(tenant)) continue;
        const item = lane.shift() as T;
        size--;
        // The served lane moves to the back: the next take starts with the tenant after it.
        lanes.delete(tenant);
        if (lane.length > 0) lanes.set(tenant, lane);
        return { tenant, item };
      }
      return undefined;
    },
    remove(tenant, item) {
      const lane = lanes.get(tenant);
      const at = lane?.indexOf(item) ?? -1;
      if (lane === undefined || at < 0) return false;
      lane.splice(at, 1);
      size--;
      if (lane.length === 0) lanes.delete(tenant);
      return true;
    },
  };
}

/**
 * Handing admission results to the reports controller without ever letting them pile up: the
 * webhook offers, never waits, and a bounded queue drops the oldest results when the consumer falls
 * behind (upstream once filled etcd with millions of intermediate reports).
 */
import type { PolicyResponse, UserInfo } from "@kyverno-ts/engine";

/** What one admitted request produced, for reports: the validate responses of every evaluated policy. */
export interface AdmissionResult {
  /** The AdmissionRequest uid. */
  uid: string;
  /** Milliseconds since epoch (injected clock). */
  timestamp: number;
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  resource: { apiVersion: string; kind: string; namespace: string; name: string; uid: string };
  userInfo?: UserInfo;
  /** One response per evaluated policy (rules that did not match have no entry). */
  responses: readonly PolicyResponse[];
}

/** Where the webhook hands results; `offer` must return immediately and never throw. */
export interface AdmissionResultSink {
  offer(result: AdmissionResult): void;
}

/** A bounded in-memory queue of results, drained by the reports controller. */
export interface BoundedResultQueue extends AdmissionResultSink {
  /** Removes and returns up to `max` results, oldest first. */
  drain(max?: number): AdmissionResult[];
  /** Results waiting. */
  readonly size: number;
  /** Results dropped since creation. */
  readonly dropped: number;
  /** Calls `listener` (synchronously, once per offer) when a result arrives; returns an unsubscribe function. */
  onAvailable(listener: () => void): () => void;
}

/** Options of `createBoundedResultQueue`. */
export interface BoundedResultQueueOptions {
  /** Most results kept; past it the oldest is dropped (default 10,000). */
  capacity?: number;
  /** Told how many results were dropped (wire it to `AdmissionMetrics.resultsDropped`). */
  onDrop?: (count: number) => void;
}

/** Creates a ring buffer of results: `offer` is O(1), drops the oldest when full and counts the drop. */
export function createBoundedResultQueue(options: BoundedResultQueueOptions = {}): BoundedResultQueue {
  const capacity = Math.max(1, options.capacity ?? 10_000);
  const ring: Array<AdmissionResult | undefined> = new Array(capacity);
  const listeners = new Set<() => void>();
  let head = 0;
  let size = 0;
  let dropped = 0;
  return {
    offer(result) {
      if (size === capacity) {
        ring[head] = undefined;
        head = (head + 1) % capacity;
        size--;
        dropped++;
        options.onDrop?.(1);
      }
      ring[(head + size) % capacity] = result;
      size++;
      for (const listener of listeners) {
        try {
          listener();
        } catch {
          // A consumer's failure must not reach the webhook.
        }
      }
    },
    drain(max = Number.POSITIVE_INFINITY) {
      const n = Math.min(size, Math.max(0, max));
      const out: AdmissionResult[] = [];
      for (let i = 0; i < n; i++) {
        out.push(ring[head] as AdmissionResult);
        ring[head] = undefined;
        head = (head + 1) % capacity;
      }
      size -= n;
      return out;
    },
    get size() {
      return size;
    },
    get dropped() {
      return dropped;
    },
    onAvailable(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

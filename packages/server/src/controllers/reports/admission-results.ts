/**
 * Admission results kept for the reports, per resource uid and policy: the newest admission of a
 * resource replaces what a policy said about it before. Bounded: at most `maxResources` resources are
 * kept (the least recently admitted go first; their results live on in the reports, which the
 * reconcile reads back when a resource has no entry here).
 */
import type { PolicyReportResult } from "@kyverno-ts/api";

/** Results of one resource, by policy key (`name` or `namespace/name`). */
export type AdmissionEntry = ReadonlyMap<string, readonly PolicyReportResult[]>;

/** The store; see `createAdmissionResultStore`. */
export interface AdmissionResultStore {
  /** Replaces the results `policy` gave resource `uid` (an empty list keeps the policy's answer: nothing). */
  record(uid: string, policy: string, results: readonly PolicyReportResult[]): void;
  /** Seeds a resource's entry (from its existing report) unless admission results arrived meanwhile. */
  seed(uid: string, byPolicy: ReadonlyMap<string, readonly PolicyReportResult[]>): void;
  get(uid: string): AdmissionEntry | undefined;
  delete(uid: string): void;
  /** Resources held. */
  readonly size: number;
}

/** Creates an empty store holding at most `maxResources` resources (default 10,000). */
export function createAdmissionResultStore(options: { maxResources?: number } = {}): AdmissionResultStore {
  const max = Math.max(1, options.maxResources ?? 10_000);
  const entries = new Map<string, Map<string, readonly PolicyReportResult[]>>();

  const touch = (uid: string): Map<string, readonly PolicyReportResult[]> => {
    let entry = entries.get(uid);
    if (entry !== undefined) entries.delete(uid);
    else entry = new Map();
    entries.set(uid, entry);
    while (entries.size > max) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
    return entry;
  };

  return {
    record(uid, policy, results) {
      touch(uid).set(policy, results);
    },
    seed(uid, byPolicy) {
      if (entries.has(uid)) return;
      const entry = touch(uid);
      for (const [policy, results] of byPolicy) entry.set(policy, results);
    },
    get: (uid) => entries.get(uid),
    delete(uid) {
      entries.delete(uid);
    },
    get size() {
      return entries.size;
    },
  };
}

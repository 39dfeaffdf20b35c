/** The leader election record as stored in a `coordination.k8s.io/v1` Lease. */
import type { ObjectHeader } from "../client/types.js";

/** A Lease object, as far as leader election reads and writes it. */
export interface Lease extends ObjectHeader {
  apiVersion: "coordination.k8s.io/v1";
  kind: "Lease";
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
  };
}

/** Who holds the lease, since when and for how long (client-go's `LeaderElectionRecord`). */
export interface LeaderRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

/** A `metav1.MicroTime`: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** The record of a Lease (missing fields as their zero values). */
export function recordOf(lease: Lease): LeaderRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: spec.holderIdentity ?? "",
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: spec.acquireTime ?? "",
    renewTime: spec.renewTime ?? "",
    leaseTransitions: spec.leaseTransitions ?? 0,
  };
}

/** True when two records are the same (any renewal changes `renewTime`). */
export function sameRecord(a: LeaderRecord | undefined, b: LeaderRecord): boolean {
  return (
    a !== undefined &&
    a.holderIdentity === b.holderIdentity &&
    a.renewTime === b.renewTime &&
    a.acquireTime === b.acquireTime &&
    a.leaseTransitions === b.leaseTransitions &&
    a.leaseDurationSeconds === b.leaseDurationSeconds
  );
}

/**
 * `base` (the Lease as last read, so its labels, annotations and resourceVersion are kept: the write is
 * conditional) carrying `record`; a new Lease when there is no base.
 */
export function leaseWith(namespace: string, name: string, record: LeaderRecord, base?: Lease): Lease {
  if (base === undefined)
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name, namespace },
      spec: { ...record },
    };
  return { ...base, spec: { ...base.spec, ...record } };
}

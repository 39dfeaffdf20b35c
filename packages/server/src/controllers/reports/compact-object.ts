/**
 * How the reports controller's resource informers keep what they watch: each resource's identity (the
 * cache's key, the relist comparison, the work-queue key) as fields, and the rest as the JSON text it
 * came as, decoded again only when a scan evaluates the resource. Tens of thousands of decoded Pods are
 * most of what the controller would otherwise hold: a Pod of `bench:scan` takes about 2.4 KB of heap as
 * objects and 1.2 KB as text, and the text is one string for the collector to trace instead of about 30
 * objects. Evaluation sees exactly the object the API server sent (the text is a lossless copy).
 */
import type { KubeObject } from "@kyverno-ts/api";

/** A cached resource: its identity, and the object as JSON text (`materialize` decodes it). */
export interface CompactObject {
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
  /** The whole object, as the API server sent it. */
  readonly json: string;
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The compact form of a decoded resource (the informer's transform). */
export function compactObject(object: KubeObject): CompactObject {
  const meta = object.metadata;
  const name = text(meta?.name);
  const namespace = text(meta?.namespace);
  const uid = text(meta?.uid);
  const resourceVersion = text(meta?.resourceVersion);
  return {
    metadata: {
      ...(name === undefined ? {} : { name }),
      ...(namespace === undefined ? {} : { namespace }),
      ...(uid === undefined ? {} : { uid }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    json: JSON.stringify(object),
  };
}

/** The resource itself again: a fresh object each time, which the caller may keep or drop. */
export function materialize(compact: CompactObject): KubeObject {
  return JSON.parse(compact.json) as KubeObject;
}

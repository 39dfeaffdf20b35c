/**
 * How the reports controller's resource informers keep what they watch: each resource's identity (the
 * cache's key, the relist comparison, the work-queue key) as fields, and the rest as the JSON text it
 * came as, until a scan takes it. Tens of thousands of decoded Pods would otherwise be most of what the
 * controller holds: a Pod of `bench:scan` takes about 1.9 KB of heap as objects and 1.15 KB as text, and
 * once its scan took the text only the identity (~0.2 KB) is left. The scan after that (a changed
 * policy or namespace, the periodic rescan) reads the resource from the API server, as upstream's scans
 * always do; a change of the resource brings its text again (the watch event), as does a relist.
 * Evaluation sees exactly the object the API server sent (the text is a lossless copy).
 */
import type { KubeObject } from "@kyverno-ts/api";

/** A cached resource: its identity, and the object as JSON text until a scan takes it. */
export interface CompactObject {
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
  /** The whole object as the API server sent it; undefined once a scan took it (`takeJson`). */
  json: string | undefined;
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

/**
 * The cached text of the resource, which the cache then lets go; undefined when a scan took it
 * already. Decoding it is left to the caller (`parseObject`), which may find it needs no decoding (a
 * scan whose inputs did not change).
 */
export function takeJson(compact: CompactObject): string | undefined {
  const { json } = compact;
  if (json === undefined) return undefined;
  compact.json = undefined;
  return json;
}

/** The resource of a text `takeJson` gave (a fresh object the caller may keep or drop). */
export function parseObject(json: string): KubeObject {
  return JSON.parse(json) as KubeObject;
}

import type { JsonValue, KubeObject } from "@kyverno-ts/api";

/**
 * Drops nulls, empty objects and empty arrays, recursively (an object or array that only held such
 * values disappears too), as upstream's `TidyObject` before comparing resources. Returns undefined
 * when nothing is left.
 */
export function tidy(value: JsonValue | undefined): JsonValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(tidy).filter((v): v is JsonValue => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === "object") {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) {
      const t = tidy(v);
      if (t !== undefined) out[k] = t;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}

/** Label prefix of Kyverno's generate bookkeeping labels. */
const GENERATE_LABEL_PREFIX = "generate.kyverno.io/";
const MANAGED_BY = "app.kubernetes.io/managed-by";

/**
 * Removes Kyverno's generate bookkeeping labels (`generate.kyverno.io/*` and managed-by `kyverno`)
 * from a copy of an object, as upstream does before comparing generated resources.
 */
export function withoutGenerateLabels(object: KubeObject): KubeObject {
  const labels = object.metadata?.labels;
  if (!labels) return object;
  const kept = Object.fromEntries(
    Object.entries(labels).filter(
      ([k, v]) => !k.startsWith(GENERATE_LABEL_PREFIX) && !(k === MANAGED_BY && v === "kyverno"),
    ),
  );
  return { ...object, metadata: { ...object.metadata, labels: kept } };
}

/** One difference between two JSON values: a path and the values on each side. */
export interface Difference {
  path: string;
  expected: JsonValue | undefined;
  actual: JsonValue | undefined;
}

function escapePointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Lists up to `limit` differences between two (tidied) values, as JSON-pointer paths. */
export function differences(
  expected: JsonValue | undefined,
  actual: JsonValue | undefined,
  limit = 10,
): Difference[] {
  const out: Difference[] = [];
  const walk = (e: JsonValue | undefined, a: JsonValue | undefined, path: string) => {
    if (out.length >= limit) return;
    if (e === a) return;
    const bothArrays = Array.isArray(e) && Array.isArray(a);
    const bothObjects =
      typeof e === "object" &&
      e !== null &&
      !Array.isArray(e) &&
      typeof a === "object" &&
      a !== null &&
      !Array.isArray(a);
    if (bothArrays) {
      const n = Math.max(e.length, a.length);
      for (let i = 0; i < n; i++) walk(e[i], a[i], `${path}/${i}`);
      return;
    }
    if (bothObjects) {
      const keys = [...new Set([...Object.keys(e), ...Object.keys(a)])].sort();
      for (const k of keys) walk(e[k], a[k], `${path}/${escapePointer(k)}`);
      return;
    }
    if (JSON.stringify(e) !== JSON.stringify(a)) out.push({ path: path || "/", expected: e, actual: a });
  };
  walk(expected, actual, "");
  return out;
}

/** Compares two resources after tidying both; returns the differences (empty when equal). */
export function compareResources(expected: KubeObject, actual: KubeObject): Difference[] {
  return differences(tidy(expected as unknown as JsonValue), tidy(actual as unknown as JsonValue));
}

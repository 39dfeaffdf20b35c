/**
 * Textual rewrites of autogen: variable paths that point into a Pod are moved into the controller's
 * Pod template, and `$(…)` pattern references in messages are shifted past the inserted levels.
 */

/** Which template the generated rule reads the Pod from. */
export type Target = "template" | "cronjob";

type Replacement = readonly [from: string, to: string];

const TEMPLATE = "spec.template";
const CRONJOB_TEMPLATE = "spec.jobTemplate.spec.template";

function replacements(prefixes: readonly string[], template: string): Replacement[] {
  return prefixes.flatMap((p) => [
    [`${p}.spec`, `${p}.${template}.spec`] as const,
    [`${p}.metadata`, `${p}.${template}.metadata`] as const,
  ]);
}

// Upstream replaces, in this order, spec then metadata, object then oldObject, over the rule's JSON.
const VARIABLE_PREFIXES = ["request.object", "request.oldObject"] as const;
// CEL rules name the objects `object` / `oldObject`; `object.spec` also covers `request.object.spec`.
const CEL_PREFIXES = ["object", "oldObject"] as const;

const TABLE: Record<Target, { variables: Replacement[]; cel: Replacement[] }> = {
  template: {
    variables: replacements(VARIABLE_PREFIXES, TEMPLATE),
    cel: replacements(CEL_PREFIXES, TEMPLATE),
  },
  cronjob: {
    variables: replacements(VARIABLE_PREFIXES, CRONJOB_TEMPLATE),
    cel: replacements(CEL_PREFIXES, CRONJOB_TEMPLATE),
  },
};

/**
 * Rewrites one string of a generated rule: `request.object.spec` → `request.object.spec.template.spec`,
 * `request.object.metadata` → `request.object.spec.template.metadata`, the same for `oldObject`, and for
 * CronJob with `spec.jobTemplate.spec.template`. In a `validate.cel` rule the bare CEL names `object` /
 * `oldObject` are rewritten instead. The quoted form `request."object"` is left alone, as upstream.
 */
export function rewritePaths(s: string, target: Target, cel: boolean): string {
  const table = TABLE[target];
  let out = s;
  for (const [from, to] of cel ? table.cel : table.variables) out = out.replaceAll(from, to);
  return out;
}

/** Applies `fn` to every string and object key of a JSON-like value, returning a fresh copy. */
export function mapStrings<T>(value: T, fn: (s: string) => string): T {
  return mapUnknown(value, fn) as T;
}

function mapUnknown(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((v: unknown) => mapUnknown(v, fn));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[fn(k)] = mapUnknown(v, fn);
    return out;
  }
  return value;
}

// `$(…)` at the start or not preceded by a backslash, up to the closing parenthesis before a space.
const REFERENCE = /(?:^|[^\\])\$\(.[^ ]*\)/g;

/**
 * Shifts `$(./../pattern/…)`-style references in a validate message so they still point into the
 * wrapped pattern: `pivot` (`pattern`, `anyPattern/<i>`) gains `/shift` (`spec/template`) after it.
 * References without the pivot are left as they are.
 */
export function shiftReferences(message: string, shift: string, pivot: string): string {
  let out = message;
  for (const match of message.matchAll(REFERENCE)) {
    const found = match[0];
    const lead = found.startsWith("$(") ? "" : found.slice(0, 1);
    const reference = found.slice(lead.length);
    const at = reference.indexOf(pivot);
    if (at < 0) continue;
    let fullPivot = pivot;
    if (pivot === "anyPattern") {
      const index = reference.slice(at + pivot.length + 1).split("/")[0] ?? "";
      fullPivot = `${pivot}/${index}`;
    }
    const shifted = reference.replaceAll(fullPivot, `${fullPivot}/${shift}`);
    out = out.replaceAll(found, lead + shifted);
  }
  return out;
}

/**
 * The field selector of list/watch requests (`metadata.name=x,metadata.namespace!=y`): only `=`, `==`
 * and `!=` on the fields a resource declares selectable, as the real server allows.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";

/** One parsed field requirement. */
export interface FieldRequirement {
  field: string;
  negate: boolean;
  value: string;
}

/** A parsed field selector: every requirement must hold. */
export interface FieldSelectorQuery {
  requirements: FieldRequirement[];
}

/** Parse result: the selector, or the reason it is not valid (sent as a 400). */
export type ParsedFieldSelector = { ok: true; selector: FieldSelectorQuery } | { ok: false; error: string };

/** Fields every resource can be selected on. */
export const COMMON_SELECTABLE_FIELDS: readonly string[] = ["metadata.name", "metadata.namespace"];

/**
 * Parses the `fieldSelector` query parameter; `allowed` lists the selectable fields of the resource
 * (anything else is `field label not supported`).
 */
export function parseFieldSelector(text: string, allowed: readonly string[]): ParsedFieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const match = /^([^=!]+)(==|=|!=)(.*)$/.exec(part);
    if (match === null)
      return { ok: false, error: `invalid selector: '${text}'; can't understand '${part}'` };
    const field = (match[1] ?? "").trim();
    if (!allowed.includes(field)) return { ok: false, error: `field label not supported: ${field}` };
    requirements.push({ field, negate: match[2] === "!=", value: unescapeValue(match[3] ?? "") });
  }
  return { ok: true, selector: { requirements } };
}

function unescapeValue(value: string): string {
  return value.replace(/\\(.)/g, "$1");
}

/** Whether the object's fields satisfy every requirement. */
export function matchesFields(selector: FieldSelectorQuery, object: JsonObject): boolean {
  return selector.requirements.every((r) => (fieldValue(object, r.field) === r.value) !== r.negate);
}

/** The selectable string value of a dotted field path (`""` when absent, booleans as `true`/`false`). */
export function fieldValue(object: JsonObject, path: string): string {
  let current: JsonValue | undefined = object;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return "";
    current = current[part];
  }
  if (typeof current === "string") return current;
  if (typeof current === "number" || typeof current === "boolean") return String(current);
  return "";
}

/** The single `metadata.name=x` (or `metadata.namespace=x`) value a selector pins, to narrow a scan. */
export function pinnedValue(selector: FieldSelectorQuery, field: string): string | undefined {
  return selector.requirements.find((r) => r.field === field && !r.negate)?.value;
}

/**
 * Field length limits (in UTF-16 code units) applied during normalisation, so every value fits
 * the store's columns on all three databases (MySQL's index key limit is the tightest).
 */
import type { ModelIssue } from "./issues.js";

/** Maximum lengths of normalised fields; longer values are truncated with an issue. */
export const FIELD_LIMITS = {
  message: 4096,
  name: 253,
  namespace: 63,
  kind: 128,
  apiVersion: 253,
  uid: 128,
  source: 128,
  policy: 253,
  rule: 253,
  category: 253,
  id: 128,
  propertyKey: 253,
  propertyValue: 1024,
  labelKey: 317,
  labelValue: 253,
} as const;

/** A field with a length limit. */
export type LimitedField = keyof typeof FIELD_LIMITS;

/** The marker appended to truncated values. */
export const TRUNCATION_MARKER = "…";

/**
 * Returns `value` cut to the limit of `field` (ending in {@link TRUNCATION_MARKER}, never splitting
 * a surrogate pair), recording a `FIELD_TRUNCATED` issue at `path` when it was too long.
 */
export function limit(value: string, field: LimitedField, path: string, issues: ModelIssue[]): string {
  const max = FIELD_LIMITS[field];
  if (value.length <= max) return value;
  let end = max - TRUNCATION_MARKER.length;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  issues.push({
    code: "FIELD_TRUNCATED",
    path,
    message: `${field} of ${value.length} characters truncated to ${max}`,
  });
  return value.slice(0, end) + TRUNCATION_MARKER;
}

/**
 * Report, result and resource IDs. Report and result IDs follow Policy Reporter (fnv-1a 64 over
 * the fields the inventory documents, printed in decimal); they are what the API returns and what
 * the seen-results cache keys on, so changing a composition here re-notifies every result.
 */
import { fnv1a64 } from "./fnv.js";
import { FIELD_LIMITS } from "./limits.js";

/** The result property that, when present, is used as the result ID verbatim. */
export const RESULT_ID_PROPERTY = "resultID";

/** Separator between the hashed fields. */
const SEP = "__";

/** Report ID: fnv-1a 64 of `namespace__name`, or of `name` for cluster reports. */
export function reportId(namespace: string, name: string): string {
  return fnv1a64(namespace ? `${namespace}${SEP}${name}` : name);
}

/** The fields a result ID is computed from. */
export interface ResultIdFields {
  resourceName: string;
  resourceUid: string;
  policy: string;
  rule: string;
  /** The status as written in the report (`result`). */
  status: string;
  /** The category as written in the report (before defaulting to `Other`). */
  category: string;
  message: string;
  properties?: Readonly<Record<string, string>>;
}

/**
 * Result ID: the `resultID` property if present (hashed when longer than the ID column), else
 * fnv-1a 64 of resource name + uid, policy, rule, result, category and message joined by `__`.
 */
export function resultId(fields: ResultIdFields): string {
  const own = fields.properties?.[RESULT_ID_PROPERTY];
  if (own) return own.length > FIELD_LIMITS.id ? fnv1a64(own) : own;
  return fnv1a64(
    [
      fields.resourceName + fields.resourceUid,
      fields.policy,
      fields.rule,
      fields.status,
      fields.category,
      fields.message,
    ].join(SEP),
  );
}

/** Resource ID: fnv-1a 64 of the uid, or of `apiVersion/kind/namespace/name` for objects without one. */
export function resourceId(ref: {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}): string {
  return fnv1a64(ref.uid ? ref.uid : `${ref.apiVersion}/${ref.kind}/${ref.namespace}/${ref.name}`);
}

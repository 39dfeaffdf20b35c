/** Schemas of Kubernetes building blocks: object metadata, label selectors, generic objects. */
import type { Issue } from "../load/errors.js";
import type { JsonObject } from "../policy/json.js";
import { objects, structure } from "./checks.js";
import { type Check, type ObjectSchema, s } from "./dsl.js";

/** `metadata` of any Kubernetes object. */
export const objectMeta: ObjectSchema = s.object({
  name: s.string(),
  generateName: s.string(),
  namespace: s.string(),
  selfLink: s.string(),
  uid: s.string(),
  resourceVersion: s.string(),
  generation: s.integer(),
  creationTimestamp: s.string(),
  deletionTimestamp: s.string(),
  deletionGracePeriodSeconds: s.integer(),
  labels: s.stringMap(),
  annotations: s.stringMap(),
  ownerReferences: s.array(s.any()),
  finalizers: s.strings(),
  managedFields: s.array(s.any()),
});

/** `metadata` that must carry a name. */
export const namedMeta: ObjectSchema = { ...objectMeta, required: ["name"] };

const requirementValues: Check<JsonObject> = (o, path) => {
  const op = o.operator;
  const count = Array.isArray(o.values) ? o.values.length : 0;
  if ((op === "In" || op === "NotIn") && count === 0) {
    return [structure(path, `values must not be empty for operator ${JSON.stringify(op)}`)];
  }
  if ((op === "Exists" || op === "DoesNotExist") && count > 0) {
    return [structure(path, `values must be empty for operator ${JSON.stringify(op)}`)];
  }
  return [];
};

/** A label selector (`matchLabels`, `matchExpressions`). */
export const labelSelector = s.object({
  matchLabels: s.stringMap(),
  matchExpressions: s.array(
    s.object(
      { key: s.string(), operator: s.enum(["In", "NotIn", "Exists", "DoesNotExist"]), values: s.strings() },
      { required: ["key", "operator"], checks: [requirementValues] },
    ),
  ),
});

/** A label selector that must select on something, as upstream requires of `resources.selector`. */
export const nonEmptySelector: typeof labelSelector = {
  ...labelSelector,
  checks: [
    (o, path): Issue[] =>
      Object.keys(o.matchLabels ?? {}).length === 0 && objects(o, "matchExpressions").length === 0
        ? [structure(path, "the requirements are not specified in selector")]
        : [],
  ],
};

/** Any Kubernetes object: typed metadata, everything else free. */
export const kubeObject: ObjectSchema = s.object(
  { apiVersion: s.string(), kind: s.string(), metadata: objectMeta },
  { open: true },
);

/**
 * Small builders for the JSON Schemas of the charts' values (draft 2020-12, as Helm 4 validates
 * them). Objects are closed by default (`additionalProperties: false`), so a misspelt key is refused
 * with its name; `unsupported()` pins a value to its upstream default, so asking for a feature we do
 * not have fails with the key's path instead of being ignored.
 */

/** A JSON Schema node. */
export type Schema = Record<string, unknown>;

/** With a description (shown by editors, and the README's source). */
function described(schema: Schema, description?: string): Schema {
  return description === undefined ? schema : { ...schema, description };
}

/** A string. */
export const str = (description?: string): Schema => described({ type: "string" }, description);
/** A string or null (Helm's `~`). */
export const optionalStr = (description?: string): Schema =>
  described({ type: ["string", "null"] }, description);
/** A boolean. */
export const bool = (description?: string): Schema => described({ type: "boolean" }, description);
/** An integer, at least `minimum`. */
export const int = (minimum?: number, description?: string): Schema =>
  described({ type: "integer", ...(minimum === undefined ? {} : { minimum }) }, description);
/** One of the listed strings. */
export const oneOf = (values: readonly string[], description?: string): Schema =>
  described({ type: "string", enum: values }, description);
/** A list of `items`. */
export const list = (items: Schema = {}, description?: string): Schema =>
  described({ type: "array", items }, description);
/** A mapping with free keys whose values match `values` (default: anything). */
export const map = (values: Schema = {}, description?: string): Schema =>
  described({ type: "object", additionalProperties: values }, description);
/** A list of strings. */
export const strList = (description?: string): Schema => list({ type: "string" }, description);
/** A mapping of strings (labels, annotations, headers). */
export const strMap = (description?: string): Schema => map({ type: "string" }, description);
/** Any value: a subtree passed to Kubernetes as is (affinity, probes, volumes). */
export const any = (description?: string): Schema => described({}, description);

/** A closed object: only `properties`. */
export function obj(properties: Record<string, Schema>, description?: string): Schema {
  return described({ type: "object", additionalProperties: false, properties }, description);
}

/** An object that may hold more keys than `properties` (upstream keys that have no effect here). */
export function openObj(properties: Record<string, Schema>, description?: string): Schema {
  return described({ type: "object", properties }, description);
}

/** A value we do not support: only its upstream default is accepted (`value must be false`). */
export function unsupported(defaultValue: unknown, description: string): Schema {
  return { const: defaultValue, description: `Not supported by kyverno-ts: ${description}` };
}

/** A list we do not support: only the empty list is accepted. */
export function unsupportedList(description: string): Schema {
  return { type: "array", maxItems: 0, description: `Not supported by kyverno-ts: ${description}` };
}

/** Accepted for compatibility with upstream values files, and without effect here. */
export function noEffect(schema: Schema, why: string): Schema {
  return { ...schema, description: `Accepted, no effect: ${why}` };
}

/** `{include, exclude}` lists of patterns. */
export const includeExclude = (): Schema => obj({ include: strList(), exclude: strList() });

/** A Kubernetes object name (or empty: not set). */
export const secretName = (description?: string): Schema =>
  described({ type: "string", pattern: "^$|^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$", maxLength: 253 }, description);

/** The shared steps of every loader: validate against a schema, run checks, tie problems to the file. */

import type { JsonObject, JsonValue } from "../policy/types.js";
import { isObject, type Schema } from "../schema/dsl.js";
import { validate } from "../schema/validate.js";
import { type Issue, type LoadError, type Loaded, toLoadErrors, type Where } from "./errors.js";

/** Options of `loadWith`. */
export interface LoadSteps {
  /** Checks run on the cleaned value when the schema found no error. */
  checks?: (value: JsonObject) => Issue[];
  /** Issues found on the raw value (typically deprecation warnings). */
  raw?: (value: JsonObject) => Issue[];
}

/**
 * Validates `value` against `schema` and returns the cleaned object, or every error. The caller
 * casts the result to its wire type: the schema is what makes that cast sound.
 */
export function loadWith(
  schema: Schema,
  value: JsonValue,
  where: Where,
  steps: LoadSteps = {},
): Loaded<JsonObject> {
  if (!isObject(value))
    return failed(where, [{ code: "wrong-type", path: [], message: "expected an object" }]);
  const result = validate(schema, value);
  const issues = [...(steps.raw?.(value) ?? []), ...result.issues];
  if (!issues.some((i) => i.warning !== true) && steps.checks !== undefined && isObject(result.value)) {
    issues.push(...steps.checks(result.value));
  }
  const { errors, warnings } = toLoadErrors(issues, where);
  if (errors.length > 0 || !isObject(result.value)) return { ok: false, errors };
  return { ok: true, value: result.value, warnings };
}

/** A failed load with the given issues. */
export function failed(where: Where, issues: readonly Issue[]): { ok: false; errors: LoadError[] } {
  const { errors, warnings } = toLoadErrors(issues, where);
  return { ok: false, errors: [...errors, ...warnings] };
}

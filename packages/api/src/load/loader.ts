/** The shared steps of every loader: validate against a schema, run checks, tie problems to the file. */

import type { JsonObject, JsonValue } from "../policy/json.js";
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

/** What `loadWith` returns for a schema of `T`: `T`, or a JSON object for an untyped schema. */
type Loads<T> = unknown extends T ? JsonObject : T;

/**
 * Validates `value` against `schema` and returns the cleaned object, typed as the schema's values
 * (`Infer<typeof schema>`; a JSON object for an untyped `Schema`), or every error.
 */
export function loadWith<T>(
  schema: Schema<T>,
  value: JsonValue,
  where: Where,
  steps: LoadSteps = {},
): Loaded<Loads<T>> {
  if (!isObject(value))
    return failed(where, [{ code: "wrong-type", path: [], message: "expected an object" }]);
  const result = validate(schema, value);
  const issues = [...(steps.raw?.(value) ?? []), ...result.issues];
  if (!issues.some((i) => i.warning !== true) && steps.checks !== undefined && isObject(result.value)) {
    issues.push(...steps.checks(result.value));
  }
  const { errors, warnings } = toLoadErrors(issues, where);
  if (errors.length > 0 || !isObject(result.value)) return { ok: false, errors };
  return { ok: true, value: conforming(schema, result.value), warnings };
}

/** A failed load with the given issues. */
export function failed(where: Where, issues: readonly Issue[]): { ok: false; errors: LoadError[] } {
  const { errors, warnings } = toLoadErrors(issues, where);
  return { ok: false, errors: [...errors, ...warnings] };
}

/**
 * A value that `validate` found free of errors against `schema`, typed as the schema's values: the one
 * place where a validated JSON value becomes its wire type (what `validate` checks is what `Infer` reads).
 */
function conforming<T>(_schema: Schema<T>, value: JsonObject): Loads<T> {
  return value as Loads<T>;
}

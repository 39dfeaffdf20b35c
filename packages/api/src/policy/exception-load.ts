/** Loading kyverno.io/v2 and v2beta1 PolicyException documents. */
import type { Issue, Loaded, Where } from "../load/errors.js";
import { failed, loadWith } from "../load/loader.js";
import { obj, structure } from "../schema/checks.js";
import { isObject } from "../schema/dsl.js";
import type { PolicyException } from "./exception.js";
import { exceptionSchema } from "./exception-schema.js";
import type { JsonObject, JsonValue } from "./json.js";
import { filtersOf, userInfoField } from "./schema-match.js";

/** The apiVersions of PolicyException this loader accepts. */
const EXCEPTION_API_VERSIONS: readonly string[] = ["kyverno.io/v2", "kyverno.io/v2beta1"];

/** With background processing (the default) there is no admission request, so user info cannot be matched. */
function exceptionIssues(doc: JsonObject): Issue[] {
  const spec = obj(doc, "spec");
  if (spec?.background === false) return [];
  return filtersOf(obj(spec, "match"), ["spec", "match"]).flatMap(({ filter, path }) => {
    const user = userInfoField(filter);
    return user === undefined
      ? []
      : [structure([...path, user], `${user} cannot be used when background processing is enabled`)];
  });
}

/**
 * Validates a kyverno.io/v2 or v2beta1 PolicyException: unknown fields, wrong types and what
 * upstream rejects at admission are errors.
 */
export function loadPolicyException(value: JsonValue, where: Where): Loaded<PolicyException> {
  if (!isObject(value))
    return failed(where, [{ code: "wrong-type", path: [], message: "expected a PolicyException object" }]);
  if (value.kind !== "PolicyException") {
    const message = `expected kind PolicyException, got ${JSON.stringify(value.kind ?? null)}`;
    return failed(where, [{ code: "unsupported-kind", path: ["kind"], message }]);
  }
  if (typeof value.apiVersion !== "string" || !EXCEPTION_API_VERSIONS.includes(value.apiVersion)) {
    const message = `unsupported apiVersion ${JSON.stringify(value.apiVersion ?? null)} for PolicyException: use ${EXCEPTION_API_VERSIONS.join(" or ")}`;
    return failed(where, [{ code: "unsupported-kind", path: ["apiVersion"], message }]);
  }
  return loadWith(exceptionSchema, value, where, { checks: exceptionIssues });
}

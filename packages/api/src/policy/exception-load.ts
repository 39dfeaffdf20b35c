/** Loading kyverno.io/v2 and v2beta1 PolicyException documents. */
import type { Issue, Loaded, Where } from "../load/errors.js";
import { failed, loadWith } from "../load/loader.js";
import { arr, obj, objects, str, structure } from "../schema/checks.js";
import { isObject } from "../schema/dsl.js";
import { podSecurityExcludesIssues } from "./checks-pod-security.js";
import type { PolicyException } from "./exception.js";
import { exceptionSchema } from "./exception-schema.js";
import type { JsonObject, JsonValue } from "./json.js";
import { filtersOf, userInfoField } from "./schema-match.js";

/** The apiVersions of PolicyException this loader accepts. */
const EXCEPTION_API_VERSIONS: readonly string[] = ["kyverno.io/v2", "kyverno.io/v2beta1"];

/**
 * Upstream's admission checks of an exception: with background processing (the default) there is no
 * admission request, so user info cannot be matched; every exception names a policy; Pod Security
 * exclusions follow the rules of a policy's `podSecurity.exclude`.
 */
function exceptionIssues(doc: JsonObject): Issue[] {
  const spec = obj(doc, "spec");
  const issues: Issue[] = [];
  if (spec?.background !== false) {
    for (const { filter, path } of filtersOf(obj(spec, "match"), ["spec", "match"])) {
      const user = userInfoField(filter);
      if (user !== undefined)
        issues.push(
          structure([...path, user], `${user} cannot be used when background processing is enabled`),
        );
    }
  }
  objects(spec, "exceptions").forEach((e, i) => {
    if (str(e, "policyName")?.trim() === "")
      issues.push({
        code: "missing-field",
        path: ["spec", "exceptions", i, "policyName"],
        message: "An exception requires a policy name",
      });
    if (arr(e, "ruleNames").length === 0)
      issues.push({
        code: "missing-field",
        path: ["spec", "exceptions", i, "ruleNames"],
        message: "no rule names: this exception applies to no rule",
        warning: true,
      });
  });
  issues.push(...podSecurityExcludesIssues(objects(spec, "podSecurity"), ["spec", "podSecurity"]));
  return issues;
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

/** Loading kyverno.io ClusterPolicy / Policy documents into typed `Policy` values. */
import type { Loaded, Where } from "../load/errors.js";
import { failed, loadWith } from "../load/loader.js";
import { isObject } from "../schema/dsl.js";
import { lowercaseActionWarnings, type PolicyCheckOptions, policyIssues } from "./checks.js";
import type { JsonValue } from "./json.js";
import { policyV1, policyV2beta1 } from "./schema.js";
import type { Policy } from "./types.js";

/** The apiVersions of ClusterPolicy / Policy this loader accepts. */
const POLICY_API_VERSIONS: readonly string[] = ["kyverno.io/v1", "kyverno.io/v2beta1"];

/**
 * Validates a kyverno.io/v1 or v2beta1 ClusterPolicy / Policy and applies upstream defaults
 * (validationFailureAction Audit, background and admission true, emitWarning false, failurePolicy
 * Fail, applyRules All); lower-case `audit`/`enforce` become `Audit`/`Enforce` with a warning.
 * Unknown fields, wrong types and what upstream rejects at admission are errors; `options.scopeOf`
 * answers whether a kind is cluster-scoped (the API server's discovery) for the generate checks.
 * Use `classifyDocument` first when a file may hold other kinds.
 */
export function loadPolicy(value: JsonValue, where: Where, options: PolicyCheckOptions = {}): Loaded<Policy> {
  if (!isObject(value))
    return failed(where, [
      { code: "wrong-type", path: [], message: "expected a ClusterPolicy or Policy object" },
    ]);
  const kind = value.kind;
  if (kind !== "ClusterPolicy" && kind !== "Policy") {
    const message = `expected kind ClusterPolicy or Policy, got ${JSON.stringify(kind ?? null)}`;
    return failed(where, [{ code: "unsupported-kind", path: ["kind"], message }]);
  }
  const apiVersion = value.apiVersion;
  const schema =
    apiVersion === "kyverno.io/v1"
      ? policyV1
      : apiVersion === "kyverno.io/v2beta1"
        ? policyV2beta1
        : undefined;
  if (schema === undefined) {
    const message = `unsupported apiVersion ${JSON.stringify(apiVersion ?? null)} for ${kind}: use ${POLICY_API_VERSIONS.join(" or ")}`;
    return failed(where, [{ code: "unsupported-kind", path: ["apiVersion"], message }]);
  }
  // `Policy` is inferred from the schema, whose defaults fill the required spec fields.
  return loadWith(schema, value, where, {
    checks: (doc) => policyIssues(doc, options),
    raw: lowercaseActionWarnings,
  });
}

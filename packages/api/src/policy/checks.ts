/** Checks across a whole policy that upstream runs at admission (they need the kind or spec-level settings). */
import type { Issue, PathSegment } from "../load/errors.js";
import { isSet, obj, objects, str, structure } from "../schema/checks.js";
import type { JsonObject } from "./json.js";
import { filtersOf, kindsOf, userInfoField } from "./schema-match.js";

/** Policy-level checks on a validated policy document. */
export function policyIssues(policy: JsonObject): Issue[] {
  const spec = obj(policy, "spec") ?? {};
  const namespaced = policy.kind === "Policy";
  const background = spec.background !== false;
  const specAudit = (str(spec, "validationFailureAction") ?? "Audit") === "Audit";
  const issues: Issue[] = [...timeoutIssues(spec)];
  objects(spec, "rules").forEach((rule, i) => {
    const at: PathSegment[] = ["spec", "rules", i];
    const blocks = [
      ...filtersOf(obj(rule, "match"), [...at, "match"]),
      ...filtersOf(obj(rule, "exclude"), [...at, "exclude"]),
    ];
    for (const { filter, path } of blocks) {
      if (namespaced && isSet(obj(filter, "resources")?.namespaces)) {
        issues.push(
          structure(
            [...path, "resources", "namespaces"],
            "filtering namespaces is not allowed in a namespaced Policy",
          ),
        );
      }
      const user = userInfoField(filter);
      if (background && user !== undefined) {
        issues.push(
          structure(
            [...path, user],
            `${user} cannot be used in background mode; set spec.background to false`,
          ),
        );
      }
    }
    for (const { filter, path } of filtersOf(obj(rule, "match"), [...at, "match"])) {
      issues.push(...wildcardIssues(kindsOf(filter), rule, background, [...path, "resources", "kinds"]));
    }
    objects(rule, "verifyImages").forEach((iv, j) => {
      const action = str(iv, "failureAction");
      const audit = action === undefined ? specAudit : action === "Audit";
      if (audit && iv.mutateDigest === true) {
        issues.push(
          structure(
            [...at, "verifyImages", j, "mutateDigest"],
            "mutateDigest must be false when the failure action is Audit",
          ),
        );
      }
    });
  });
  return issues;
}

/** Upstream's limits on rules matching every kind (`*`). */
function wildcardIssues(
  kinds: readonly string[],
  rule: JsonObject,
  background: boolean,
  path: PathSegment[],
): Issue[] {
  if (!kinds.includes("*")) return [];
  if (background)
    return [structure(path, "wildcard policy not allowed in background mode; set spec.background to false")];
  if (kinds.length > 1) return [structure(path, "a wildcard kind cannot be combined with other kinds")];
  if (isSet(rule.generate) || isSet(rule.verifyImages) || isSet(obj(rule, "validate")?.foreach)) {
    return [structure(path, "a wildcard kind does not support this rule type")];
  }
  return [];
}

function timeoutIssues(spec: JsonObject): Issue[] {
  const out: Issue[] = [];
  const check = (value: unknown, path: PathSegment[]) => {
    if (typeof value === "number" && (value < 1 || value > 30)) {
      out.push({ code: "invalid-value", path, message: "the timeout must be between 1 and 30 seconds" });
    }
  };
  check(spec.webhookTimeoutSeconds, ["spec", "webhookTimeoutSeconds"]);
  check(obj(spec, "webhookConfiguration")?.timeoutSeconds, [
    "spec",
    "webhookConfiguration",
    "timeoutSeconds",
  ]);
  return out;
}

/** Upstream warns about the lower-case spellings of failure actions, which it still accepts. */
export function lowercaseActionWarnings(raw: JsonObject): Issue[] {
  const spec = obj(raw, "spec");
  const lower = (v: unknown) => v === "audit" || v === "enforce";
  const paths: PathSegment[][] = [];
  if (lower(spec?.validationFailureAction)) paths.push(["spec", "validationFailureAction"]);
  objects(spec, "validationFailureActionOverrides").forEach((o, i) => {
    if (lower(o.action)) paths.push(["spec", "validationFailureActionOverrides", i, "action"]);
  });
  return paths.map((path) => ({
    code: "deprecated",
    path,
    message: "the failure actions enforce/audit are deprecated, use Enforce/Audit instead",
    warning: true,
  }));
}

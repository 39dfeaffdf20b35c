/** Checks across a whole policy that upstream runs at admission (they need the kind or spec-level settings). */
import type { Issue, PathSegment } from "../load/errors.js";
import { isSet, obj, objects, str, structure } from "../schema/checks.js";
import { backgroundRuleIssues } from "./checks-background.js";
import { podSecurityExcludesIssues } from "./checks-pod-security.js";
import { variableIssues } from "./checks-variables.js";
import type { JsonObject } from "./json.js";
import { filtersOf, kindsOf, userInfoField } from "./schema-match.js";
import { builtinScopeOf, type ScopeOf } from "./scope.js";
import { subresourceOf } from "./subresource.js";

/** What the policy checks may ask of the cluster; every field is optional. */
export interface PolicyCheckOptions {
  /**
   * Whether a kind is cluster-scoped or namespaced (the API server's discovery). Defaults to a
   * built-in table of Kubernetes and Kyverno kinds; kinds it does not know are not judged.
   */
  readonly scopeOf?: ScopeOf;
}

/** Policy-level checks on a validated policy document. */
export function policyIssues(policy: JsonObject, options: PolicyCheckOptions = {}): Issue[] {
  const spec = obj(policy, "spec") ?? {};
  const namespaced = policy.kind === "Policy";
  const background = spec.background !== false;
  const specAudit = (str(spec, "validationFailureAction") ?? "Audit") === "Audit";
  const issues: Issue[] = [...timeoutIssues(spec)];
  if (spec.admission === false && !background)
    issues.push(
      structure(["spec", "admission"], "disabling both admission and background processing is not allowed"),
    );
  issues.push(...variableIssues(spec, background));
  const policyNamespace = namespaced ? (str(obj(policy, "metadata"), "namespace") ?? "default") : undefined;
  issues.push(...backgroundRuleIssues(spec, { policyNamespace, scopeOf: options.scopeOf ?? builtinScopeOf }));
  issues.push(...ruleWarnings(policy));
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
      const kindsPath = [...path, "resources", "kinds"];
      issues.push(...wildcardIssues(kindsOf(filter), rule, background, kindsPath));
      if (background && isSet(rule.validate)) issues.push(...subresourceIssues(kindsOf(filter), kindsPath));
    }
    const podSecurity = obj(obj(rule, "validate"), "podSecurity");
    issues.push(
      ...podSecurityExcludesIssues(objects(podSecurity, "exclude"), [
        ...at,
        "validate",
        "podSecurity",
        "exclude",
      ]),
    );
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

/** A background scan reads stored objects: a validate rule on a subresource has nothing to scan. */
function subresourceIssues(kinds: readonly string[], path: PathSegment[]): Issue[] {
  return kinds.flatMap((kind, i) => {
    const sub = subresourceOf(kind);
    return sub === "" || sub === "*"
      ? []
      : [
          structure(
            [...path, i],
            `background scan enabled with subresource ${kind}; set spec.background to false`,
          ),
        ];
  });
}

const AUTOGEN_ANNOTATION = "pod-policies.kyverno.io/autogen-controllers";
const DEFAULT_CONTROLLERS = "cronjob,daemonset,deployment,job,statefulset";

/** The warnings upstream returns with an accepted policy about rules that match Pods directly. */
function ruleWarnings(policy: JsonObject): Issue[] {
  const controllers = str(obj(obj(policy, "metadata"), "annotations"), AUTOGEN_ANNOTATION);
  const excludesControllers =
    controllers !== undefined &&
    controllers !== "none" &&
    controllers.toLowerCase().split(",").sort().join(",") !== DEFAULT_CONTROLLERS;
  const warnings: Issue[] = [];
  objects(obj(policy, "spec"), "rules").forEach((rule, i) => {
    const kinds = new Set(filtersOf(obj(rule, "match"), []).flatMap(({ filter }) => kindsOf(filter)));
    const at: PathSegment[] = ["spec", "rules", i];
    if (kinds.has("Pod") && isSet(obj(rule, "mutate")?.patchesJson6902))
      warnings.push({
        code: "invalid-structure",
        path: [...at, "mutate", "patchesJson6902"],
        message:
          "Pods managed by workload controllers should not be directly mutated using policies. Use the autogen feature or write policies that match Pod controllers.",
        warning: true,
      });
    if (excludesControllers && kinds.size === 1 && kinds.has("Pod"))
      warnings.push({
        code: "invalid-structure",
        path: [...at, "match"],
        message:
          "Policies that match Pods apply to all Pods including those created and managed by controllers excluded from autogen. Use preconditions to exclude the Pods managed by controllers which are excluded from autogen. Refer to https://kyverno.io/docs/writing-policies/autogen/ for details.",
        warning: true,
      });
  });
  return warnings;
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
    message: "Validation failure actions enforce/audit are deprecated, use Enforce or Audit instead.",
    warning: true,
  }));
}

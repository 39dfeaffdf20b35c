/**
 * Upstream's admission checks of the rules the background controller runs: generate rules (scope of
 * the target and the clone sources, a namespaced Policy's own namespace) and mutate-existing rules
 * (targets required, a namespaced Policy's targets in its namespace), plus the deprecated spec fields
 * that steer them.
 */
import type { Issue, PathSegment } from "../load/errors.js";
import { arr, isPresent, isSet, obj, objects, str, structure } from "../schema/checks.js";
import type { JsonObject } from "./json.js";
import type { ScopeOf } from "./scope.js";
import { hasVariable } from "./variables.js";

/** Where the checks run: the policy's namespace for a namespaced Policy, and how kinds are scoped. */
export interface BackgroundCheckEnv {
  /** Set for a namespaced `Policy`. */
  readonly policyNamespace: string | undefined;
  readonly scopeOf: ScopeOf;
}

/** Every check of generate and mutate-existing rules, and of the spec fields steering them. */
export function backgroundRuleIssues(spec: JsonObject, env: BackgroundCheckEnv): Issue[] {
  const issues: Issue[] = [...deprecatedSpecIssues(spec)];
  objects(spec, "rules").forEach((rule, i) => {
    const at: PathSegment[] = ["spec", "rules", i];
    const generate = obj(rule, "generate");
    if (generate !== undefined) {
      issues.push(...generateIssues(generate, [...at, "generate"], env));
      objects(generate, "foreach").forEach((fe, j) => {
        issues.push(...generateIssues(fe, [...at, "generate", "foreach", j], env));
      });
    }
    const mutate = obj(rule, "mutate");
    if (mutate !== undefined) issues.push(...mutateExistingIssues(mutate, [...at, "mutate"], env));
  });
  return issues;
}

function deprecatedSpecIssues(spec: JsonObject): Issue[] {
  const issues: Issue[] = [];
  if (isPresent(spec.generateExistingOnPolicyUpdate) && spec.generateExisting === true)
    issues.push(
      structure(
        ["spec", "generateExistingOnPolicyUpdate"],
        "remove the deprecated field and use generateExisting instead",
      ),
    );
  const rules = objects(spec, "rules");
  if (spec.mutateExistingOnPolicyUpdate === true && !rules.some((r) => isSet(obj(r, "mutate")?.targets)))
    issues.push({
      ...structure(
        ["spec", "mutateExistingOnPolicyUpdate"],
        "mutateExistingOnPolicyUpdate applies to mutate rules with targets, and no rule has mutate.targets: it has no effect",
      ),
      warning: true,
    });
  const generateExisting = spec.generateExisting === true || spec.generateExistingOnPolicyUpdate === true;
  if (generateExisting && !rules.some((r) => isSet(r.generate)))
    issues.push({
      ...structure(
        ["spec", spec.generateExisting === true ? "generateExisting" : "generateExistingOnPolicyUpdate"],
        "generateExisting applies to generate rules, and the policy has none: it has no effect",
      ),
      warning: true,
    });
  return issues;
}

/** A literal value (no variable): the only kind of value a check can judge before evaluation. */
function literal(o: JsonObject | undefined, key: string): string | undefined {
  const v = str(o, key);
  return v === undefined || hasVariable(v) ? undefined : v;
}

/** Checks of a generate rule (or one of its foreach entries) at `path`. */
function generateIssues(g: JsonObject, path: PathSegment[], env: BackgroundCheckEnv): Issue[] {
  const issues: Issue[] = [];
  const kind = literal(g, "kind");
  const apiVersion = literal(g, "apiVersion") ?? "";
  const namespace = str(g, "namespace") ?? "";
  const scope = kind === undefined ? undefined : env.scopeOf(apiVersion, kind);
  const ns = env.policyNamespace;
  if (ns !== undefined && kind !== undefined) {
    if (scope === "cluster")
      issues.push(
        structure(
          [...path, "namespace"],
          `target resource scope mismatched: the target must be a namespaced resource: ${apiVersion}/${kind}`,
        ),
      );
    else if (!hasVariable(namespace) && namespace !== ns)
      issues.push(
        structure(
          [...path, "namespace"],
          `target resource scope mismatched: a namespaced policy cannot generate resources in other namespaces, expected: ${ns}, received: ${namespace}`,
        ),
      );
  }
  if (ns === undefined && scope === "namespaced" && namespace === "")
    issues.push(structure([...path, "namespace"], "target namespace must be set for a namespaced resource"));
  if (scope === "cluster" && namespace !== "")
    issues.push(
      structure([...path, "namespace"], "target namespace must not be set for a cluster-wide resource"),
    );
  const clone = obj(g, "clone");
  const cloneNamespace = literal(clone, "namespace");
  if (ns !== undefined && isSet(clone?.name) && cloneNamespace !== undefined && cloneNamespace !== ns)
    issues.push(
      structure(
        [...path, "clone", "namespace"],
        `target resource scope mismatched: a namespaced policy cannot clone resource in other namespace, expected: ${ns}, received: ${cloneNamespace}`,
      ),
    );
  const cloneList = obj(g, "cloneList");
  if (cloneList !== undefined) issues.push(...cloneListIssues(cloneList, [...path, "cloneList"], env));
  return issues;
}

/** Upstream's `ValidateCloneList` and the selector check of the generate validator. */
function cloneListIssues(list: JsonObject, path: PathSegment[], env: BackgroundCheckEnv): Issue[] {
  const issues: Issue[] = [];
  if (/[*?]/.test(JSON.stringify(list.selector ?? null)))
    issues.push(structure([...path, "selector"], "wildcard characters `*/?` not supported"));
  const kinds = arr(list, "kinds").filter((k): k is string => typeof k === "string");
  if (kinds.length === 0) return issues;
  const namespace = str(list, "namespace") ?? "";
  const ns = env.policyNamespace;
  const scopes = kinds.map((k) => (hasVariable(k) ? undefined : env.scopeOf("", k)));
  if (ns !== undefined) {
    kinds.forEach((k, i) => {
      if (scopes[i] === "cluster")
        issues.push(
          structure([...path, "kinds", i], `the source in cloneList must be a namespaced resource: ${k}`),
        );
    });
    if (!hasVariable(namespace) && namespace !== ns)
      issues.push(
        structure(
          [...path, "namespace"],
          `a namespaced policy cannot clone resources from other namespace, expected: ${ns}, received: ${namespace}`,
        ),
      );
  }
  const known = scopes.filter((s) => s !== undefined);
  if (known.includes("cluster") && known.includes("namespaced")) {
    issues.push(structure([...path, "kinds"], "mixed scope of target resources is forbidden"));
    return issues;
  }
  if (known.length === kinds.length && known.length > 0) {
    if (known[0] === "namespaced" && namespace === "")
      issues.push({
        code: "missing-field",
        path: [...path, "namespace"],
        message: "namespace is required for namespaced target resources",
      });
    if (known[0] === "cluster" && namespace !== "")
      issues.push(
        structure([...path, "namespace"], "namespace is forbidden for cluster-wide target resources"),
      );
  }
  return issues;
}

/**
 * Checks of a mutate block's existing-resource side: `mutateExistingOnPolicyUpdate` needs targets,
 * each target names its kind and API version, and a namespaced Policy's targets stay in its namespace.
 */
function mutateExistingIssues(m: JsonObject, path: PathSegment[], env: BackgroundCheckEnv): Issue[] {
  const issues: Issue[] = [];
  const targets = objects(m, "targets");
  if (m.mutateExistingOnPolicyUpdate === true && targets.length === 0)
    issues.push({
      code: "missing-field",
      path: [...path, "targets"],
      message: "targets is required when mutateExistingOnPolicyUpdate is set to true",
    });
  targets.forEach((t, i) => {
    const at = [...path, "targets", i];
    for (const key of ["apiVersion", "kind"])
      if (!isSet(t[key]))
        issues.push({
          code: "missing-field",
          path: at,
          message: `missing required field ${JSON.stringify(key)} (the background controller looks targets up by API version and kind)`,
        });
    const namespace = literal(t, "namespace");
    const ns = env.policyNamespace;
    if (ns !== undefined && namespace !== undefined && namespace !== "" && namespace !== ns)
      issues.push({
        code: "invalid-value",
        path: [...at, "namespace"],
        message: `${JSON.stringify(namespace)}: This field can be ignored or should have value of the namespace where the policy is being created`,
      });
  });
  return issues;
}

/**
 * Upstream's admission checks of the variables a policy uses (`ValidateVariables`): requester
 * variables in background mode, variables in sections that are never substituted, and variables that
 * read nothing a rule can have (an undeclared name, `target.` outside a mutate-existing rule).
 */
import type { Issue, PathSegment } from "../load/errors.js";
import { parseDocuments } from "../load/parse.js";
import { arr, isSet, obj, objects, str, structure } from "../schema/checks.js";
import { isObject } from "../schema/dsl.js";
import type { JsonObject, JsonValue } from "./json.js";
import {
  allowedVariables,
  hasVariable,
  readsRequester,
  type VariableUse,
  variableAllowed,
  variableUses,
} from "./variables.js";

const BACKGROUND_PREFIX =
  "only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule";

/** Rule fields whose variables are checked (match/exclude may not have any; images are checked elsewhere). */
const SUBSTITUTED_FIELDS = ["context", "preconditions", "validate", "mutate", "generate"] as const;

/** Every variable check of a policy spec, in upstream's order: requester variables first. */
export function variableIssues(spec: JsonObject, background: boolean): Issue[] {
  const rules = objects(spec, "rules");
  const at = (i: number): PathSegment[] => ["spec", "rules", i];
  if (background) {
    const requester = rules.flatMap((rule, i) =>
      SUBSTITUTED_FIELDS.flatMap((f) => variableUses(rule[f], [...at(i), f])).filter((u) =>
        readsRequester(u.text),
      ),
    );
    if (requester.length > 0)
      return requester.map((u) =>
        structure(u.path, `${BACKGROUND_PREFIX}: variable ${u.text} is not allowed`),
      );
  }
  return rules.flatMap((rule, i) => [
    ...forbiddenSections(rule, at(i)),
    ...invalidVariables(rule, at(i), background),
  ]);
}

/** Upstream's `ruleForbiddenSectionsHaveVariables`: match, exclude and JSON patch paths are never substituted. */
function forbiddenSections(rule: JsonObject, path: PathSegment[]): Issue[] {
  const name = JSON.stringify(str(rule, "name") ?? "");
  const issues: Issue[] = [];
  for (const section of ["match", "exclude"] as const) {
    if (hasVariable(rule[section]))
      issues.push(
        structure([...path, section], `rule ${name} should not have variables in ${section} section`),
      );
  }
  const patch = str(obj(rule, "mutate"), "patchesJson6902");
  if (patch !== undefined && jsonPatchPathHasVariables(patch))
    issues.push(
      structure(
        [...path, "mutate", "patchesJson6902"],
        `rule ${name} should not have variables in patchesJSON6902 path section`,
      ),
    );
  return issues;
}

const PLACEHOLDER = "kyvernojsonpatchvariable";

/** Whether an operation of a JSON patch (a YAML string) has a variable in its `path`. */
function jsonPatchPathHasVariables(patch: string): boolean {
  const marked = patch.replace(/\{\{(?:\{[^{}]*\}|[^{}])*\}\}/g, PLACEHOLDER);
  const ops = parseDocuments(marked, "patchesJson6902").documents[0]?.value;
  return (
    Array.isArray(ops) &&
    ops.some((op) => isObject(op) && typeof op.path === "string" && op.path.includes(PLACEHOLDER))
  );
}

/**
 * The names a rule's context entries declare, as glob patterns over variable queries: any path below
 * an API call, variable, image registry or global reference entry; `data` and `metadata` of a
 * ConfigMap. Entries of foreach blocks and mutate targets count too.
 */
function declaredNames(rule: JsonObject): string[] {
  const names: string[] = [];
  const visit = (entries: JsonValue[] | undefined): void => {
    for (const e of entries ?? []) {
      if (e === null || typeof e !== "object" || Array.isArray(e) || typeof e.name !== "string") continue;
      if (isSet(e.configMap)) names.push(`${e.name}.data.*`, `${e.name}.metadata.*`);
      else names.push(`${e.name}*`);
    }
  };
  const visitForeach = (list: JsonValue[]): void => {
    for (const fe of list) {
      if (fe === null || typeof fe !== "object" || Array.isArray(fe)) continue;
      visit(arr(fe, "context"));
      visitForeach(arr(fe, "foreach"));
    }
  };
  visit(arr(rule, "context"));
  visitForeach(arr(obj(rule, "validate"), "foreach"));
  visitForeach(arr(obj(rule, "mutate"), "foreach"));
  visitForeach(arr(obj(rule, "generate"), "foreach"));
  for (const t of objects(obj(rule, "mutate"), "targets")) visit(arr(t, "context"));
  return names;
}

function invalid(use: VariableUse, re: RegExp, prefix: string): Issue {
  return structure(
    use.path,
    `policy contains invalid variables: ${prefix}: variable ${use.query.replaceAll('"', "")} must match regex "${re.source}"`,
  );
}

/**
 * Upstream's `hasInvalidVariables`: each variable must match the allow-list of its place or read a
 * declared context entry. A mutate-existing rule is checked twice: its targets' own fields, context
 * and preconditions without `target.` (a target cannot select itself by its own fields), then the
 * whole rule with it.
 */
function invalidVariables(rule: JsonObject, path: PathSegment[], background: boolean): Issue[] {
  const names = declaredNames(rule);
  const mutate = obj(rule, "mutate");
  const targets = objects(mutate, "targets");
  const ruleName = str(rule, "name") ?? "";
  if (targets.length > 0) {
    const re = allowedVariables(background, false);
    const shared = [
      ...variableUses(rule.context, [...path, "context"]),
      ...variableUses(rule.preconditions, [...path, "preconditions"]),
    ];
    for (const [i, target] of targets.entries()) {
      const at = [...path, "mutate", "targets", i];
      const own = ["apiVersion", "kind", "namespace", "name", "uid"].flatMap((k) =>
        variableUses(target[k], [...at, k]),
      );
      const bad = [...shared, ...own].filter((u) => !variableAllowed(u.query, re, names));
      if (bad.length > 0)
        return bad.map((u) => invalid(u, re, `invalid variables defined at mutate.targets[${i}]`));
    }
  }
  const re = allowedVariables(background, targets.length > 0);
  return SUBSTITUTED_FIELDS.flatMap((f) => variableUses(rule[f], [...path, f]))
    .filter((u) => !variableAllowed(u.query, re, names))
    .map((u) => invalid(u, re, `variable substitution failed for rule ${ruleName}`));
}

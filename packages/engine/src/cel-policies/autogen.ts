/**
 * Autogen of the CEL policy kinds: a policy that matches only Pods also applies to the Pod
 * controllers (`spec.autogen.podControllers.controllers`, default every controller), through two
 * variants compiled with the policy: one for controllers with a Pod template
 * (`object.spec` → `object.spec.template.spec`) and one for CronJobs
 * (`object.spec.jobTemplate.spec.template.spec`), the same rewrite as the classic autogen.
 */
import type { CelAutogen, MatchConstraints, ResourceRule } from "@kyverno-ts/api";
import { rewritePaths, type Target } from "../autogen/rewrite.js";
import { CONTROLLER_GROUPS, POD_CONTROLLERS, pluralOf } from "./resources.js";

/** A variant of a policy: the original (`target` undefined) or an autogen one. */
export interface PolicyVariant {
  /** `autogen` / `autogen-cronjobs` for generated variants, empty for the policy itself. */
  readonly name: string;
  readonly constraints: MatchConstraints | undefined;
  /** Rewrites an expression of the policy for this variant. */
  readonly rewrite: (expression: string) => string;
}

const DEFAULT_CONTROLLERS = ["daemonsets", "deployments", "jobs", "statefulsets", "replicasets", "cronjobs"];

/** Whether the policy selects Pods and nothing else, the condition for autogen. */
function matchesOnlyPods(constraints: MatchConstraints | undefined): boolean {
  const rules = constraints?.resourceRules ?? [];
  if (rules.length === 0) return false;
  return rules.every(
    (r) =>
      (r.resources ?? []).length > 0 &&
      (r.resources ?? []).every((res) => res === "pods") &&
      (r.apiGroups ?? []).every((g) => g === "" || g === "*") &&
      (r.resourceNames ?? []).length === 0,
  );
}

/** The controllers of `autogen.podControllers.controllers` as resource names (kinds are accepted too). */
function controllersOf(autogen: CelAutogen | undefined): string[] {
  const configured = autogen?.podControllers?.controllers;
  const names = configured ?? DEFAULT_CONTROLLERS;
  return names
    .map((c) => (POD_CONTROLLERS[c.toLowerCase()] !== undefined ? c.toLowerCase() : pluralOf(c)))
    .filter((c) => POD_CONTROLLERS[c] !== undefined);
}

function controllerRules(base: readonly ResourceRule[], controllers: readonly string[]): ResourceRule[] {
  const byGroup = new Map<string, string[]>();
  for (const c of controllers) {
    const g = CONTROLLER_GROUPS[c];
    if (g === undefined) continue;
    byGroup.set(g.group, [...(byGroup.get(g.group) ?? []), c]);
  }
  const operations = base.flatMap((r) => r.operations ?? []);
  return [...byGroup].map(([group, resources]) => {
    const rule: ResourceRule = { apiGroups: [group], apiVersions: ["v1"], resources };
    if (operations.length > 0) rule.operations = [...new Set(operations)];
    return rule;
  });
}

function variant(
  name: string,
  constraints: MatchConstraints,
  rules: ResourceRule[],
  target: Target,
): PolicyVariant {
  return {
    name,
    constraints: { ...constraints, resourceRules: rules },
    rewrite: (expression) => rewritePaths(expression, target, true),
  };
}

/** The variants a policy is compiled into: itself, then its autogen variants when it matches only Pods. */
export function policyVariants(
  constraints: MatchConstraints | undefined,
  autogen: CelAutogen | undefined,
): PolicyVariant[] {
  const own: PolicyVariant = { name: "", constraints, rewrite: (e) => e };
  if (constraints === undefined || !matchesOnlyPods(constraints)) return [own];
  const controllers = controllersOf(autogen);
  const base = constraints.resourceRules ?? [];
  const out = [own];
  const templated = controllers.filter((c) => c !== "cronjobs");
  if (templated.length > 0)
    out.push(variant("autogen", constraints, controllerRules(base, templated), "template"));
  if (controllers.includes("cronjobs"))
    out.push(variant("autogen-cronjobs", constraints, controllerRules(base, ["cronjobs"]), "cronjob"));
  return out;
}

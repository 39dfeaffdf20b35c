/**
 * The ClusterRole aggregation controller (kube-controller-manager's `clusterrole-aggregation`): a
 * ClusterRole with `aggregationRule.clusterRoleSelectors` gets as `rules` the rules of every other
 * ClusterRole whose labels match one of the selectors (selectors in order, roles by name, duplicates
 * dropped), recomputed whenever any ClusterRole changes.
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import type { WorkQueue } from "../gc/work-queue.js";
import { asObject, asObjects, labelsOf, metaString } from "../objects/meta.js";
import type { ApiEnv } from "../verbs/context.js";
import { internalUpdate } from "../verbs/internal.js";

const CLUSTER_ROLES = "rbac.authorization.k8s.io/clusterroles";

/** Whether `labels` satisfy a metav1.LabelSelector (an empty selector selects everything). */
export function selectorMatches(selector: JsonObject, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(asObject(selector.matchLabels) ?? {}))
    if (labels[key] !== value) return false;
  for (const expression of asObjects(selector.matchExpressions)) {
    const key = typeof expression.key === "string" ? expression.key : "";
    const values = Array.isArray(expression.values) ? expression.values : [];
    const present = Object.hasOwn(labels, key);
    switch (expression.operator) {
      case "In":
        if (!present || !values.includes(labels[key] ?? "")) return false;
        break;
      case "NotIn":
        if (present && values.includes(labels[key] ?? "")) return false;
        break;
      case "Exists":
        if (!present) return false;
        break;
      case "DoesNotExist":
        if (present) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** The rules an aggregated ClusterRole should hold, given every ClusterRole (sorted by name). */
export function aggregatedRules(role: JsonObject, all: readonly JsonObject[]): JsonValue[] {
  const selectors = asObjects(asObject(role.aggregationRule)?.clusterRoleSelectors);
  const name = metaString(role, "name");
  const rules: JsonValue[] = [];
  const seen = new Set<string>();
  for (const selector of selectors) {
    for (const other of all) {
      if (metaString(other, "name") === name || !selectorMatches(selector, labelsOf(other))) continue;
      for (const rule of Array.isArray(other.rules) ? other.rules : []) {
        const key = JSON.stringify(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(rule);
      }
    }
  }
  return rules;
}

/** Starts the controller; returns the function that stops listening. */
export function startAggregationController(env: ApiEnv, queue: WorkQueue): () => void {
  const sync = (name: string): void => {
    const role = env.store.get(CLUSTER_ROLES, "", name);
    const resource = env.registry.byStorageKey(CLUSTER_ROLES);
    if (role === undefined || resource === undefined || asObject(role.aggregationRule) === undefined) return;
    const rules = aggregatedRules(role, env.store.list(CLUSTER_ROLES));
    if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) return;
    internalUpdate(env, resource, { ...role, rules });
  };
  const scheduleAll = (): void => {
    for (const role of env.store.list(CLUSTER_ROLES))
      if (asObject(role.aggregationRule) !== undefined) {
        const name = metaString(role, "name");
        queue.add(`aggregate|${name}`, () => sync(name));
      }
  };
  scheduleAll();
  return env.store.subscribe((event) => {
    if (event.storageKey === CLUSTER_ROLES) scheduleAll();
  });
}

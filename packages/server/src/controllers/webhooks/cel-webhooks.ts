/**
 * The webhooks of the CEL policies, as upstream registers them in the resource configurations:
 * `vpol.validate.kyverno.svc-fail` / `-ignore` (ValidatingPolicies, path `/vpol/fail` / `/vpol/ignore`),
 * `ivpol.validate.kyverno.svc-*` (ImageValidatingPolicies) and `mpol.mutate.kyverno.svc-*`
 * (MutatingPolicies), `gpol.validate.kyverno.svc-*` (GeneratingPolicies, with DELETE for synchronized
 * ones: a deleted trigger takes its downstream along), their rules the policies' `matchConstraints.resourceRules` (with the Pod
 * controllers autogen adds), and a fine-grained webhook (`…-fail-finegrained-<policy>`, path
 * `/vpol/fail/finegrained/<policy>`) for a policy with its own `webhookConfiguration.timeoutSeconds`
 * or `matchConditions`: it carries the policy's `matchConditions`, `matchConstraints.matchPolicy`
 * and its namespace and object selectors (ANDed with the configured ones), so the API server does
 * not call for requests the policy would skip anyway. See `fineGrainedScope`.
 */
import type { LabelSelector, MatchConstraints, NamedExpression, ResourceRule } from "@kyverno-ts/api";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import { CEL_WEBHOOK_NAMES, type CelWebhookRoute, celWebhookPath } from "../admission/cel-handler.js";
import { generatingSettings } from "../background/update-request.js";
import type { LabelSelectorJson, WebhookJson, WebhookRuleJson } from "./webhook-json.js";

/** What the CEL webhooks are built from besides the policies. */
export interface CelWebhookInputs {
  clientConfig: (path: string) => WebhookJson["clientConfig"];
  defaultTimeoutSeconds: number;
  namespaceSelector: LabelSelectorJson;
  objectSelector: LabelSelectorJson;
  clampTimeout: (seconds: number) => number;
}

const ALL_OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/** Webhook rules of resource rules, merged by group, version and operations, sorted. */
export function celWebhookRules(rules: readonly ResourceRule[]): WebhookRuleJson[] {
  const merged = new Map<string, WebhookRuleJson>();
  for (const r of rules) {
    const groups = r.apiGroups?.length ? r.apiGroups : ["*"];
    const versions = r.apiVersions?.length ? r.apiVersions : ["*"];
    const operations = r.operations?.length ? [...new Set(r.operations as string[])] : ALL_OPERATIONS;
    if (operations.includes("*")) operations.splice(0, operations.length, "*");
    for (const group of groups)
      for (const version of versions) {
        const key = `${group}\u0000${version}\u0000${operations.join(",")}`;
        const entry = merged.get(key) ?? {
          apiGroups: [group],
          apiVersions: [version],
          resources: [],
          operations,
          scope: "*" as const,
        };
        entry.resources = [...new Set([...entry.resources, ...(r.resources ?? [])])].sort();
        merged.set(key, entry);
      }
  }
  return [...merged.keys()].sort().map((k) => merged.get(k) as WebhookRuleJson);
}

/**
 * Roots a webhook's `matchConditions` cannot use (the API server knows only `object`, `oldObject`,
 * `request` and `authorizer`, with Kubernetes' libraries): a policy condition naming one is left to
 * the engine, since the API server would refuse the whole webhook configuration. Dropping a
 * condition only widens what the webhook sends (conditions are ANDed); the engine still applies it.
 */
const ENGINE_ONLY =
  /(?<![\w.])(namespaceObject|variables|params|resource|http|globalContext|image|images|imageData|x509|json|yaml|time|user)\b/;

/** Whether a condition names only what a webhook's matchConditions bind (string literals aside). */
export function webhookCondition(expression: string): boolean {
  const code = expression.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, "''");
  return !ENGINE_ONLY.test(code);
}

/** A label selector as webhook JSON (`{}` selects everything). */
function selectorJson(selector: LabelSelector | undefined): LabelSelectorJson {
  const out: LabelSelectorJson = {};
  if (selector?.matchLabels && Object.keys(selector.matchLabels).length > 0)
    out.matchLabels = { ...selector.matchLabels };
  if (selector?.matchExpressions && selector.matchExpressions.length > 0)
    out.matchExpressions = selector.matchExpressions.map((e) => ({
      key: e.key,
      operator: e.operator,
      ...(e.values === undefined ? {} : { values: [...e.values] }),
    }));
  return out;
}

/**
 * Both selectors at once (a label selector ANDs its terms): the configured one's terms, then the
 * policy's. Labels both name with different values become expressions, which then select nothing,
 * as the two selectors together do.
 */
export function andSelectors(a: LabelSelectorJson, b: LabelSelectorJson): LabelSelectorJson {
  const labels: Record<string, string> = { ...a.matchLabels };
  const expressions = [...(a.matchExpressions ?? []), ...(b.matchExpressions ?? [])];
  for (const [key, value] of Object.entries(b.matchLabels ?? {})) {
    if (labels[key] === undefined || labels[key] === value) labels[key] = value;
    else expressions.push({ key, operator: "In", values: [value] });
  }
  return {
    ...(Object.keys(labels).length > 0 ? { matchLabels: labels } : {}),
    ...(expressions.length > 0 ? { matchExpressions: expressions } : {}),
  };
}

/** The resources (plurals) autogen added to a policy's webhook rules (the Pod controllers). */
function autogenResources(p: CachedCelPolicy, own: readonly ResourceRule[]): string[] {
  const mine = new Set(own.flatMap((r) => r.resources ?? []));
  return [...new Set(p.compiled.resourceRules.flatMap((r) => r.resources ?? []))]
    .filter((r) => !mine.has(r))
    .sort();
}

/** The resource rules a policy's webhook needs: a synchronized GeneratingPolicy also sees DELETE. */
function webhookResourceRules(p: CachedCelPolicy): readonly ResourceRule[] {
  const rules = p.compiled.resourceRules;
  if (p.compiled.type !== "generate" || !generatingSettings(p.policy).synchronize) return rules;
  return rules.map((r) =>
    !r.operations?.length || r.operations.includes("*") || r.operations.includes("DELETE")
      ? r
      : { ...r, operations: [...r.operations, "DELETE"] },
  );
}

/** What a policy's own webhook narrows: conditions, match policy and selectors. */
export function fineGrainedScope(
  p: CachedCelPolicy,
  inputs: Pick<CelWebhookInputs, "namespaceSelector" | "objectSelector">,
): Pick<WebhookJson, "matchConditions" | "matchPolicy" | "namespaceSelector" | "objectSelector"> {
  const spec = p.policy.spec as { matchConstraints?: MatchConstraints; matchConditions?: NamedExpression[] };
  const constraints = spec.matchConstraints ?? {};
  // Autogen variants evaluate their own (rewritten) conditions in the engine: for the Pod
  // controllers autogen added, the webhook lets the request through.
  const own = constraints.resourceRules ?? [];
  const added = autogenResources(p, own);
  const guards: string[] = [];
  // DELETE added for a synchronized GeneratingPolicy (see webhookResourceRules): `object` is null
  // then, so the policy's conditions (written for the operations it names) would fail the request.
  const everyOperation = (r: ResourceRule) => !r.operations?.length || r.operations.includes("*");
  const deletes = (r: ResourceRule) => everyOperation(r) || r.operations?.includes("DELETE") === true;
  if (webhookResourceRules(p).some(deletes) && !own.some(deletes))
    guards.push("request.operation == 'DELETE'");
  if (added.length > 0)
    guards.push(`request.resource.resource in [${added.map((r) => `'${r}'`).join(", ")}]`);
  const guard = guards.map((g) => `${g} || `).join("");
  const conditions = (spec.matchConditions ?? [])
    .filter((c) => webhookCondition(c.expression))
    .map((c) => ({ name: c.name, expression: guard === "" ? c.expression : `${guard}(${c.expression})` }));
  return {
    ...(conditions.length > 0 ? { matchConditions: conditions } : {}),
    matchPolicy: constraints.matchPolicy ?? "Equivalent",
    namespaceSelector: andSelectors(inputs.namespaceSelector, selectorJson(constraints.namespaceSelector)),
    objectSelector: andSelectors(inputs.objectSelector, selectorJson(constraints.objectSelector)),
  };
}

const TYPES: ReadonlyArray<{ type: CelWebhookRoute["type"]; mutating: boolean }> = [
  { type: "validate", mutating: false },
  { type: "imageValidate", mutating: false },
  { type: "generate", mutating: false },
  { type: "mutate", mutating: true },
];

/** The CEL webhooks of each configuration, in a fixed order. */
export function celWebhooks(
  policies: readonly CachedCelPolicy[],
  inputs: CelWebhookInputs,
): { validating: WebhookJson[]; mutating: WebhookJson[] } {
  const validating: WebhookJson[] = [];
  const mutating: WebhookJson[] = [];
  const admitted = policies.filter((p) => p.compiled.admission && p.compiled.resourceRules.length > 0);
  const webhook = (
    route: CelWebhookRoute,
    group: readonly CachedCelPolicy[],
    timeoutSeconds: number,
    mutatingHook: boolean,
  ): WebhookJson => {
    const suffix = route.failurePolicy.toLowerCase();
    const name = `${CEL_WEBHOOK_NAMES[route.type]}-${suffix}${route.policy === undefined ? "" : `-finegrained-${route.policy}`}`;
    const hook: WebhookJson = {
      name,
      clientConfig: inputs.clientConfig(celWebhookPath(route)),
      rules: celWebhookRules(group.flatMap(webhookResourceRules)),
      failurePolicy: route.failurePolicy,
      matchPolicy: "Equivalent",
      namespaceSelector: inputs.namespaceSelector,
      objectSelector: inputs.objectSelector,
      sideEffects: "NoneOnDryRun",
      timeoutSeconds: inputs.clampTimeout(timeoutSeconds),
      admissionReviewVersions: ["v1"],
    };
    const [only] = group;
    if (route.policy !== undefined && only !== undefined) Object.assign(hook, fineGrainedScope(only, inputs));
    if (mutatingHook)
      hook.reinvocationPolicy = group.some((p) => p.reinvocation === "IfNeeded") ? "IfNeeded" : "Never";
    return hook;
  };
  for (const { type, mutating: isMutating } of TYPES) {
    const out = isMutating ? mutating : validating;
    for (const failurePolicy of ["Fail", "Ignore"] as const) {
      const group = admitted.filter((p) => p.compiled.type === type && p.failurePolicy === failurePolicy);
      const shared = group.filter((p) => !p.fineGrained);
      if (shared.length > 0)
        out.push(webhook({ type, failurePolicy }, shared, inputs.defaultTimeoutSeconds, isMutating));
      for (const p of group)
        if (p.fineGrained)
          out.push(
            webhook(
              { type, failurePolicy, policy: p.compiled.name },
              [p],
              p.timeoutSeconds ?? inputs.defaultTimeoutSeconds,
              isMutating,
            ),
          );
    }
  }
  return { validating, mutating };
}

/** The `policies.kyverno.io` resources the policy validation webhook checks. */
export const CEL_POLICY_RESOURCES = [
  "deletingpolicies",
  "generatingpolicies",
  "imagevalidatingpolicies",
  "mutatingpolicies",
  "namespaceddeletingpolicies",
  "namespacedgeneratingpolicies",
  "namespacedimagevalidatingpolicies",
  "namespacedmutatingpolicies",
  "namespacedvalidatingpolicies",
  "validatingpolicies",
];

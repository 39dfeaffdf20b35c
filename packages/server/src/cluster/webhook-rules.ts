/**
 * What the API server must send to the webhooks for one policy: the kind selectors its rules match
 * (autogen rules included) with the operations of each, per webhook (validate / mutate). A superset is
 * safe (the engine decides); leaving out a kind a rule can match is not, so every doubt widens.
 */
import type { MatchResources, Policy, ResourceFilter, Rule } from "@kyverno-ts/api";
import { autogenControllers, type Operation } from "@kyverno-ts/engine";
import type { CachedPolicy, FailurePolicy } from "../policycache/policy-cache.js";

/** A kind selector (`resources.kinds` spelling) and the operations to send for it. */
export interface KindOperations {
  selector: string;
  operations: readonly Operation[];
}

/** The webhook needs of one policy. */
export interface PolicyWebhookNeeds {
  key: string;
  failurePolicy: FailurePolicy;
  /** The policy's own timeout (`webhookConfiguration.timeoutSeconds`, else `webhookTimeoutSeconds`). */
  timeoutSeconds: number | undefined;
  validate: KindOperations[];
  mutate: KindOperations[];
}

/** Upstream's operations when a validate rule names none. */
export const VALIDATE_OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];
/** Upstream's operations when a mutate rule names none. */
export const MUTATE_OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE"];

function filtersOf(block: MatchResources): ResourceFilter[] {
  const out: ResourceFilter[] = [];
  if (block.resources) out.push(block);
  for (const f of block.any ?? []) out.push(f);
  for (const f of block.all ?? []) out.push(f);
  return out;
}

/** Each filter's kinds (or `*` when it names none) with its operations (or `defaults`). */
function ruleNeeds(rule: Rule, defaults: readonly Operation[]): KindOperations[] {
  const filters = filtersOf(rule.match);
  if (filters.length === 0) return [{ selector: "*", operations: defaults }];
  return filters.flatMap((f) => {
    const ops = f.resources?.operations;
    const operations = ops && ops.length > 0 ? ops : defaults;
    const kinds = f.resources?.kinds ?? [];
    return (kinds.length > 0 ? kinds : ["*"]).map((selector) => ({ selector, operations }));
  });
}

/** The operations the Pod filters of a rule send (what its autogen rule keeps). */
function podOperations(rule: Rule, defaults: readonly Operation[]): Operation[] {
  const ops = new Set<Operation>();
  for (const need of ruleNeeds(rule, defaults)) for (const op of need.operations) ops.add(op);
  return [...ops];
}

/**
 * The needs of the rules the engine runs, autogen included: `autogen-<rule>` matches the Pod
 * controllers (all but CronJob), `autogen-cronjob-<rule>` matches CronJob, with the operations of the
 * rule they come from. Which autogen rules exist is read from the compiled rule names (cut to 63
 * characters, as the engine names them).
 */
function needsOf(
  policy: CachedPolicy,
  type: "validate" | "mutate",
  defaults: readonly Operation[],
): KindOperations[] {
  // verifyImages rules are answered by the validating webhook (an error until images are verified).
  const rules = policy.policy.spec.rules.filter((r) =>
    type === "validate"
      ? r.validate !== undefined || (r.verifyImages ?? []).length > 0
      : r.mutate !== undefined && !(r.mutate.targets ?? []).length,
  );
  const out = rules.flatMap((r) => ruleNeeds(r, defaults));
  const names = new Set(policy.compiled.ruleNames);
  const controllers = autogenControllers(policy.policy);
  const podControllers = controllers.filter((c) => c !== "CronJob");
  for (const rule of rules) {
    const operations = podOperations(rule, defaults);
    if (names.has(`autogen-${rule.name}`.slice(0, 63)))
      for (const selector of podControllers) out.push({ selector, operations });
    if (names.has(`autogen-cronjob-${rule.name}`.slice(0, 63))) out.push({ selector: "CronJob", operations });
  }
  return out;
}

function policyTimeout(policy: Policy): number | undefined {
  const fromConfig = policy.spec.webhookConfiguration?.timeoutSeconds;
  if (typeof fromConfig === "number") return fromConfig;
  return policy.spec.webhookTimeoutSeconds;
}

/**
 * The webhook needs of a ready policy; policies with `admission: false` need nothing. Validate rules go
 * to the validating webhook, mutate rules without `targets` to the mutating one (the only rule types
 * this server evaluates at admission).
 */
export function policyWebhookNeeds(policy: CachedPolicy): PolicyWebhookNeeds {
  const admission = policy.policy.spec.admission;
  return {
    key: policy.key,
    failurePolicy: policy.failurePolicy,
    timeoutSeconds: policyTimeout(policy.policy),
    validate: admission && policy.types.validate ? needsOf(policy, "validate", VALIDATE_OPERATIONS) : [],
    mutate: admission && policy.types.mutate ? needsOf(policy, "mutate", MUTATE_OPERATIONS) : [],
  };
}

/** Every kind selector of a set of needs, sorted and de-duplicated (what the kind resolver is asked). */
export function selectorsOf(needs: readonly PolicyWebhookNeeds[]): string[] {
  const all = new Set<string>();
  for (const n of needs) for (const k of [...n.validate, ...n.mutate]) all.add(k.selector);
  return [...all].sort();
}

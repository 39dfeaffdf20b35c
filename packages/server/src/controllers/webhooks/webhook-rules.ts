/**
 * What the API server must send to the webhooks for one policy: the kind selectors its rules match
 * (autogen rules included) with the operations of each, per webhook (validate / mutate). A superset is
 * safe (the engine decides); leaving out a kind a rule can match is not, so every doubt widens.
 */
import type { Policy } from "@kyverno-ts/api";
import type { Operation, RuleKind } from "@kyverno-ts/engine";
import type { CachedPolicy, FailurePolicy } from "../../policycache/policy-cache.js";

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

/**
 * The rule kinds each webhook evaluates (verifyImages rules answer `error` on the validating one;
 * generate and mutate-existing rules turn admitted requests into UpdateRequests there, as upstream).
 */
const WEBHOOK_RULE_KINDS: Readonly<Record<"validate" | "mutate", ReadonlySet<RuleKind>>> = {
  validate: new Set(["validate", "verifyImages", "generate", "mutateExisting"]),
  mutate: new Set(["mutate"]),
};

/** Upstream's operations for generate and mutate-existing rules naming none (deletes clean up). */
const BACKGROUND_OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "DELETE"];

/**
 * The needs of the rules the engine runs on one webhook, autogen rules included (the engine's
 * description of the compiled rules): each `match` filter's kinds (or `*` when it names none) with
 * its operations (or `defaults`).
 */
function needsOf(
  policy: CachedPolicy,
  type: "validate" | "mutate",
  defaults: readonly Operation[],
): KindOperations[] {
  const out: KindOperations[] = [];
  for (const rule of policy.compiled.rules) {
    if (!WEBHOOK_RULE_KINDS[type].has(rule.kind)) continue;
    if (rule.selections.length === 0) {
      out.push({ selector: "*", operations: defaults });
      continue;
    }
    const background = rule.kind === "generate" || rule.kind === "mutateExisting";
    for (const s of rule.selections) {
      // A synchronized generate rule also needs its triggers' deletes (the downstream goes with them).
      const operations =
        background && rule.rule.generate?.synchronize && s.operations && !s.operations.includes("DELETE")
          ? [...s.operations, "DELETE" as const]
          : (s.operations ?? (background ? BACKGROUND_OPERATIONS : defaults));
      for (const selector of s.kinds.length > 0 ? s.kinds : ["*"]) out.push({ selector, operations });
    }
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
    validate:
      admission && (policy.types.validate || policy.types.generate || policy.types.mutateExisting)
        ? needsOf(policy, "validate", VALIDATE_OPERATIONS)
        : [],
    mutate: admission && policy.types.mutate ? needsOf(policy, "mutate", MUTATE_OPERATIONS) : [],
  };
}

/** Every kind selector of a set of needs, sorted and de-duplicated (what the kind resolver is asked). */
export function selectorsOf(needs: readonly PolicyWebhookNeeds[]): string[] {
  const all = new Set<string>();
  for (const n of needs) for (const k of [...n.validate, ...n.mutate]) all.add(k.selector);
  return [...all].sort();
}

import type { PodSecurityExclude, PolicyException } from "@kyverno-ts/api";
import { evaluateConditions } from "../evaluation/conditions.js";
import type { Scope } from "../evaluation/variables.js";
import { type MatchRequest, matchesMatchResources } from "../match/index.js";
import { matchWildcard } from "../wildcard/wildcard.js";

/** Reference to the exception that turned a rule into `skip`. */
export interface ExceptionRef {
  namespace: string;
  name: string;
}

/** Exceptions that apply to one rule for one resource, split by how they apply. */
export interface RuleExceptions {
  /** Exceptions that skip the rule outright. */
  skipping: ExceptionRef[];
  /** Pod Security control exemptions, for podSecurity rules. */
  podSecurity: PodSecurityExclude[];
  /** The exceptions contributing to `podSecurity`. */
  podSecurityFrom: ExceptionRef[];
}

/** Whether an exception is accepted from its namespace (`*` accepts every namespace). */
export function acceptsNamespace(accepted: readonly string[], exception: PolicyException): boolean {
  const ns = exception.metadata.namespace ?? "default";
  return accepted.some((a) => matchWildcard(a, ns));
}

/** Whether an exception names this policy (`name`, or `ns/name` for a namespaced Policy) and rule (wildcards allowed). */
export function namesRule(exception: PolicyException, policyKey: string, ruleName: string): boolean {
  return exception.spec.exceptions.some(
    (e) => e.policyName === policyKey && e.ruleNames.some((r) => matchWildcard(r, ruleName)),
  );
}

/**
 * Finds the exceptions for one rule that match the resource (their `match`) and whose `conditions`
 * hold in the rule's context. `background` requests ignore exceptions with `background: false`.
 */
export function exceptionsForRule(
  exceptions: readonly PolicyException[],
  policyKey: string,
  ruleName: string,
  matchReq: MatchRequest,
  scope: Scope,
  background: boolean,
): RuleExceptions {
  const out: RuleExceptions = { skipping: [], podSecurity: [], podSecurityFrom: [] };
  for (const ex of exceptions) {
    if (!namesRule(ex, policyKey, ruleName)) continue;
    if (background && ex.spec.background === false) continue;
    if (!matchesMatchResources(ex.spec.match, matchReq)) continue;
    if (ex.spec.conditions !== undefined) {
      const c = evaluateConditions(scope, ex.spec.conditions, "/conditions", "lenient");
      if (!c.ok || !c.value) continue;
    }
    const ref = { namespace: ex.metadata.namespace ?? "default", name: ex.metadata.name };
    if (ex.spec.podSecurity && ex.spec.podSecurity.length > 0) {
      out.podSecurity.push(...ex.spec.podSecurity);
      out.podSecurityFrom.push(ref);
    } else {
      out.skipping.push(ref);
    }
  }
  return out;
}

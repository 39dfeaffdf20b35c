/**
 * How responses are built, for every policy kind (classic and CEL): one literal per shape, in the
 * field order responses always had.
 */
import type { FailureAction, JsonValue, Rule } from "@kyverno-ts/api";
import type { JsonContext } from "../evaluation/json-context.js";
import { substitute } from "../evaluation/variables.js";
import type { ExceptionRef } from "../exceptions/exceptions.js";
import { exceptionSkipMessage } from "../response/messages.js";
import type { PolicyResponse, ResourceRef, RuleResponse, RuleType } from "../response/types.js";
import type { PolicyEvalEnv } from "./env.js";
import type { HandlerOutcome } from "./handler.js";

/** What a response says of its policy, whatever its kind (both compiled forms are one). */
export interface PolicyHeader {
  readonly kind: string;
  readonly name: string;
  /** The namespace of a namespaced policy (a `Policy`, a `Namespaced…Policy`). */
  readonly namespace: string | undefined;
  /** Whether background scans evaluate it. */
  readonly background: boolean;
  readonly category: string | undefined;
  readonly severity: string | undefined;
}

/** A response of a policy about `resource` with these rules (optional fields absent, not undefined). */
export function newResponse(
  header: PolicyHeader,
  resource: ResourceRef,
  rules: RuleResponse[],
  timestamp: number,
): PolicyResponse {
  const { kind, name: policyName, namespace, background, category, severity } = header;
  const name: PolicyResponse["policy"] =
    namespace === undefined ? { kind, name: policyName } : { kind, name: policyName, namespace };
  if (category === undefined) {
    return severity === undefined
      ? { policy: name, resource, rules, background, timestamp }
      : { policy: name, resource, rules, background, timestamp, severity };
  }
  return severity === undefined
    ? { policy: name, resource, rules, background, timestamp, category }
    : { policy: name, resource, rules, background, timestamp, category, severity };
}

/** A rule's response from its handler's outcome: the fields every rule has, then what the outcome carries. */
export function ruleResponse(
  name: string,
  type: RuleType,
  outcome: HandlerOutcome,
  failureAction: FailureAction,
  properties: Record<string, string> | undefined,
): RuleResponse {
  const r: RuleResponse = { name, type, status: outcome.status, message: outcome.message, failureAction };
  if (properties !== undefined) r.properties = properties;
  if (outcome.patchedTargets !== undefined) r.patchedTargets = outcome.patchedTargets;
  return r;
}

/** How an exception names itself in messages: `namespace/name`, or its name when it has no namespace. */
export function exceptionKey(ref: ExceptionRef): string {
  return ref.namespace === "" ? ref.name : `${ref.namespace}/${ref.name}`;
}

/** The rule an exception exempts, as its result names it. */
export interface ExemptedRule {
  readonly name: string;
  readonly type: RuleType;
  readonly failureAction: FailureAction;
  /** `pass` for an exception with `reportResult: pass` (CEL kinds); `skip` otherwise. */
  readonly status?: "skip" | "pass";
  /** False for a result that says nothing (a GeneratingPolicy's, as upstream's). */
  readonly message?: boolean;
}

/**
 * The result of a rule PolicyExceptions exempt, for every rule type and policy kind alike:
 * `rule is skipped due to policy exception: <ns/name>`, the exceptions named in its properties (as
 * upstream's report rows do) and the first of them as its `exception`.
 */
export function exceptionSkip(rule: ExemptedRule, exceptions: readonly ExceptionRef[]): RuleResponse {
  return {
    name: rule.name,
    type: rule.type,
    status: rule.status ?? "skip",
    message: rule.message === false ? "" : exceptionSkipMessage(exceptions.map(exceptionKey)),
    failureAction: rule.failureAction,
    properties: { exceptions: exceptions.map((e) => e.name).join(",") },
    exception: exceptions[0] as ExceptionRef,
  };
}

/** The rule's `reportProperties` with variables substituted (as written when they do not resolve). */
export function reportProperties(
  rule: Rule,
  base: JsonContext,
  env: PolicyEvalEnv,
): Record<string, string> | undefined {
  if (!rule.reportProperties) return undefined;
  const r = substitute(
    { jp: env.jp, ctx: base, isDelete: false, memo: env.memo },
    rule.reportProperties,
    "/reportProperties",
    "lenient",
  );
  if (!r.ok || r.value === null || typeof r.value !== "object" || Array.isArray(r.value))
    return rule.reportProperties;
  return Object.fromEntries(
    Object.entries(r.value).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v as JsonValue)]),
  );
}

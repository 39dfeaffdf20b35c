/**
 * `validate.cel` rules of kyverno.io ClusterPolicies and Policies: the same compiled block as the
 * CEL policy kinds (variables, expressions with their messages, audit annotations), with the rule's
 * `celPreconditions` as match conditions and `paramKind` / `paramRef` parameters from the data
 * loader. The classic pipeline has matched the rule; this evaluates it.
 */
import type { CelValue } from "@bufbuild/cel";
import type { JsonObject, JsonValue, KubeObject, NamedExpression, Rule } from "@kyverno-ts/api";
import type { Budget } from "../budget/budget.js";
import type { CelEnvironment } from "../cel/env.js";
import { createSession } from "../cel/session.js";
import { toCelValue, type ValueCache } from "../cel/values.js";
import type { CompileIssue, ContextLoader, EngineRequest } from "../engine-types.js";
import { CEL_PRECONDITIONS_NOT_MET } from "../response/messages.js";
import type { Outcome } from "../response/types.js";
import {
  BlockCompiler,
  type CompiledBlock,
  evaluateAuditAnnotations,
  evaluateConditions,
  evaluateValidations,
} from "./block.js";
import { requestBindings, requestTarget } from "./request.js";
import { pluralOf } from "./resources.js";
import { policyBindings } from "./variables.js";

/** A compiled `validate.cel` rule. */
export interface CompiledCelRule {
  readonly block: CompiledBlock;
  readonly paramKind: { apiVersion: string; kind: string } | undefined;
  readonly paramRef: { name?: string; namespace?: string } | undefined;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function namedList(value: JsonValue | undefined): NamedExpression[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isObject)
    .map((v) => ({ name: String(v.name ?? ""), expression: String(v.expression ?? "") }));
}

/** Compiles the `validate.cel` of a rule (and its `celPreconditions`); issues name the field path. */
export function compileCelRule(
  env: CelEnvironment,
  rule: Rule,
  path: string,
  issues: CompileIssue[],
): CompiledCelRule | undefined {
  const cel = rule.validate?.cel;
  if (!isObject(cel)) return undefined;
  const compiler = new BlockCompiler(env);
  const validations = (Array.isArray(cel.expressions) ? cel.expressions : []).filter(isObject).map((e) => ({
    expression: String(e.expression ?? ""),
    ...(typeof e.message === "string" ? { message: e.message } : {}),
    ...(typeof e.messageExpression === "string" ? { messageExpression: e.messageExpression } : {}),
    ...(typeof e.reason === "string" ? { reason: e.reason } : {}),
  }));
  const auditAnnotations = (Array.isArray(cel.auditAnnotations) ? cel.auditAnnotations : [])
    .filter(isObject)
    .map((a) => ({ key: String(a.key ?? ""), valueExpression: String(a.valueExpression ?? "") }));
  const block = compiler.block(
    {
      matchConditions: namedList(rule.celPreconditions as JsonValue | undefined),
      variables: namedList(cel.variables),
      validations,
      auditAnnotations,
    },
    `${path}.validate.cel`,
    "expressions",
  );
  issues.push(...compiler.issues);
  const paramKind = isObject(cel.paramKind)
    ? { apiVersion: String(cel.paramKind.apiVersion ?? ""), kind: String(cel.paramKind.kind ?? "") }
    : undefined;
  const paramRef = isObject(cel.paramRef)
    ? {
        ...(typeof cel.paramRef.name === "string" ? { name: cel.paramRef.name } : {}),
        ...(typeof cel.paramRef.namespace === "string" ? { namespace: cel.paramRef.namespace } : {}),
      }
    : undefined;
  return { block, paramKind, paramRef };
}

const NO_EXCEPTION_VALUES = toCelValue({ allowedValues: [], allowedImages: [] });

/** What evaluating a `validate.cel` rule reads from the engine. */
export interface CelRuleEnv {
  readonly values: ValueCache;
  readonly loader: ContextLoader;
  readonly now: Date;
  readonly namespaceLabels: (namespace: string) => Record<string, string> | undefined;
  /** The rule's evaluation budget: its CEL cost limit and the request's deadline. */
  readonly budget?: Budget | undefined;
}

function paramsOf(rule: CompiledCelRule, loader: ContextLoader, namespace: string): CelValue | string {
  if (rule.paramKind === undefined || rule.paramRef?.name === undefined) return null;
  const result = loader.kubeResource?.({
    verb: "get",
    apiVersion: rule.paramKind.apiVersion,
    resource: pluralOf(rule.paramKind.kind),
    namespace: rule.paramRef.namespace ?? namespace,
    name: rule.paramRef.name,
  });
  if (result === undefined) return "params: no data source is configured";
  if (!result.ok) return `params: ${result.error}`;
  return toCelValue(result.value);
}

/**
 * Evaluates a `validate.cel` rule: `celPreconditions` false is a `skip`; then the expressions in
 * order (the first false fails with its message, an error is an `error`), else `pass`.
 */
export function evaluateCelRule(
  rule: CompiledCelRule,
  ruleName: string,
  req: EngineRequest,
  env: CelRuleEnv,
): Outcome & { properties?: Record<string, string> } {
  return evaluateWithin(rule, ruleName, req, env);
}

function evaluateWithin(
  rule: CompiledCelRule,
  ruleName: string,
  req: EngineRequest,
  env: CelRuleEnv,
): Outcome & { properties?: Record<string, string> } {
  const target = requestTarget(req);
  const budget = env.budget;
  const session = createSession({
    loader: env.loader,
    now: env.now,
    ...(budget ? { budget: budget.celCost, expired: () => budget.expired() } : {}),
  });
  const labels = req.namespaceLabels ?? env.namespaceLabels(target.namespace);
  const namespace = (): KubeObject | undefined =>
    target.namespace === ""
      ? undefined
      : {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: { name: target.namespace, ...(labels ? { labels } : {}) },
        };
  const params = paramsOf(rule, env.loader, target.namespace);
  if (typeof params === "string") return { status: "error", message: params };
  const bindings = policyBindings(
    requestBindings(req, target, namespace, { reads: rule.block.reads, values: env.values }),
    params,
    NO_EXCEPTION_VALUES,
    rule.block.variableIndex,
    session,
  );
  const conditions = evaluateConditions(rule.block.matchConditions, bindings, session);
  if ("error" in conditions) return { status: "error", message: conditions.error };
  if (!conditions.matched) return { status: "skip", message: CEL_PRECONDITIONS_NOT_MET };
  const evaluated = evaluateValidations(rule.block.validations, bindings, session);
  // The API server's validator denies on an evaluation error (failurePolicy Fail), and upstream
  // reports a denied `validate.cel` rule as a failure.
  // A rule stopped by its cost budget or the deadline was not evaluated: that stays an `error`.
  const outcome =
    evaluated.status === "error" && session.stopped === undefined
      ? { ...evaluated, status: "fail" as const }
      : evaluated;
  const message = outcome.status === "pass" ? `validation rule '${ruleName}' passed.` : outcome.message;
  const annotations = evaluateAuditAnnotations(rule.block.auditAnnotations, bindings, session);
  return Object.keys(annotations).length > 0
    ? { status: outcome.status, message, properties: annotations }
    : { status: outcome.status, message };
}

/**
 * The CEL policy kinds' step before their own work (as `evaluation/prepare.ts` is the classic rules'),
 * once per request: which variant matches (match constraints, or any payload in JSON mode), its match
 * conditions, then the PolicyExceptions bound to the policy, and the bindings the kind's work sees.
 * What the outcome becomes in the response is the rule pipeline's (`pipeline/cel-rule.ts`).
 */
import type { CelValue } from "@bufbuild/cel";
import type { KubeObject } from "@kyverno-ts/api";
import type { EvaluationLimits } from "../budget/budget.js";
import { type CelSession, createSession, type SessionOptions } from "../cel/session.js";
import { toCelValue, type ValueCache } from "../cel/values.js";
import type { ContextLoader, EngineRequest } from "../engine-types.js";
import type { ExceptionRef } from "../exceptions/exceptions.js";
import { evaluateConditions } from "./block.js";
import type { CompiledCelPolicyImpl, CompiledException, CompiledVariant } from "./compile.js";
import { matchesConstraints } from "./match.js";
import { type RequestBindings, type RequestTarget, requestBindings } from "./request.js";
import { policyBindings, withVariables } from "./variables.js";

/** What the engine's evaluation reads besides the policy and the request. */
export interface CelEvalEnv {
  readonly loader: ContextLoader;
  readonly now: () => Date;
  /** The engine's clock in milliseconds (the request's deadline is on it). */
  readonly readNow: () => number;
  readonly namespaceLabels: (namespace: string) => Record<string, string> | undefined;
  readonly namespaceObject: (namespace: string) => KubeObject | undefined;
  /** The work one policy evaluation may do (`celCost`: comprehension iterations). */
  readonly limits: Readonly<EvaluationLimits>;
  readonly deadlineMs: number | undefined;
  /** Converted request objects, shared by the policies of one request. */
  readonly values: ValueCache;
}

/** The `exceptions` binding when no exception supplies values. */
const NO_EXCEPTION_VALUES = toCelValue({ allowedValues: [], allowedImages: [] });

/** A request that reached the policy's own work: the variant, the bindings (with variables), the session. */
export interface Prepared {
  readonly variant: CompiledVariant;
  readonly bindings: Record<string, CelValue>;
  readonly session: CelSession;
}

/**
 * Where the step ended: the policy does not match; its match conditions erred (failurePolicy
 * `Fail`); a PolicyException exempts it (`pass` with `reportResult: pass`); or its work may run.
 */
export type CelPrepared =
  | { readonly kind: "unmatched" }
  | { readonly kind: "error"; readonly message: string }
  | { readonly kind: "exempt"; readonly exception: ExceptionRef; readonly pass: boolean }
  | { readonly kind: "prepared"; readonly prepared: Prepared };

const UNMATCHED: CelPrepared = Object.freeze({ kind: "unmatched" });

/** What the step reads of the request beside it: its target, time and whether its deadline has passed. */
export interface PrepareInput {
  readonly target: RequestTarget;
  readonly now: Date;
  readonly expired: () => boolean;
}

function namespaceOf(env: CelEvalEnv, namespace: string): KubeObject | undefined {
  if (namespace === "") return undefined;
  const found = env.namespaceObject(namespace);
  if (found !== undefined) return found;
  const labels = env.namespaceLabels(namespace);
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: namespace, ...(labels ? { labels } : {}) },
  };
}

function exceptionApplies(
  e: CompiledException,
  bindings: Record<string, CelValue>,
  session: CelSession,
): boolean {
  if (e.conditions.length === 0) return true;
  const out = evaluateConditions(e.conditions, bindings, session);
  return out.matched;
}

/**
 * Runs the step: the first variant whose constraints match (any payload in JSON mode); its match
 * conditions (an error follows `failurePolicy`: `Fail` reports it, `Ignore` skips the policy); a
 * PolicyException whose conditions hold exempts the policy, one that supplies images or values is
 * read by the policy as `exceptions.allowedImages` / `exceptions.allowedValues` instead.
 */
export function prepareCel(
  policy: CompiledCelPolicyImpl,
  req: EngineRequest,
  env: CelEvalEnv,
  { target, now, expired }: PrepareInput,
): CelPrepared {
  const namespaceLabels = req.namespaceLabels ?? env.namespaceLabels(target.namespace);
  const input = { target, namespaceLabels, oldObject: req.oldResource };
  const variant = policy.jsonMode
    ? policy.variants[0]
    : policy.variants.find((v) => matchesConstraints(v.constraints, input));
  if (variant === undefined) return UNMATCHED;
  const options: SessionOptions = {
    loader: req.contextLoader ?? env.loader,
    now,
    budget: env.limits.celCost,
    expired,
  };
  if (env.deadlineMs !== undefined) options.deadlineMs = env.deadlineMs;
  const session = createSession(options);
  const base: RequestBindings = policy.jsonMode
    ? {
        object: env.values.of(req.resource as never),
        oldObject: null,
        request: null,
        namespaceObject: null,
        authorizer: null,
      }
    : requestBindings(req, target, () => namespaceOf(env, target.namespace), {
        reads: variant.reads,
        values: env.values,
      });
  const bindings = policyBindings(base, null, NO_EXCEPTION_VALUES, variant.block.variableIndex, session);
  const conditions = evaluateConditions(variant.block.matchConditions, bindings, session);
  if (!conditions.matched) {
    if (!("error" in conditions) || policy.failurePolicy === "Ignore") return UNMATCHED;
    return { kind: "error", message: conditions.error };
  }
  const allowedImages: string[] = [];
  const allowedValues: string[] = [];
  for (const e of policy.exceptions) {
    if (!exceptionApplies(e, bindings, session)) continue;
    const spec = e.exception.spec;
    if ((spec.images ?? []).length > 0 || (spec.allowedValues ?? []).length > 0) {
      allowedImages.push(...(spec.images ?? []));
      allowedValues.push(...(spec.allowedValues ?? []));
      continue;
    }
    const meta = e.exception.metadata;
    const exception = { namespace: meta.namespace ?? "", name: meta.name };
    return { kind: "exempt", exception, pass: spec.reportResult === "pass" };
  }
  if (allowedImages.length > 0 || allowedValues.length > 0) {
    const exceptions = toCelValue({ allowedImages, allowedValues });
    const scoped = withVariables({ ...bindings, exceptions }, variant.block.variableIndex, session);
    return { kind: "prepared", prepared: { variant, bindings: scoped, session } };
  }
  return { kind: "prepared", prepared: { variant, bindings, session } };
}

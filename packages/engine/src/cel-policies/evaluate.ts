/**
 * The steps every CEL policy kind runs before its own work, once per request: which variant
 * matches (match constraints, or any payload in JSON mode), its match conditions, then the
 * PolicyExceptions bound to the policy; and the response around the kind's result.
 */
import type { CelValue } from "@bufbuild/cel";
import type { KubeObject } from "@kyverno-ts/api";
import { type CelSession, createSession, type SessionOptions } from "../cel/session.js";
import { toCelValue, type ValueCache } from "../cel/values.js";
import type { ContextLoader, EngineRequest } from "../engine-types.js";
import type { PolicyResponse, ResourceRef, RuleResponse, RuleType } from "../response/types.js";
import { evaluateConditions, policyBindings, withVariables } from "./block.js";
import type { CompiledCelPolicyImpl, CompiledException, CompiledVariant } from "./compile.js";
import { matchesConstraints } from "./match.js";
import { type RequestBindings, requestBindings, requestTarget } from "./request.js";

/** What the engine's evaluation reads besides the policy and the request. */
export interface CelEvalEnv {
  readonly loader: ContextLoader;
  readonly now: () => Date;
  readonly namespaceLabels: (namespace: string) => Record<string, string> | undefined;
  readonly namespaceObject: (namespace: string) => KubeObject | undefined;
  readonly budget: number | undefined;
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

/** Where the steps before the policy's work ended: not matched, or a finished rule response. */
export type PrepareOutcome =
  | { kind: "prepared"; prepared: Prepared }
  | { kind: "unmatched" }
  | { kind: "done"; rule: RuleResponse };

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

/** The reference of the resource a request is about. */
function celResourceRef(req: EngineRequest): ResourceRef {
  const obj = req.operation === "DELETE" ? (req.oldResource ?? req.resource) : req.resource;
  return {
    apiVersion: obj.apiVersion ?? "",
    kind: obj.kind ?? "",
    name: obj.metadata?.name ?? "",
    namespace: obj.metadata?.namespace ?? "",
    uid: typeof obj.metadata?.uid === "string" ? obj.metadata.uid : "",
  };
}

/** An empty response of the policy for the request. */
export function celResponse(policy: CompiledCelPolicyImpl, req: EngineRequest, now: Date): PolicyResponse {
  const response: PolicyResponse = {
    policy: {
      kind: policy.policy.kind,
      name: policy.name,
      ...(policy.namespace !== undefined ? { namespace: policy.namespace } : {}),
    },
    resource: celResourceRef(req),
    rules: [],
    background: policy.background,
    timestamp: now.getTime(),
  };
  if (policy.category !== undefined) response.category = policy.category;
  if (policy.severity !== undefined) response.severity = policy.severity;
  return response;
}

/**
 * A rule response of the policy. Its rule name is upstream's: a GeneratingPolicy's results are named
 * after the policy (the exceptions guide's GeneratingPolicy report: `rule: generate-configmap`), the
 * other kinds' after no rule.
 */
export function celRule(
  policy: CompiledCelPolicyImpl,
  type: RuleType,
  status: RuleResponse["status"],
  message: string,
  name = type === "Generation" ? policy.name : "",
): RuleResponse {
  return { name, type, status, message, failureAction: policy.enforce ? "Enforce" : "Audit" };
}

/**
 * The result of a PolicyException that skips the policy, as upstream reports it (the exceptions
 * guide): a validating kind's is rule `exception` with `rule is skipped due to policy exception: <ns/name>`;
 * a GeneratingPolicy's is named after the policy, without a message.
 */
function exceptionRule(
  policy: CompiledCelPolicyImpl,
  type: RuleType,
  status: RuleResponse["status"],
  ref: string,
): RuleResponse {
  if (type === "Generation") return celRule(policy, type, status, "");
  const validating = policy.type === "validate" || policy.type === "imageValidate";
  const message = `rule is skipped due to policy exception: ${ref}`;
  return validating
    ? celRule(policy, type, status, message, "exception")
    : celRule(policy, type, status, message);
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
 * Runs the shared steps: a namespaced policy only sees its namespace; the first variant whose
 * constraints match (any payload in JSON mode); its match conditions (an error follows
 * `failurePolicy`: `Fail` reports it, `Ignore` skips the policy); a PolicyException whose
 * conditions hold turns the result into `skip` (or `pass` with `reportResult: pass`).
 */
export function prepare(
  policy: CompiledCelPolicyImpl,
  req: EngineRequest,
  env: CelEvalEnv,
  type: RuleType,
  now: Date = env.now(),
): PrepareOutcome {
  const target = requestTarget(req);
  if (policy.namespace !== undefined && target.namespace !== policy.namespace) return { kind: "unmatched" };
  const namespaceLabels = req.namespaceLabels ?? env.namespaceLabels(target.namespace);
  const input = { target, namespaceLabels, oldObject: req.oldResource };
  const variant = policy.jsonMode
    ? policy.variants[0]
    : policy.variants.find((v) => matchesConstraints(v.constraints, input));
  if (variant === undefined) return { kind: "unmatched" };
  const deadline = req.deadline;
  const options: SessionOptions = { loader: req.contextLoader ?? env.loader, now };
  if (deadline !== undefined) options.expired = () => env.now().getTime() > deadline;
  if (env.budget !== undefined) options.budget = env.budget;
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
    if (!("error" in conditions) || policy.failurePolicy === "Ignore") return { kind: "unmatched" };
    return { kind: "done", rule: celRule(policy, type, "error", conditions.error) };
  }
  // An exception that supplies images or values does not skip: the policy reads them as
  // `exceptions.allowedImages` / `exceptions.allowedValues`.
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
    const ref = meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
    const pass = spec.reportResult === "pass";
    const rule = exceptionRule(policy, type, pass ? "pass" : "skip", ref);
    rule.exception = { namespace: meta.namespace ?? "", name: meta.name };
    // Upstream's report rows name the exception (by name) in their properties (the exceptions guide).
    rule.properties = { exceptions: meta.name };
    return { kind: "done", rule };
  }
  if (allowedImages.length > 0 || allowedValues.length > 0) {
    const exceptions = toCelValue({ allowedImages, allowedValues });
    const scoped = withVariables({ ...bindings, exceptions }, variant.block.variableIndex, session);
    return { kind: "prepared", prepared: { variant, bindings: scoped, session } };
  }
  return { kind: "prepared", prepared: { variant, bindings, session } };
}

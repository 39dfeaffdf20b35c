/**
 * The work of each CEL policy kind after the shared steps (`evaluate.ts`): validations, mutations
 * (JSON patches and apply configurations, each seeing the object as the ones before it left it),
 * generate expressions and deletion conditions. Each returns the policy's response for the request.
 */
import type { CelValue } from "@bufbuild/cel";
import type { CelMutation, GeneratingPolicySpec, JsonValue, KubeObject } from "@kyverno-ts/api";
import type { CelSession } from "../cel/session.js";
import { toCelValue, toJson } from "../cel/values.js";
import type { EngineRequest } from "../engine-types.js";
import { applyJson6902, applyStrategicMerge, diffJson6902 } from "../mutate/index.js";
import type { PolicyResponse, RuleResponse, RuleType } from "../response/types.js";
import { bindingParams } from "./bindings.js";
import { evaluateAuditAnnotations, evaluateConditions, evaluateValidations, withVariables } from "./block.js";
import type { CompiledCelPolicyImpl, CompiledVariant } from "./compile.js";
import { type CelEvalEnv, celResponse, celRule, type Prepared, prepare } from "./evaluate.js";
import { requestTarget } from "./request.js";

/** Runs the shared steps, then `work` for a request that reached the policy's own work. */
export function respond(
  policy: CompiledCelPolicyImpl,
  req: EngineRequest,
  env: CelEvalEnv,
  type: RuleType,
  work: (
    p: NonNullable<Extract<ReturnType<typeof prepare>, { kind: "prepared" }>["prepared"]>,
    response: PolicyResponse,
  ) => void,
): PolicyResponse {
  const now = env.now();
  const response = celResponse(policy, req, now);
  if (req.background && !policy.background) return response;
  const prepared = prepare(policy, req, env, type, now);
  if (prepared.kind === "unmatched") return response;
  if (prepared.kind === "done") {
    response.rules.push(prepared.rule);
    return response;
  }
  if (policy.unsupported !== undefined) {
    response.rules.push(celRule(policy, type, "error", policy.unsupported));
    return response;
  }
  work(prepared.prepared, response);
  return response;
}

/** A ValidatingPolicy (or ValidatingAdmissionPolicy): one result named after no rule, as upstream. */
export function validateCel(
  policy: CompiledCelPolicyImpl,
  req: EngineRequest,
  env: CelEvalEnv,
): PolicyResponse {
  return respond(policy, req, env, "Validation", (prepared, response) => {
    if (policy.bindings.length === 0) {
      response.rules.push(validationRule(policy, prepared, prepared.bindings, policy.enforce));
      return;
    }
    const loader = req.contextLoader ?? env.loader;
    const labels = req.namespaceLabels ?? env.namespaceLabels(requestTarget(req).namespace);
    for (const binding of policy.bindings) {
      const selected = bindingParams(binding, policy.paramKind, req, loader, labels);
      if (selected.kind === "skip") continue;
      if (selected.kind === "denied") {
        response.rules.push({
          ...celRule(policy, "Validation", "fail", selected.message),
          failureAction: selected.enforce ? "Enforce" : "Audit",
        });
        return;
      }
      for (const params of selected.params) {
        const scoped = withVariables(
          { ...prepared.bindings, params },
          prepared.variant.block.variableIndex,
          prepared.session,
        );
        const rule = validationRule(policy, prepared, scoped, selected.enforce);
        if (rule.status !== "pass" || params === selected.params.at(-1)) {
          response.rules.push(rule);
          if (rule.status !== "pass") return;
        }
      }
    }
  });
}

/** The result of a policy's validations (and audit annotations) with some bindings. */
function validationRule(
  policy: CompiledCelPolicyImpl,
  { variant, session }: Prepared,
  bindings: Record<string, CelValue>,
  enforce: boolean,
): RuleResponse {
  const outcome = evaluateValidations(variant.block.validations, bindings, session);
  // A ValidatingPolicy's pass says `success`, as upstream's (the CLI guide's reports); a Kubernetes
  // ValidatingAdmissionPolicy's says nothing.
  const message =
    outcome.status === "pass" &&
    policy.type === "validate" &&
    policy.policy.kind !== "ValidatingAdmissionPolicy"
      ? "success"
      : outcome.message;
  const rule = celRule(policy, "Validation", outcome.status, message);
  rule.failureAction = enforce ? "Enforce" : "Audit";
  const annotations = evaluateAuditAnnotations(variant.block.auditAnnotations, bindings, session);
  if (Object.keys(annotations).length > 0) rule.properties = annotations;
  return rule;
}

/**
 * A MutatingPolicy: mutations in order, each evaluated against the object as patched so far; the
 * response carries the patched resource and the RFC 6902 patch from the original.
 */
export function mutateCel(
  policy: CompiledCelPolicyImpl,
  req: EngineRequest,
  env: CelEvalEnv,
): PolicyResponse {
  return respond(policy, req, env, "Mutation", ({ variant, bindings, session }, response) => {
    if (policy.targets !== undefined) return; // mutate-existing: see `mutateExistingCel`
    let scoped = bindings;
    if (policy.bindings.length > 0) {
      // A MutatingAdmissionPolicy mutates through the first binding that selects the request,
      // with the first parameter object it selects.
      const loader = req.contextLoader ?? env.loader;
      const labels = req.namespaceLabels ?? env.namespaceLabels(requestTarget(req).namespace);
      const selected = policy.bindings
        .map((b) => bindingParams(b, policy.paramKind, req, loader, labels))
        .find((s) => s.kind !== "skip");
      if (selected === undefined) return;
      if (selected.kind === "denied") {
        response.rules.push(celRule(policy, "Mutation", "error", selected.message));
        return;
      }
      scoped = withVariables(
        { ...bindings, params: selected.params[0] ?? null },
        variant.block.variableIndex,
        session,
      );
    }
    const original = req.resource as unknown as JsonValue;
    const applied = applyMutations(variant, scoped, session, original);
    if (!applied.ok) {
      response.rules.push(celRule(policy, "Mutation", "error", applied.error));
      return;
    }
    response.rules.push(celRule(policy, "Mutation", "pass", "success"));
    response.patchedResource = applied.value;
    response.patch = diffJson6902(original, applied.value);
  });
}

/**
 * Applies a variant's mutations in order to `original`, each evaluated with `object` bound to the
 * object as the mutations before it left it.
 */
export function applyMutations(
  variant: CompiledVariant,
  bindings: Record<string, CelValue>,
  session: CelSession,
  original: JsonValue,
): { ok: true; value: JsonValue } | { ok: false; error: string } {
  let current = original;
  let scoped = bindings;
  for (const m of variant.mutations) {
    const out = m.program.evaluate(scoped, session);
    if (!out.ok) return { ok: false, error: `${m.program.expression}: ${out.error}` };
    const patch = nestUnderTemplate(toJson(out.value), m.patchType, variant.name);
    const applied =
      m.patchType === "JSONPatch"
        ? applyJson6902(current, patch, { allowMissingPathOnRemove: false, ensurePathExistsOnAdd: false })
        : applyStrategicMerge(current, patch);
    if (!applied.ok) return applied;
    if (applied.value !== current) {
      current = applied.value;
      scoped = withVariables(
        { ...bindings, object: toCelValue(current) },
        variant.block.variableIndex,
        session,
      );
    }
  }
  return { ok: true, value: current };
}

/** Where an autogen variant's Pod lives in the controller: its path segments. */
const TEMPLATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  autogen: ["spec", "template"],
  "autogen-cronjobs": ["spec", "jobTemplate", "spec", "template"],
};

/**
 * A MutatingPolicy's patch for the controller of an autogen variant: an apply configuration's Pod
 * `metadata` and `spec` nested under the Pod template (other fields left as they are), a JSON
 * patch's `/metadata…` and `/spec…` paths moved under it. The policy's own variant is unchanged.
 */
export function nestUnderTemplate(
  patch: JsonValue,
  patchType: CelMutation["patchType"],
  variant: string,
): JsonValue {
  const template = TEMPLATE_PATHS[variant];
  if (template === undefined) return patch;
  if (patchType === "JSONPatch") {
    if (!Array.isArray(patch)) return patch;
    const prefix = `/${template.join("/")}`;
    const move = (path: JsonValue | undefined): JsonValue | undefined =>
      typeof path === "string" && /^\/(spec|metadata)(\/|$)/.test(path) ? `${prefix}${path}` : path;
    return patch.map((op) => {
      if (op === null || typeof op !== "object" || Array.isArray(op)) return op;
      const out: Record<string, JsonValue> = { ...op };
      const path = move(op.path);
      const from = move(op.from);
      if (path !== undefined) out.path = path;
      if (from !== undefined) out.from = from;
      return out;
    });
  }
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const { metadata, spec, ...rest } = patch;
  if (metadata === undefined && spec === undefined) return patch;
  let pod: JsonValue = {
    ...(metadata === undefined ? {} : { metadata }),
    ...(spec === undefined ? {} : { spec }),
  };
  for (const key of [...template].reverse()) pod = { [key]: pod };
  return { ...rest, ...(pod as Record<string, JsonValue>) };
}

/** A GeneratingPolicy: the objects its `generator.Apply` calls produce. */
export function generateCel(
  policy: CompiledCelPolicyImpl,
  req: EngineRequest,
  env: CelEvalEnv,
): PolicyResponse {
  return respond(policy, req, env, "Generation", ({ variant, bindings, session }, response) => {
    const generated: KubeObject[] = [];
    session.generated = generated;
    for (const g of variant.generate) {
      const out = g.evaluate(bindings, session);
      if (!out.ok) {
        response.rules.push(celRule(policy, "Generation", "error", `${g.expression}: ${out.error}`));
        return;
      }
    }
    const rule = celRule(policy, "Generation", "pass", "policy evaluated successfully");
    rule.generated = generated.map((object) => ({ object, labels: {} }));
    const evaluation = (policy.policy.spec as { evaluation?: GeneratingPolicySpec["evaluation"] }).evaluation;
    rule.synchronize = evaluation?.synchronize?.enabled ?? false;
    rule.orphanDownstreamOnPolicyDelete = evaluation?.orphanDownstreamOnPolicyDelete?.enabled ?? false;
    rule.generateExisting = evaluation?.generateExisting?.enabled ?? false;
    response.rules.push(rule);
  });
}

/** A DeletingPolicy: `pass` when every condition holds (the resource is to be deleted), else `skip`. */
export function deleteCel(
  policy: CompiledCelPolicyImpl,
  req: EngineRequest,
  env: CelEvalEnv,
): PolicyResponse {
  return respond(policy, req, env, "Validation", ({ variant, bindings, session }, response) => {
    const out = evaluateConditions(variant.conditions, bindings, session);
    const rule =
      "error" in out
        ? celRule(policy, "Validation", "error", out.error)
        : celRule(
            policy,
            "Validation",
            out.matched ? "pass" : "skip",
            out.matched ? "resource is to be deleted" : "conditions not met",
          );
    response.rules.push(rule);
  });
}

import type { Rule } from "@kyverno-ts/api";
import type { EngineRequest } from "../engine-types.js";
import { type GenerateIdentity, type GenerateOutcome, generateOutcome } from "../generate/generate.js";
import { PRECONDITIONS_NOT_MET, substitutionErrorMessage } from "../response/messages.js";
import type { ResourceRef } from "../response/types.js";
import { evaluateConditions } from "./conditions.js";
import { loadContext } from "./context-entries.js";
import { type JsonContext, withValues } from "./json-context.js";
import type { PolicyEvalEnv } from "./policy.js";

/** Evaluates a generate rule that matched: context, preconditions, then the desired objects. */
export function generateRuleOutcome(
  rule: Rule,
  base: JsonContext,
  req: EngineRequest,
  env: PolicyEvalEnv,
  preset: ReadonlySet<string>,
  policy: { name: string; namespace: string },
  resource: ResourceRef,
): GenerateOutcome | undefined {
  const generation = rule.generate;
  if (!generation) return undefined;
  const scope = { jp: env.jp, ctx: base, isDelete: req.operation === "DELETE", memo: env.memo };
  const loaded = loadContext(scope, rule.context, env.loader, preset, "/context");
  if (!loaded.ok) {
    return {
      status: "error",
      message: substitutionErrorMessage("failed to load context", loaded.error),
      generated: [],
    };
  }
  const s = { ...scope, ctx: withValues(loaded.ctx, req.ruleValues?.(rule.name)) };
  const pre = evaluateConditions(s, rule.preconditions, "/preconditions", "lenient");
  if (!pre.ok) {
    return {
      status: "error",
      message: substitutionErrorMessage("failed to evaluate preconditions", pre.error),
      generated: [],
    };
  }
  if (!pre.value) return { status: "skip", message: PRECONDITIONS_NOT_MET, generated: [] };
  const id: GenerateIdentity = {
    policyName: policy.name,
    policyNamespace: policy.namespace,
    ruleName: rule.name,
    trigger: resource,
  };
  return generateOutcome(s, generation, id, env.loader, preset);
}

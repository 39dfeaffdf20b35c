import type { JsonValue, KubeObject, TargetSelector } from "@kyverno-ts/api";
import type { CompiledPolicyImpl } from "../compile/compiled.js";
import type { EngineRequest } from "../engine-types.js";
import { exceptionsForRule } from "../exceptions/exceptions.js";
import { matchesRule } from "../match/index.js";
import { diffJson6902, jsonEqual } from "../mutate/index.js";
import { exceptionSkipMessage } from "../response/messages.js";
import type { PolicyResponse, RuleResponse, TargetPatch } from "../response/types.js";
import { withValue, withValues } from "./json-context.js";
import { applyMutation, prepareRule } from "./mutate-rule.js";
import {
  acceptedExceptions,
  emptyResponse,
  type PolicyEvalEnv,
  presetNames,
  requestFacts,
} from "./policy.js";
import { requestContext } from "./request-context.js";
import { substitute } from "./variables.js";

type Step<T> = { ok: true; value: T } | { ok: false; error: string };

/** Resolves one `targets[]` entry (variables substituted) to objects through the loader. */
function resolveTargets(sel: TargetSelector, env: PolicyEvalEnv): Step<KubeObject[]> {
  if (sel.name && !sel.name.includes("*") && env.loader.getResource) {
    const r = env.loader.getResource(sel.apiVersion, sel.kind, sel.namespace ?? "", sel.name);
    return r.ok ? { ok: true, value: [r.value as KubeObject] } : { ok: true, value: [] };
  }
  if (!env.loader.listResources)
    return { ok: false, error: "target resources are not available (no resource loader)" };
  const r = env.loader.listResources([`${sel.apiVersion}/${sel.kind}`], sel.namespace ?? "", sel.selector);
  if (!r.ok) return { ok: false, error: r.error };
  const all = (Array.isArray(r.value) ? r.value : []) as unknown as KubeObject[];
  const name = sel.name;
  return { ok: true, value: name ? all.filter((o) => matchName(name, o.metadata?.name ?? "")) : all };
}

function matchName(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  const [head = "", ...rest] = pattern.split("*");
  return name.startsWith(head) && name.endsWith(rest[rest.length - 1] ?? "");
}

/**
 * Mutate-existing rules (`mutate.targets`): for a trigger request, resolves the targets through the
 * loader and computes the patched target and its RFC 6902 patch for each (never writes). Variables
 * see the trigger as `request.object` and each target as `target`.
 */
export function mutateExistingPolicy(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
): PolicyResponse {
  const response = emptyResponse(policy, req, env);
  if (req.background && !policy.policy.spec.background) return response;
  // A namespaced Policy only applies to triggers in its namespace.
  if (policy.namespace !== undefined && response.resource.namespace !== policy.namespace) return response;
  const preset = presetNames(req, env);
  const { gvk, matchReq } = requestFacts(policy, req, env, response.resource);
  const exceptions = acceptedExceptions(req, env);
  for (const { rule, mayMatchKind } of policy.rulesFor(matchReq.kind)) {
    const mutation = rule.mutate;
    if (!mutation?.targets || mutation.targets.length === 0) continue;
    if (!mayMatchKind(matchReq) || !matchesRule(rule.match, rule.exclude, matchReq, env.memo.kindSelectors))
      continue;
    const base = withValues(requestContext(req, gvk, policy.usesImages), req.values);
    const r: RuleResponse = {
      name: rule.name,
      type: "Mutation",
      status: "skip",
      message: "",
      failureAction: "Audit",
    };
    response.rules.push(r);
    const scope = { jp: env.jp, ctx: base, isDelete: req.operation === "DELETE", memo: env.memo };
    if (exceptions.length > 0) {
      const found = exceptionsForRule(
        exceptions,
        policy.key,
        rule.name,
        matchReq,
        scope,
        req.background ?? false,
      );
      if (found.skipping.length > 0) {
        r.message = exceptionSkipMessage(found.skipping.map((e) => `${e.namespace}/${e.name}`));
        r.exception = found.skipping[0] as { namespace: string; name: string };
        continue;
      }
    }
    const prepared = prepareRule(scope, rule, env, preset, req.ruleValues?.(rule.name));
    if ("status" in prepared) {
      r.status = prepared.status === "applied" ? "pass" : prepared.status;
      r.message = "message" in prepared ? prepared.message : "";
      continue;
    }
    const patches: TargetPatch[] = [];
    let error: string | undefined;
    for (let i = 0; i < mutation.targets.length && error === undefined; i++) {
      const { context, preconditions, ...selector } = mutation.targets[i] as TargetSelector;
      const sel = substitute(prepared, selector as unknown as JsonValue, `/mutate/targets/${i}`);
      if (!sel.ok) {
        error = sel.error;
        break;
      }
      const targets = resolveTargets(sel.value as unknown as TargetSelector, env);
      if (!targets.ok) {
        error = targets.error;
        break;
      }
      for (const target of targets.value) {
        const tScope = {
          ...prepared,
          ctx: withValue(prepared.ctx, "target", target as unknown as JsonValue),
        };
        const tPrepared = prepareRule(
          tScope,
          { ...(context ? { context } : {}), ...(preconditions ? { preconditions } : {}) },
          env,
          preset,
          undefined,
        );
        if ("status" in tPrepared) {
          if (tPrepared.status === "skip") continue;
          error = "message" in tPrepared ? tPrepared.message : "target evaluation failed";
          break;
        }
        // `{{@}}` and `request.object` paths in the patch refer to the target.
        const patchScope = {
          ...tPrepared,
          ctx: withValue(tPrepared.ctx, "request.object", target as unknown as JsonValue),
        };
        const { targets: _t, ...patchOnly } = mutation;
        const step = applyMutation(patchScope, patchOnly, target as unknown as JsonValue, env, preset);
        if (step.status === "applied") {
          if (!jsonEqual(step.resource, target as unknown as JsonValue)) {
            patches.push({
              target,
              patched: step.resource,
              patch: diffJson6902(target as unknown as JsonValue, step.resource),
            });
          }
        } else if (step.status !== "skip") {
          error = step.message;
          break;
        }
      }
    }
    if (error !== undefined) {
      r.status = "error";
      r.message = `failed to mutate existing resources: ${error}`;
    } else if (patches.length > 0) {
      r.status = "pass";
      r.message = `mutated ${patches.length} target resource(s)`;
      r.patchedTargets = patches;
    } else {
      r.message = "no target resources were changed";
    }
  }
  return response;
}

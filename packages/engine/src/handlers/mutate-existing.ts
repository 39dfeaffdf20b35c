/**
 * Mutate-existing rules (`mutate.targets`): for a trigger request, resolves the targets through the
 * loader and computes each target's patched form and RFC 6902 patch (never writes). Variables see the
 * trigger as `request.object` and each target as `target`.
 */
import type { JsonValue, KubeObject, TargetSelector } from "@kyverno-ts/api";
import { jsonEqual } from "@kyverno-ts/k8s";
import { withValue } from "../evaluation/json-context.js";
import { ended, prepare } from "../evaluation/prepare.js";
import { substitute } from "../evaluation/variables.js";
import { diffJson6902 } from "../mutate/index.js";
import type { PolicyEvalEnv } from "../pipeline/env.js";
import type { HandlerOutcome, RuleHandler } from "../pipeline/handler.js";
import type { TargetPatch } from "../response/types.js";
import { hasWildcard, matchWildcard } from "../wildcard/wildcard.js";
import { applyMutation } from "./mutate-apply.js";

type Step<T> = { ok: true; value: T } | { ok: false; error: string };

/** Resolves one `targets[]` entry (variables substituted) to objects through the loader. */
function resolveTargets(sel: TargetSelector, env: PolicyEvalEnv): Step<KubeObject[]> {
  if (sel.name && !hasWildcard(sel.name) && env.loader.getResource) {
    const r = env.loader.getResource(sel.apiVersion, sel.kind, sel.namespace ?? "", sel.name);
    return r.ok ? { ok: true, value: [r.value as KubeObject] } : { ok: true, value: [] };
  }
  if (!env.loader.listResources)
    return { ok: false, error: "target resources are not available (no resource loader)" };
  const r = env.loader.listResources([`${sel.apiVersion}/${sel.kind}`], sel.namespace ?? "", sel.selector);
  if (!r.ok) return { ok: false, error: r.error };
  const all = (Array.isArray(r.value) ? r.value : []) as unknown as KubeObject[];
  const name = sel.name;
  return {
    ok: true,
    value: name ? all.filter((o) => matchWildcard(name, o.metadata?.name ?? "")) : all,
  };
}

/** The mutate-existing pass (`Engine.mutateExisting`). */
export const mutateExistingHandler: RuleHandler = {
  type: "Mutation",
  failureActions: false,
  handles: (compiled) => (compiled.rule.mutate?.targets?.length ?? 0) > 0,
  process({ rule: compiled, scope, env, preset }): HandlerOutcome | undefined {
    const mutation = compiled.rule.mutate;
    if (mutation?.targets === undefined) return undefined;
    const patches: TargetPatch[] = [];
    let error: string | undefined;
    for (let i = 0; i < mutation.targets.length && error === undefined; i++) {
      const { context, preconditions, ...selector } = mutation.targets[i] as TargetSelector;
      const sel = substitute(scope, selector as unknown as JsonValue, `/mutate/targets/${i}`);
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
        const targetScope = { ...scope, ctx: withValue(scope.ctx, "target", target as unknown as JsonValue) };
        const prepared = prepare(targetScope, { context, preconditions }, env.loader, preset, {
          context: `/mutate/targets/${i}/context`,
          preconditions: `/mutate/targets/${i}/preconditions`,
        });
        if (ended(prepared)) {
          if (prepared.status === "skip") continue;
          error = prepared.message;
          break;
        }
        // In the patch `request.object` stays the trigger (upstream's examples match a trigger's name
        // with it) and `target` is the target; `{{@}}` is the target's value at the patched path.
        const { targets: _t, ...patchOnly } = mutation;
        const step = applyMutation(prepared, patchOnly, target as unknown as JsonValue, env, preset);
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
    if (error !== undefined)
      return { status: "error", message: `failed to mutate existing resources: ${error}` };
    if (patches.length > 0)
      return {
        status: "pass",
        message: `mutated ${patches.length} target resource(s)`,
        patchedTargets: patches,
      };
    return { status: "skip", message: "no target resources were changed" };
  },
};

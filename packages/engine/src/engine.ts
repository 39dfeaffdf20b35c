import type { Policy } from "@kyverno-ts/api";
import { evaluationLimits } from "./budget/budget.js";
import { createCelEnvironment } from "./cel/env.js";
import { createValueCache } from "./cel/values.js";
import { CEL_POLICY_VARIABLES } from "./cel-policies/engine.js";
import { compilePolicy } from "./compile/compile.js";
import { internalView } from "./compile/compiled.js";
import type { CompiledPolicy, CompileResult, Engine, EngineOptions, EngineRequest } from "./engine-types.js";
import { createEngineMemo, precompilePatterns } from "./evaluation/memo.js";
import { cacheState, requestTimestamp } from "./evaluation/request-cache.js";
import { generateHandler } from "./handlers/generate.js";
import { mutateHandler } from "./handlers/mutate.js";
import { mutateExistingHandler } from "./handlers/mutate-existing.js";
import { validateHandler } from "./handlers/validate.js";
import { createJmespath } from "./jmespath/index.js";
import type { PolicyEvalEnv } from "./pipeline/env.js";
import type { RuleHandler } from "./pipeline/handler.js";
import { runRules } from "./pipeline/rule-loop.js";
import type { PolicyResponse } from "./response/types.js";

/** The handler of each of the engine's passes: one rule loop, one handler per rule type. */
const HANDLERS: Readonly<Record<"validate" | "generate" | "mutate" | "mutateExisting", RuleHandler>> = {
  validate: validateHandler,
  generate: generateHandler,
  mutate: mutateHandler,
  mutateExisting: mutateExistingHandler,
};

/**
 * Creates a policy engine. Compile each policy once with `compile` when it changes, then call
 * `validate` per request; the engine holds no per-request state and performs no I/O itself
 * (external data comes through `options.contextLoader`).
 */
export function createEngine(options: EngineOptions = {}): Engine {
  const clock = options.clock;
  const jp = createJmespath({ clock: clock ?? { now: () => Date.now() } });
  const readNow = (): number => (clock ? clock.now() : Date.now());
  const loader = options.contextLoader ?? {};
  const namespaceLabels = options.namespaceLabels ?? (() => undefined);
  const exceptionNamespaces = options.exceptionNamespaces ?? ["*"];
  const memo = createEngineMemo();
  const cel = createCelEnvironment({ variables: CEL_POLICY_VARIABLES });
  const celValues = createValueCache();
  const limits = evaluationLimits(options.limits);
  return {
    compile(policy: Policy): CompileResult {
      const result = compilePolicy(jp, cel, policy);
      if (result.ok) {
        const blocks =
          internalView(result.policy)?.compiledRules.flatMap((r) => r.validation?.block ?? []) ?? [];
        precompilePatterns(memo, blocks);
      }
      return result;
    },
    validate(compiled: CompiledPolicy, request: EngineRequest): PolicyResponse {
      return run(compiled, request, "validate");
    },
    generate(compiled: CompiledPolicy, request: EngineRequest): PolicyResponse {
      return run(compiled, request, "generate");
    },
    mutate(compiled: CompiledPolicy, request: EngineRequest): PolicyResponse {
      return run(compiled, request, "mutate");
    },
    mutateExisting(compiled: CompiledPolicy, request: EngineRequest): PolicyResponse {
      return run(compiled, request, "mutateExisting");
    },
  };

  function run(
    compiled: CompiledPolicy,
    request: EngineRequest,
    kind: "validate" | "generate" | "mutate" | "mutateExisting",
  ): PolicyResponse {
    const policy = internalView(compiled);
    if (!policy) throw new TypeError("the engine needs a policy returned by compile()");
    const contextLoader = request.contextLoader ?? loader;
    // The policies of one request share their env (one object per request, not per policy).
    const state = cacheState(request);
    const last = state?.env;
    if (
      last !== undefined &&
      last.jp === jp &&
      last.loader === contextLoader &&
      last.deadline === request.deadline
    )
      return runRules(policy, request, last, HANDLERS[kind]);
    const env: PolicyEvalEnv = {
      jp,
      loader: contextLoader,
      now: requestTimestamp(request, readNow),
      namespaceLabels,
      exceptionNamespaces,
      memo,
      celValues,
      limits,
      deadline: request.deadline,
      readNow,
    };
    if (state !== undefined) state.env = env;
    return runRules(policy, request, env, HANDLERS[kind]);
  }
}

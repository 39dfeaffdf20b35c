import type { Policy } from "@kyverno-ts/api";
import { compilePolicy } from "./compile/compile.js";
import { internalView } from "./compile/compiled.js";
import type { CompiledPolicy, CompileResult, Engine, EngineOptions, EngineRequest } from "./engine-types.js";
import { createEngineMemo, precompilePatterns } from "./evaluation/memo.js";
import { mutateExistingPolicy } from "./evaluation/mutate-existing.js";
import { mutatePolicy } from "./evaluation/mutate-policy.js";
import { evaluatePolicy } from "./evaluation/policy.js";
import { requestTimestamp } from "./evaluation/request-cache.js";
import { createJmespath } from "./jmespath/index.js";
import type { PolicyResponse } from "./response/types.js";

/**
 * Creates a policy engine. Compile each policy once with `compile` when it changes, then call
 * `validate` per request; the engine holds no per-request state and performs no I/O itself
 * (external data comes through `options.contextLoader`).
 */
export function createEngine(options: EngineOptions = {}): Engine {
  const clock = options.clock;
  const jp = createJmespath({ clock: clock ?? { now: () => new Date() } });
  const readNow = (): number => (clock ? clock.now().getTime() : Date.now());
  const loader = options.contextLoader ?? {};
  const namespaceLabels = options.namespaceLabels ?? (() => undefined);
  const exceptionNamespaces = options.exceptionNamespaces ?? ["*"];
  const memo = createEngineMemo();
  return {
    compile(policy: Policy): CompileResult {
      const result = compilePolicy(jp, policy);
      if (result.ok) {
        const blocks = internalView(result.policy)?.rules.flatMap((r) => r.validation?.block ?? []) ?? [];
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
    const env = {
      jp,
      loader: request.contextLoader ?? loader,
      now: requestTimestamp(request, readNow),
      namespaceLabels,
      exceptionNamespaces,
      memo,
    };
    if (kind === "mutate") return mutatePolicy(policy, request, env);
    if (kind === "mutateExisting") return mutateExistingPolicy(policy, request, env);
    return evaluatePolicy(policy, request, env, kind);
  }
}

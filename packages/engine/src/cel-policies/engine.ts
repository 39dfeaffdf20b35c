/**
 * The CEL policy engine: one CEL environment for every policy it compiles (an expression shared by
 * policies is compiled once), no I/O (external data through the `ContextLoader`), clock injected.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { evaluationLimits } from "../budget/budget.js";
import { createCelEnvironment } from "../cel/env.js";
import { createValueCache } from "../cel/values.js";
import type { EngineRequest } from "../engine-types.js";
import { celDeleteHandler } from "../handlers/cel-delete.js";
import { celGenerateHandler } from "../handlers/cel-generate.js";
import { celMutateHandler } from "../handlers/cel-mutate.js";
import { celMutateExistingHandler } from "../handlers/cel-mutate-existing.js";
import { celValidateHandler } from "../handlers/cel-validate.js";
import { runCelRule } from "../pipeline/cel-rule.js";
import type { CelRuleHandler } from "../pipeline/handler.js";
import { celInternalView, compileCelPolicy } from "./compile.js";
import type { CelEvalEnv } from "./prepare.js";
import type { CelEngine, CelEngineOptions, CompiledCelPolicy } from "./types.js";

/** The variables every CEL policy expression may read. */
export const CEL_POLICY_VARIABLES = [
  "object",
  "oldObject",
  "request",
  "params",
  "namespaceObject",
  "variables",
  "authorizer",
  "exceptions",
] as const;

/** The handler of each of the engine's methods: the rule pipeline, one handler per CEL policy kind. */
const HANDLERS: Readonly<
  Record<"validate" | "mutate" | "mutateExisting" | "generate" | "delete", CelRuleHandler>
> = {
  validate: celValidateHandler,
  mutate: celMutateHandler,
  mutateExisting: celMutateExistingHandler,
  generate: celGenerateHandler,
  delete: celDeleteHandler,
};

/**
 * Creates a CEL policy engine. Compile each policy once (with the PolicyExceptions that may name
 * it), then call the method of its kind per request. Never throws for a bad expression: compile
 * issues name the field, evaluation problems become `error` results.
 */
export function createCelEngine(options: CelEngineOptions = {}): CelEngine {
  const celEnvironment = createCelEnvironment({ variables: CEL_POLICY_VARIABLES });
  const clock = options.clock;
  const readNow = (): number => (clock ? clock.now() : Date.now());
  const env: CelEvalEnv = {
    loader: options.contextLoader ?? {},
    now: () => new Date(readNow()),
    readNow,
    namespaceLabels: options.namespaceLabels ?? (() => undefined),
    namespaceObject: options.namespaceObject ?? (() => undefined),
    limits: evaluationLimits(options.costBudget === undefined ? undefined : { celCost: options.costBudget }),
    deadlineMs: options.deadlineMs,
    values: createValueCache(),
  };
  const run = (policy: CompiledCelPolicy, request: EngineRequest, kind: keyof typeof HANDLERS) =>
    celEnvironment.within(() => runCelRule(celInternalView(policy), request, env, HANDLERS[kind]));
  return {
    compile: (policy, compileOptions) => compileCelPolicy(celEnvironment, policy, compileOptions),
    validate: (policy, request) => runCelRule(celInternalView(policy), request, env, HANDLERS.validate),
    mutate: (policy, request) => run(policy, request, "mutate"),
    mutateExisting: (policy, request) => run(policy, request, "mutateExisting"),
    generate: (policy, request) => run(policy, request, "generate"),
    evaluateDeletion: (policy, resource: KubeObject) =>
      run(policy, { resource, operation: "CREATE", background: true }, "delete"),
  };
}

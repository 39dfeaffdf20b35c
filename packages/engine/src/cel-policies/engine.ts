/**
 * The CEL policy engine: one CEL environment for every policy it compiles (an expression shared by
 * policies is compiled once), no I/O (external data through the `ContextLoader`), clock injected.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createCelEnvironment } from "../cel/env.js";
import { createValueCache } from "../cel/values.js";
import type { EngineRequest } from "../engine-types.js";
import { celInternalView, compileCelPolicy } from "./compile.js";
import type { CelEvalEnv } from "./evaluate.js";
import { deleteCel, generateCel, mutateCel, validateCel } from "./kinds.js";
import { mutateExistingCel } from "./mutate-existing.js";
import type { CelEngine, CelEngineOptions } from "./types.js";

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

/**
 * Creates a CEL policy engine. Compile each policy once (with the PolicyExceptions that may name
 * it), then call the method of its kind per request. Never throws for a bad expression: compile
 * issues name the field, evaluation problems become `error` results.
 */
export function createCelEngine(options: CelEngineOptions = {}): CelEngine {
  const celEnvironment = createCelEnvironment({ variables: CEL_POLICY_VARIABLES });
  const env: CelEvalEnv = {
    loader: options.contextLoader ?? {},
    now: () => new Date(options.clock?.now() ?? Date.now()),
    namespaceLabels: options.namespaceLabels ?? (() => undefined),
    namespaceObject: options.namespaceObject ?? (() => undefined),
    budget: options.costBudget,
    deadlineMs: options.deadlineMs,
    values: createValueCache(),
  };
  const within = <T>(fn: () => T): T => celEnvironment.within(fn);
  return {
    compile: (policy, compileOptions) => compileCelPolicy(celEnvironment, policy, compileOptions),
    validate: (policy, request) => validateCel(celInternalView(policy), request, env),
    mutate: (policy, request) => within(() => mutateCel(celInternalView(policy), request, env)),
    mutateExisting: (policy, request) =>
      within(() => mutateExistingCel(celInternalView(policy), request, env)),
    generate: (policy, request) => within(() => generateCel(celInternalView(policy), request, env)),
    evaluateDeletion: (policy, resource: KubeObject) => {
      const request: EngineRequest = { resource, operation: "CREATE", background: true };
      return within(() => deleteCel(celInternalView(policy), request, env));
    },
  };
}

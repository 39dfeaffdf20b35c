/**
 * The contract between the rule pipeline and the rule types (upstream's `handlers/`): the pipeline
 * runs the steps every rule shares, a handler only what its rule type does — a `RuleHandler` per
 * kyverno.io rule type, a `CelRuleHandler` per CEL policy kind (a CEL policy is one rule). Handlers
 * never import each other.
 */
import type { FailureAction, JsonValue, PodSecurityExclude, PolicySpec } from "@kyverno-ts/api";
import type { CompiledCelPolicyImpl } from "../cel-policies/compile.js";
import type { CelEvalEnv, Prepared } from "../cel-policies/prepare.js";
import type { RequestTarget } from "../cel-policies/request.js";
import type { CompiledPolicyImpl, CompiledRule } from "../compile/compiled.js";
import type { EngineRequest } from "../engine-types.js";
import type { Scope } from "../evaluation/variables.js";
import type {
  GeneratedResource,
  Outcome,
  PolicyResponse,
  ResourceRef,
  RuleResponse,
  RuleType,
  TargetPatch,
} from "../response/types.js";
import type { PolicyEvalEnv } from "./env.js";

/** What a handler gets for one rule: everything the pipeline established before it. */
export interface RuleInput {
  readonly rule: CompiledRule;
  /** The rule's scope: request context, context entries and per-rule values, preconditions held. */
  readonly scope: Scope;
  /** The request as this rule sees it (for mutate: the resource as the rules before it patched it). */
  readonly req: EngineRequest;
  readonly env: PolicyEvalEnv;
  /** Names the request's values set, which context entries must not overwrite. */
  readonly preset: ReadonlySet<string>;
  readonly policy: CompiledPolicyImpl;
  /** The resource the response is about. */
  readonly resource: ResourceRef;
  /** Pod Security exemptions granted by matching PolicyExceptions (podSecurity rules). */
  readonly podSecurityExcludes: readonly PodSecurityExclude[];
}

/** A handler's result for one rule: its outcome and what the rule type adds to the response. */
export interface HandlerOutcome extends Outcome {
  /** Generate: the objects the rule wants to exist. */
  readonly generated?: GeneratedResource[];
  /** Mutate existing: the patched targets. */
  readonly patchedTargets?: TargetPatch[];
  /** Mutate: the resource after this rule, which the rules after it see. */
  readonly resource?: JsonValue;
  /** Report properties the rule computed itself (`validate.cel` audit annotations). */
  readonly properties?: Record<string, string>;
}

/** One rule type's part of the pipeline. */
export interface RuleHandler {
  /** Type of the responses (unless `typeOf` says otherwise for a rule). */
  readonly type: RuleType;
  /** The type of one rule's responses (verifyImages rules answered by the validate pass). */
  typeOf?(rule: CompiledRule): RuleType;
  /** Whether responses carry the rule's effective failure action (validate, generate) or `Audit` (mutate). */
  readonly failureActions: boolean;
  /** Whether the rule is one this handler evaluates. */
  handles(rule: CompiledRule): boolean;
  /** Requests the handler never evaluates (mutate: DELETE). */
  skips?(req: EngineRequest): boolean;
  /**
   * Evaluates a rule that matched, that no PolicyException exempts, whose context loaded and whose
   * preconditions held; undefined when the rule gives no response (a pattern on a deleted resource).
   */
  process(input: RuleInput): HandlerOutcome | undefined;
  /** Fields the rule type adds to each of its responses (generate: synchronize and friends). */
  extras?(rule: CompiledRule, spec: PolicySpec, outcome: HandlerOutcome): Partial<RuleResponse>;
  /** Completes the policy's response (mutate: the patched resource and the patch). */
  finish?(response: PolicyResponse, original: JsonValue, current: JsonValue): PolicyResponse;
}

/** What a CEL kind's handler gets: everything the pipeline established before it. */
export interface CelRuleInput {
  readonly policy: CompiledCelPolicyImpl;
  /** The variant that matched, its bindings (request, variables, exception values) and session. */
  readonly prepared: Prepared;
  readonly req: EngineRequest;
  readonly target: RequestTarget;
  readonly env: CelEvalEnv;
}

/** A CEL kind's result: a rule outcome, with the failure action a binding chose (admission policies). */
export interface CelOutcome extends HandlerOutcome {
  readonly failureAction?: FailureAction;
}

/** One CEL policy kind's part of the pipeline. */
export interface CelRuleHandler {
  /** Type of its responses. */
  readonly type: RuleType;
  /**
   * Evaluates a policy that matched, that no PolicyException exempts and that can be evaluated; its
   * results in order (several for an admission policy's bindings), or none.
   */
  process(input: CelRuleInput): CelOutcome | readonly CelOutcome[] | undefined;
  /** Fields the kind adds to each of its responses (GeneratingPolicy: the generated objects and flags). */
  extras?(policy: CompiledCelPolicyImpl, outcome: CelOutcome): Partial<RuleResponse>;
  /** Completes the response (MutatingPolicy: the patched resource and the patch), given the result's resource. */
  finish?(response: PolicyResponse, original: JsonValue, patched: JsonValue | undefined): PolicyResponse;
}

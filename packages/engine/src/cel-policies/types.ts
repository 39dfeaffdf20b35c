/** The public contract of the CEL policy engine (`createCelEngine`). */
import type {
  AdmissionPolicyBinding,
  CelPolicy,
  CelPolicyException,
  KubeObject,
  MutatingAdmissionPolicy,
  ResourceRule,
  ValidatingAdmissionPolicy,
} from "@kyverno-ts/api";
import type { CompileIssue, ContextLoader, EngineClock, EngineRequest } from "../engine-types.js";
import type { PolicyResponse } from "../response/types.js";

/** A policy the CEL engine evaluates: a `policies.kyverno.io` kind or a Kubernetes admission policy. */
export type CelEnginePolicy = CelPolicy | ValidatingAdmissionPolicy | MutatingAdmissionPolicy;

/** The kind of work of a compiled CEL policy, as controllers route it. */
export type CelPolicyType = "validate" | "mutate" | "generate" | "delete" | "imageValidate";

/** A CEL policy compiled once: expressions parsed and planned, autogen variants and exceptions bound. */
export interface CompiledCelPolicy {
  readonly policy: CelEnginePolicy;
  readonly type: CelPolicyType;
  /** The policy's name and, for a namespaced kind, its namespace. */
  readonly name: string;
  readonly namespace: string | undefined;
  /** Whether background scans evaluate it (`evaluation.background.enabled`, default true). */
  readonly background: boolean;
  /** Whether admission evaluates it (`evaluation.admission.enabled`, default true). */
  readonly admission: boolean;
  /** A MutatingPolicy that mutates existing targets (`evaluation.mutateExisting.enabled`). */
  readonly mutateExisting: boolean;
  /** Names of the autogen variants compiled with it (`autogen`, `autogen-cronjobs`). */
  readonly autogen: readonly string[];
  /**
   * The resource rules of the policy and of its autogen variants (what a webhook must send it);
   * empty when it matches through `matchConstraints` without resource rules.
   */
  readonly resourceRules: readonly ResourceRule[];
  /** Why the policy cannot be evaluated yet (ImageValidatingPolicy): every match is an `error`. */
  readonly unsupported: string | undefined;
}

/** Outcome of compiling a CEL policy. */
export type CelCompileResult =
  | { ok: true; policy: CompiledCelPolicy }
  | { ok: false; issues: CompileIssue[] };

/** What a compile binds to the policy besides its own fields. */
export interface CelCompileOptions {
  /** `policies.kyverno.io` PolicyExceptions; those naming the policy are compiled with it. */
  exceptions?: readonly CelPolicyException[];
  /** Bindings of a Kubernetes admission policy (the CLI evaluates each binding). */
  bindings?: readonly AdmissionPolicyBinding[];
  /** Parameter objects an admission policy's `paramKind` / `paramRef` select from. */
  params?: readonly KubeObject[];
}

/** Options of `createCelEngine`. */
export interface CelEngineOptions {
  clock?: EngineClock;
  contextLoader?: ContextLoader;
  /** Labels of a namespace, for `namespaceSelector`. */
  namespaceLabels?: (namespace: string) => Record<string, string> | undefined;
  /** The Namespace object of a namespace, for `namespaceObject` (default: one with its name and labels). */
  namespaceObject?: (namespace: string) => KubeObject | undefined;
  /** Comprehension iterations one policy evaluation may run (default 1,000,000). */
  costBudget?: number;
  /** Wall-clock limit of one policy evaluation in milliseconds (default 1,000). */
  deadlineMs?: number;
}

/** The CEL policy engine: compile policies once, then evaluate requests against them. */
export interface CelEngine {
  compile(policy: CelEnginePolicy, options?: CelCompileOptions): CelCompileResult;
  /** Validating policies (and admission policies): one response with one result per policy. */
  validate(policy: CompiledCelPolicy, request: EngineRequest): PolicyResponse;
  /** Mutating policies: the patched resource and patch in the response. */
  mutate(policy: CompiledCelPolicy, request: EngineRequest): PolicyResponse;
  /**
   * Mutate-existing MutatingPolicies (`evaluation.mutateExisting.enabled`): the targets a trigger
   * request selects, patched (`RuleResponse.patchedTargets`); writes nothing.
   */
  mutateExisting(policy: CompiledCelPolicy, request: EngineRequest): PolicyResponse;
  /** Generating policies: the objects to generate in the response's rule. */
  generate(policy: CompiledCelPolicy, request: EngineRequest): PolicyResponse;
  /** Deleting policies: whether the resource is to be deleted (`pass` with the message). */
  evaluateDeletion(policy: CompiledCelPolicy, resource: KubeObject): PolicyResponse;
}

/**
 * Compiling a CEL policy: every kind has the same shape — match constraints and conditions,
 * variables, the kind's own expressions — compiled once per variant (the policy and its autogen
 * variants), with the PolicyExceptions that name it bound at compile time.
 */
import type {
  AdmissionPolicyBinding,
  CelMutation,
  CelPolicyException,
  MatchConstraints,
  NamedExpression,
} from "@kyverno-ts/api";
import type { CelEnvironment, CelProgram } from "../cel/env.js";
import { type PolicyVariant, policyVariants } from "./autogen.js";
import { BlockCompiler, type CompiledBlock, identifiersOf, type NamedProgram } from "./block.js";
import type {
  CelCompileOptions,
  CelCompileResult,
  CelEnginePolicy,
  CelPolicyType,
  CompiledCelPolicy,
} from "./types.js";

/** A compiled mutation. */
export interface CompiledMutation {
  readonly patchType: CelMutation["patchType"];
  readonly program: CelProgram;
}

/** One variant of a policy, compiled. */
export interface CompiledVariant {
  readonly name: string;
  readonly constraints: MatchConstraints | undefined;
  readonly block: CompiledBlock;
  readonly mutations: readonly CompiledMutation[];
  readonly generate: readonly CelProgram[];
  /** DeletingPolicy `conditions`. */
  readonly conditions: readonly NamedProgram[];
  /** The identifiers every expression of the variant (and the exceptions) reads. */
  reads: ReadonlySet<string>;
}

/** A compiled PolicyException naming the policy. */
export interface CompiledException {
  readonly exception: CelPolicyException;
  readonly conditions: readonly NamedProgram[];
}

/** The engine's view of a compiled CEL policy. */
export interface CompiledCelPolicyImpl extends CompiledCelPolicy {
  /** The policy's kind, as its responses name it. */
  readonly kind: string;
  readonly variants: readonly CompiledVariant[];
  readonly exceptions: readonly CompiledException[];
  readonly failurePolicy: "Ignore" | "Fail";
  /** `Deny` → Enforce, else Audit, as reports show it. */
  readonly enforce: boolean;
  /** `evaluation.mode: JSON`: the payload is any JSON, matched by `matchConditions` only. */
  readonly jsonMode: boolean;
  readonly category: string | undefined;
  readonly severity: string | undefined;
  /** Bindings of a Kubernetes admission policy (none: evaluated on its own). */
  readonly bindings: readonly AdmissionPolicyBinding[];
  /** `paramKind` of a Kubernetes admission policy. */
  readonly paramKind: { apiVersion?: string; kind?: string } | undefined;
  /** A MutatingPolicy with `evaluation.mutateExisting.enabled`: how it selects existing targets. */
  readonly targets: CompiledTargets | undefined;
}

/** The targets of a mutate-existing MutatingPolicy. */
export interface CompiledTargets {
  readonly constraints: MatchConstraints | undefined;
  /** `targetMatchConstraints.expression`: the targets as a list of objects. */
  readonly expression: CelProgram | undefined;
  readonly conditions: readonly NamedProgram[];
}

const CATEGORY = "policies.kyverno.io/category";
const SEVERITY = "policies.kyverno.io/severity";

function typeOf(policy: CelEnginePolicy): CelPolicyType {
  switch (policy.kind) {
    case "MutatingPolicy":
    case "NamespacedMutatingPolicy":
    case "MutatingAdmissionPolicy":
      return "mutate";
    case "GeneratingPolicy":
    case "NamespacedGeneratingPolicy":
      return "generate";
    case "DeletingPolicy":
    case "NamespacedDeletingPolicy":
      return "delete";
    case "ImageValidatingPolicy":
    case "NamespacedImageValidatingPolicy":
      return "imageValidate";
    default:
      return "validate";
  }
}

interface SpecView {
  matchConstraints?: MatchConstraints;
  matchConditions?: NamedExpression[];
  variables?: NamedExpression[];
  validations?: Array<{ expression: string; message?: string; messageExpression?: string; reason?: string }>;
  auditAnnotations?: Array<{ key: string; valueExpression: string }>;
  mutations?: CelMutation[];
  generate?: Array<{ expression: string }>;
  targetMatchConstraints?: MatchConstraints & { expression?: string };
  targetMatchConditions?: NamedExpression[];
  conditions?: NamedExpression[];
  autogen?: { podControllers?: { controllers?: string[] } };
  failurePolicy?: "Ignore" | "Fail";
  validationActions?: string[];
  evaluation?: {
    mode?: string;
    admission?: { enabled?: boolean };
    background?: { enabled?: boolean };
    mutateExisting?: { enabled?: boolean };
  };
}

function rewriteNamed(list: NamedExpression[] | undefined, v: PolicyVariant): NamedExpression[] | undefined {
  return list?.map((n) => ({ name: n.name, expression: v.rewrite(n.expression) }));
}

function compileVariant(c: BlockCompiler, spec: SpecView, v: PolicyVariant): CompiledVariant {
  const source = {
    matchConditions: rewriteNamed(spec.matchConditions, v),
    variables: rewriteNamed(spec.variables, v),
    validations: spec.validations?.map((x) => ({
      ...x,
      expression: v.rewrite(x.expression),
      ...(x.messageExpression !== undefined ? { messageExpression: v.rewrite(x.messageExpression) } : {}),
    })),
    auditAnnotations: spec.auditAnnotations?.map((a) => ({
      key: a.key,
      valueExpression: v.rewrite(a.valueExpression),
    })),
  };
  const block = c.block(source, "spec");
  const mutations: CompiledMutation[] = [];
  (spec.mutations ?? []).forEach((m, i) => {
    const field = m.patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
    const expression =
      m.patchType === "JSONPatch" ? m.jsonPatch?.expression : m.applyConfiguration?.expression;
    if (expression === undefined) return;
    const program = c.expression(v.rewrite(expression), `spec.mutations[${i}].${field}.expression`);
    if (program) mutations.push({ patchType: m.patchType, program });
  });
  const generate: CelProgram[] = [];
  (spec.generate ?? []).forEach((g, i) => {
    const program = c.expression(g.expression, `spec.generate[${i}].expression`);
    if (program) generate.push(program);
  });
  const conditions = c.named(spec.conditions, "spec.conditions");
  const reads = new Set([
    ...block.reads,
    ...identifiersOf([...mutations.map((m) => m.program), ...generate, ...conditions.map((x) => x.program)]),
  ]);
  return { name: v.name, constraints: v.constraints, block, mutations, generate, conditions, reads };
}

/** Whether an exception names the policy (by name and kind; a namespaced kind also by `ns/name`). */
function names(exception: CelPolicyException, policy: CelEnginePolicy): boolean {
  const ns = policy.metadata.namespace;
  return exception.spec.policyRefs.some(
    (ref) =>
      (ref.name === policy.metadata.name ||
        (ns !== undefined && ref.name === `${ns}/${policy.metadata.name}`)) &&
      (ref.kind === "" || ref.kind === policy.kind),
  );
}

/** Compiles a CEL policy (or admission policy) with its variants and exceptions. */
export function compileCelPolicy(
  env: CelEnvironment,
  policy: CelEnginePolicy,
  options: CelCompileOptions = {},
): CelCompileResult {
  const spec = policy.spec as SpecView;
  const type = typeOf(policy);
  const c = new BlockCompiler(env);
  // A MutatingPolicy's autogen variants read the Pod template (rewritten paths) and have their
  // patches re-nested under it when applied (see `nestUnderTemplate`); mutate-existing ones have none.
  const autogenAllowed =
    type === "validate" ||
    type === "imageValidate" ||
    (type === "mutate" && spec.evaluation?.mutateExisting?.enabled !== true);
  const variants = (
    autogenAllowed && policy.kind !== "ValidatingAdmissionPolicy" && policy.kind !== "MutatingAdmissionPolicy"
      ? policyVariants(spec.matchConstraints, spec.autogen)
      : [{ name: "", constraints: spec.matchConstraints, rewrite: (e: string) => e }]
  ).map((v) => compileVariant(c, spec, v));
  const exceptions: CompiledException[] = [];
  for (const exception of options.exceptions ?? []) {
    if (!names(exception, policy)) continue;
    const conditions = c.named(
      exception.spec.matchConditions,
      `PolicyException ${exception.metadata.name}: spec.matchConditions`,
    );
    exceptions.push({ exception, conditions });
  }
  const targets =
    type === "mutate" && spec.evaluation?.mutateExisting?.enabled === true
      ? {
          // No targetMatchConstraints: the targets are the existing objects the policy matches.
          constraints: spec.targetMatchConstraints ?? spec.matchConstraints,
          expression:
            spec.targetMatchConstraints?.expression !== undefined
              ? c.expression(spec.targetMatchConstraints.expression, "spec.targetMatchConstraints.expression")
              : undefined,
          conditions: c.named(spec.targetMatchConditions, "spec.targetMatchConditions"),
        }
      : undefined;
  if (c.issues.length > 0) return { ok: false, issues: c.issues };
  const exceptionReads = identifiersOf(exceptions.flatMap((e) => e.conditions.map((x) => x.program)));
  for (const v of variants) v.reads = new Set([...v.reads, ...exceptionReads]);
  const annotations = policy.metadata.annotations ?? {};
  const namespaced = policy.kind.startsWith("Namespaced");
  const compiled: CompiledCelPolicyImpl = {
    policy,
    type,
    kind: policy.kind,
    name: policy.metadata.name,
    namespace: namespaced ? (policy.metadata.namespace ?? "default") : undefined,
    background: spec.evaluation?.background?.enabled ?? true,
    admission: spec.evaluation?.admission?.enabled ?? true,
    autogen: variants.map((v) => v.name).filter((n) => n !== ""),
    resourceRules: variants.flatMap((v) => v.constraints?.resourceRules ?? []),
    unsupported:
      type === "imageValidate"
        ? `${policy.kind} is not supported by kyverno-ts yet: image verification is not implemented`
        : undefined,
    variants,
    exceptions,
    failurePolicy: spec.failurePolicy ?? "Fail",
    enforce: (spec.validationActions ?? []).includes("Deny"),
    jsonMode: spec.evaluation?.mode === "JSON",
    category: annotations[CATEGORY],
    severity: annotations[SEVERITY],
    bindings: (options.bindings ?? []).filter((b) => b.spec.policyName === policy.metadata.name),
    paramKind: (spec as { paramKind?: { apiVersion?: string; kind?: string } }).paramKind,
    targets,
    mutateExisting: targets !== undefined,
  };
  return { ok: true, policy: compiled };
}

/** Recovers the engine's view of a compiled CEL policy. */
export function celInternalView(policy: CompiledCelPolicy): CompiledCelPolicyImpl {
  if (!("variants" in policy)) throw new TypeError("the CEL engine needs a policy returned by its compile()");
  return policy as CompiledCelPolicyImpl;
}

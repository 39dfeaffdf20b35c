/**
 * Wire types of the CEL policy kinds (`policies.kyverno.io`, every served version) and of the
 * Kubernetes admission policies the CLI accepts next to them. The loaders in `cel-load.ts` validate
 * documents into these types.
 */
import type { JsonValue, LabelSelector, ObjectMeta } from "./types.js";

/** A named CEL expression (`matchConditions`, `variables`, DeletingPolicy `conditions`). */
export interface NamedExpression {
  name: string;
  expression: string;
}

/** One rule of `matchConstraints.resourceRules` / `excludeResourceRules`, as in Kubernetes. */
export interface ResourceRule {
  apiGroups?: string[];
  apiVersions?: string[];
  operations?: string[];
  resources?: string[];
  resourceNames?: string[];
  scope?: string;
}

/** `matchConstraints`: which requests a policy sees, as a ValidatingAdmissionPolicy's. */
export interface MatchConstraints {
  resourceRules?: ResourceRule[];
  excludeResourceRules?: ResourceRule[];
  /** `Equivalent` (default) also matches the same resource through another group/version. */
  matchPolicy?: "Exact" | "Equivalent";
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
}

/** A validation of a ValidatingPolicy (or ValidatingAdmissionPolicy). */
export interface CelValidation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

/** `auditAnnotations` entry. */
export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

/** `spec.evaluation` of the CEL kinds (fields of every kind; each kind uses its own). */
export interface CelEvaluation {
  mode?: "Kubernetes" | "JSON";
  admission?: { enabled?: boolean };
  background?: { enabled?: boolean };
  mutateExisting?: { enabled?: boolean };
  generateExisting?: { enabled?: boolean };
  synchronize?: { enabled?: boolean };
  orphanDownstreamOnPolicyDelete?: { enabled?: boolean };
  skipBackgroundRequests?: boolean;
  useServerSideApply?: boolean;
}

/** `spec.autogen`. */
export interface CelAutogen {
  podControllers?: { controllers?: string[] };
  validatingAdmissionPolicy?: { enabled?: boolean };
  mutatingAdmissionPolicy?: { enabled?: boolean };
}

/** Fields every CEL policy kind with admission matching shares. */
interface CelSpecBase {
  matchConstraints?: MatchConstraints;
  matchConditions?: NamedExpression[];
  variables?: NamedExpression[];
  failurePolicy?: "Ignore" | "Fail";
  auditAnnotations?: AuditAnnotation[];
  evaluation?: CelEvaluation;
  webhookConfiguration?: { timeoutSeconds?: number };
}

/** Spec of a (Namespaced)ValidatingPolicy. */
export interface ValidatingPolicySpec extends CelSpecBase {
  validations?: CelValidation[];
  validationActions?: Array<"Deny" | "Audit" | "Warn">;
  autogen?: CelAutogen;
}

/** A mutation of a MutatingPolicy: an apply configuration or a JSON patch, as a CEL expression. */
export interface CelMutation {
  patchType: "ApplyConfiguration" | "JSONPatch";
  applyConfiguration?: { expression: string };
  jsonPatch?: { expression: string };
}

/** Spec of a (Namespaced)MutatingPolicy. */
export interface MutatingPolicySpec extends CelSpecBase {
  mutations?: CelMutation[];
  reinvocationPolicy?: "Never" | "IfNeeded";
  autogen?: CelAutogen;
  /** Mutate existing: which objects are targets, beside `evaluation.mutateExisting.enabled`. */
  targetMatchConstraints?: MatchConstraints & { expression?: string };
  targetMatchConditions?: NamedExpression[];
}

/** Spec of a (Namespaced)GeneratingPolicy. */
export interface GeneratingPolicySpec extends CelSpecBase {
  generate: Array<{ expression: string }>;
  useServerSideApply?: boolean;
}

/** Spec of a (Namespaced)DeletingPolicy. */
export interface DeletingPolicySpec {
  matchConstraints?: MatchConstraints;
  conditions?: NamedExpression[];
  variables?: NamedExpression[];
  schedule: string;
  deletionPropagationPolicy?: "Foreground" | "Background" | "Orphan";
}

/** Spec of a (Namespaced)ImageValidatingPolicy: loaded and shown; the engine reports it as an error. */
export interface ImageValidatingPolicySpec extends CelSpecBase {
  validations?: CelValidation[];
  validationActions?: Array<"Deny" | "Audit" | "Warn">;
  autogen?: CelAutogen;
  matchImageReferences?: JsonValue[];
  images?: JsonValue[];
  attestors?: JsonValue[];
  attestations?: JsonValue[];
  credentials?: JsonValue;
  validationConfigurations?: JsonValue;
}

interface CelPolicyOf<K extends string, S> {
  apiVersion: string;
  kind: K;
  metadata: ObjectMeta & { name: string };
  spec: S;
}

/** A ValidatingPolicy or NamespacedValidatingPolicy. */
export type ValidatingPolicy = CelPolicyOf<
  "ValidatingPolicy" | "NamespacedValidatingPolicy",
  ValidatingPolicySpec
>;
/** A MutatingPolicy or NamespacedMutatingPolicy. */
export type MutatingPolicy = CelPolicyOf<"MutatingPolicy" | "NamespacedMutatingPolicy", MutatingPolicySpec>;
/** A GeneratingPolicy or NamespacedGeneratingPolicy. */
export type GeneratingPolicy = CelPolicyOf<
  "GeneratingPolicy" | "NamespacedGeneratingPolicy",
  GeneratingPolicySpec
>;
/** A DeletingPolicy or NamespacedDeletingPolicy. */
export type DeletingPolicy = CelPolicyOf<"DeletingPolicy" | "NamespacedDeletingPolicy", DeletingPolicySpec>;
/** An ImageValidatingPolicy or NamespacedImageValidatingPolicy. */
export type ImageValidatingPolicy = CelPolicyOf<
  "ImageValidatingPolicy" | "NamespacedImageValidatingPolicy",
  ImageValidatingPolicySpec
>;

/** Any policy of `policies.kyverno.io`. */
export type CelPolicy =
  | ValidatingPolicy
  | MutatingPolicy
  | GeneratingPolicy
  | DeletingPolicy
  | ImageValidatingPolicy;

/** A `policies.kyverno.io` PolicyException: CEL match conditions and the policies it applies to. */
export interface CelPolicyException {
  apiVersion: string;
  kind: "PolicyException";
  metadata: ObjectMeta & { name: string };
  spec: {
    policyRefs: Array<{ name: string; kind: string }>;
    matchConditions?: NamedExpression[];
    images?: string[];
    allowedValues?: string[];
    properties?: Record<string, string>;
    reportResult?: "skip" | "pass";
    evaluationMode?: string;
    expiresAt?: string;
  };
}

/** A Kubernetes ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1 or v1beta1/v1alpha1). */
export interface ValidatingAdmissionPolicy {
  apiVersion: string;
  kind: "ValidatingAdmissionPolicy";
  metadata: ObjectMeta & { name: string };
  spec: {
    paramKind?: { apiVersion?: string; kind?: string };
    matchConstraints?: MatchConstraints;
    validations?: CelValidation[];
    failurePolicy?: "Ignore" | "Fail";
    auditAnnotations?: AuditAnnotation[];
    matchConditions?: NamedExpression[];
    variables?: NamedExpression[];
  };
}

/** A Kubernetes MutatingAdmissionPolicy. */
export interface MutatingAdmissionPolicy {
  apiVersion: string;
  kind: "MutatingAdmissionPolicy";
  metadata: ObjectMeta & { name: string };
  spec: {
    paramKind?: { apiVersion?: string; kind?: string };
    matchConstraints?: MatchConstraints;
    mutations?: CelMutation[];
    failurePolicy?: "Ignore" | "Fail";
    matchConditions?: NamedExpression[];
    variables?: NamedExpression[];
    reinvocationPolicy?: "Never" | "IfNeeded";
  };
}

/** A binding of a Validating/MutatingAdmissionPolicy: which parameters and which requests. */
export interface AdmissionPolicyBinding {
  apiVersion: string;
  kind: "ValidatingAdmissionPolicyBinding" | "MutatingAdmissionPolicyBinding";
  metadata: ObjectMeta & { name: string };
  spec: {
    policyName: string;
    paramRef?: {
      name?: string;
      namespace?: string;
      selector?: LabelSelector;
      parameterNotFoundAction?: "Allow" | "Deny";
    };
    matchResources?: MatchConstraints;
    validationActions?: Array<"Deny" | "Audit" | "Warn">;
  };
}

/** A Kubernetes admission policy or binding. */
export type AdmissionPolicyDocument =
  | ValidatingAdmissionPolicy
  | MutatingAdmissionPolicy
  | AdmissionPolicyBinding;

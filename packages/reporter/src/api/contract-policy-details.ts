/**
 * The contract of the policy details endpoints (`/v2/policy-details…`): schemas and the types
 * inferred from them. Re-exported by `contract.ts`.
 */
import { type Infer, j } from "./json-schema.js";

/** A Kyverno policy kind whose details the reporter watches. */
export type PolicyDetailsKind = "ClusterPolicy" | "Policy";

/** The rule types of a Kyverno policy. */
export type PolicyRuleType = "validate" | "mutate" | "generate" | "verifyImages" | "other";

const text = j.string();
const strings = j.array(text);

/** The schema of {@link PolicyDetailsSummary}. */
export const policyDetailsSummarySchema = j.object({
  kind: j.string<PolicyDetailsKind>(),
  name: text,
  /** Absent for a ClusterPolicy. */
  namespace: j.optional(text),
  /** The name in report results: `name` for a ClusterPolicy, `namespace/name` for a Policy. */
  policy: text,
  /** `policies.kyverno.io/title`, else the name. */
  title: text,
  /** `policies.kyverno.io/description`. */
  description: j.optional(text),
  /** `policies.kyverno.io/category`. */
  category: j.optional(text),
  /** `policies.kyverno.io/severity`, as written (usually low, medium or high). */
  severity: j.optional(text),
});

/**
 * A Kyverno policy in lists (`/v2/policy-details`): the fields of the Policy Reporter Kyverno
 * plugin's `PolicyListItem` (category, namespace, name, title, description, severity) plus its kind
 * and the name results use for it.
 */
export type PolicyDetailsSummary = Infer<typeof policyDetailsSummarySchema>;

const ruleSchema = j.object({
  name: text,
  type: j.string<PolicyRuleType>(),
  /** A validate rule's own `failureAction` (Audit / Enforce), when set. */
  failureAction: j.optional(text),
});

/** One rule of a policy. */
export type PolicyRuleDetails = Infer<typeof ruleSchema>;

/** The schema of {@link PolicyDetails}. */
export const policyDetailsSchema = j.object({
  ...policyDetailsSummarySchema.properties,
  engine: j.object({
    name: j.string<"Kyverno">(),
    /** `policies.kyverno.io/minversion`. */
    version: j.optional(text),
    /** `kyverno.io/kubernetes-version`. */
    kubernetesVersion: j.optional(text),
    /** `policies.kyverno.io/subject`, split at commas. */
    subjects: strings,
  }),
  /** `spec.background` (default true). */
  background: j.boolean(),
  /** `spec.validationFailureAction` (default Audit). */
  validationFailureAction: text,
  /** The distinct failure actions of its validate rules (rule `failureAction`, else the policy's). */
  failureActions: strings,
  rules: j.array(ruleSchema),
  /** The policy as YAML, without `managedFields` and the last-applied annotation. */
  code: j.object({ contentType: j.string<"text/yaml">(), content: text, truncated: j.boolean() }),
});

/**
 * One Kyverno policy (`/v2/policy-details/:name`, `/v2/policy-details/:namespace/:name`), shaped
 * after the Kyverno plugin's `Policy` (`engine`, `code`) with Kyverno's own settings as typed fields.
 */
export type PolicyDetails = Infer<typeof policyDetailsSchema>;

/** The schema of {@link PolicyDetailsList}. */
export const policyDetailsListSchema = j.object({
  /** The kinds watched; empty when the reporter has no policy details (not in a cluster, no Kyverno CRDs). */
  watched: j.array(j.string<PolicyDetailsKind>()),
  items: j.array(policyDetailsSummarySchema),
});

/** `/v2/policy-details`: whether policies are watched, by kind, and those known. */
export type PolicyDetailsList = Infer<typeof policyDetailsListSchema>;

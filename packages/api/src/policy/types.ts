/**
 * Wire types for kyverno.io/v1 and v2beta1 ClusterPolicy / Policy, as validated by the loader. Each
 * is inferred from the loader's schema (`schema*.ts`), so a field is written once, in its schema; the
 * recursive foreach entries are interfaces over their schema's fields. Fields keep upstream's names so
 * YAML round-trips unchanged.
 */
import type { Infer } from "../schema/dsl.js";
import type { labelSelector } from "../schema/kube.js";
import type { policyV1 } from "./schema.js";
import type { freeConditions } from "./schema-conditions.js";
import type { contextEntry } from "./schema-context.js";
import type { v1Match } from "./schema-match.js";
import type { failureActionOverrides, podSecurityExclude } from "./schema-rule.js";

export type { JsonObject, JsonValue } from "./json.js";
export type { KubeObject, ObjectMeta } from "./meta.js";
export type { GenerateForeach, MutateForeach, TargetSelector, ValidateForeach } from "./schema-rule.js";

/** A Kubernetes label selector (`matchLabels` / `matchExpressions`). */
export type LabelSelector = Infer<typeof labelSelector>;

/** A match or exclude block: `any` / `all`, or the legacy form with the filter fields inline. */
export type MatchResources = Infer<typeof v1Match>;

/** One filter of a match/exclude block: resources plus who made the request. */
export type ResourceFilter = NonNullable<MatchResources["any"]>[number];

/** The `resources` block of a match or exclude filter. */
export type ResourceDescription = NonNullable<ResourceFilter["resources"]>;

/** A subject of an RBAC binding, used by match/exclude `subjects`. */
export type Subject = NonNullable<ResourceFilter["subjects"]>[number];

/** A condition operator as written in a policy; compared case-insensitively. */
export type ConditionOperator = string;

/** `any`/`all` conditions, or the legacy flat list (all must hold). */
export type Conditions = Infer<typeof freeConditions>;

/** One precondition or deny condition. A `key` left out in the YAML is loaded as `null`, as upstream reads it. */
export type Condition = Extract<Conditions, unknown[]>[number];

/** A context entry: exactly one of the source fields is set. */
export type ContextEntry = Infer<typeof contextEntry>;

/** Overrides the failure action for some namespaces. */
export type FailureActionOverride = Infer<typeof failureActionOverrides>[number];

/** Failure action of a validate rule. Lower-case spellings are normalised on load. */
export type FailureAction = FailureActionOverride["action"];

/** Pod Security Standards exclusions of a `validate.podSecurity` rule. */
export type PodSecurityExclude = Infer<typeof podSecurityExclude>;

/** A loaded ClusterPolicy or (namespaced) Policy. */
export type Policy = Infer<typeof policyV1>;

/**
 * The spec of a ClusterPolicy / Policy, with upstream defaults applied by the loader. `failurePolicy`
 * is the spec field (default Fail); upstream lets `webhookConfiguration.failurePolicy` override it.
 */
export type PolicySpec = Policy["spec"];

/** One rule of a policy. `verifyImages` is carried as data; it is not evaluated yet. */
export type Rule = PolicySpec["rules"][number];

/** The `validate` block of a rule. */
export type Validation = NonNullable<Rule["validate"]>;

/** The `mutate` block of a rule. */
export type Mutation = NonNullable<Rule["mutate"]>;

/** The `generate` block of a rule. */
export type Generation = NonNullable<Rule["generate"]>;

/** What a generate rule (or one of its foreach entries) creates. */
export type GenerateTarget = Omit<
  Generation,
  "foreach" | "synchronize" | "orphanDownstreamOnPolicyDelete" | "generateExisting"
>;

/**
 * Wire types for kyverno.io/v1 and v2beta1 ClusterPolicy / Policy, as validated by the loader.
 * Fields keep upstream's names so YAML round-trips unchanged.
 */

/** A JSON value as found in a resource or a policy pattern. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object; use `JsonValue` when the value may be any JSON. */
export type JsonObject = { [key: string]: JsonValue };

/** Standard Kubernetes object metadata, only the fields the engine reads. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: JsonValue | undefined;
}

/** A Kubernetes label selector (`matchLabels` / `matchExpressions`). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{
    key: string;
    operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    values?: string[];
  }>;
}

/** The `resources` block of a match or exclude filter. */
export interface ResourceDescription {
  kinds?: string[];
  name?: string;
  names?: string[];
  namespaces?: string[];
  annotations?: Record<string, string>;
  selector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  operations?: Array<"CREATE" | "UPDATE" | "DELETE" | "CONNECT">;
}

/** A subject of an RBAC binding, used by match/exclude `subjects`. */
export interface Subject {
  kind: "User" | "Group" | "ServiceAccount";
  name: string;
  namespace?: string;
  apiGroup?: string;
}

/** One filter of a match/exclude block: resources plus who made the request. */
export interface ResourceFilter {
  resources?: ResourceDescription;
  subjects?: Subject[];
  roles?: string[];
  clusterRoles?: string[];
}

/** A match or exclude block: `any` / `all`, or the legacy form with the filter fields inline. */
export interface MatchResources extends ResourceFilter {
  any?: ResourceFilter[];
  all?: ResourceFilter[];
}

/** A condition operator as written in a policy; compared case-insensitively. */
export type ConditionOperator = string;

/** One precondition or deny condition. A `key` left out in the YAML is loaded as `null`, as upstream reads it. */
export interface Condition {
  key: JsonValue;
  operator: ConditionOperator;
  value?: JsonValue;
  message?: string;
}

/** `any`/`all` conditions, or the legacy flat list (all must hold). */
export type Conditions = { any?: Condition[]; all?: Condition[] } | Condition[];

/** A context entry: exactly one of the source fields is set. */
export interface ContextEntry {
  name: string;
  variable?: { value?: JsonValue; jmesPath?: string; default?: JsonValue };
  configMap?: { name: string; namespace?: string };
  apiCall?: {
    urlPath?: string;
    method?: "GET" | "POST";
    data?: Array<{ key: string; value: JsonValue }>;
    service?: { url: string; caBundle?: string; headers?: Array<{ key: string; value: string }> };
    jmesPath?: string;
    default?: JsonValue;
  };
  imageRegistry?: { reference: string; jmesPath?: string; imageRegistryCredentials?: JsonObject };
  globalReference?: { name: string; jmesPath?: string };
}

/** Failure action of a validate rule. Lower-case spellings are normalised on load. */
export type FailureAction = "Audit" | "Enforce";

/** Overrides the failure action for some namespaces. */
export interface FailureActionOverride {
  action: FailureAction;
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
}

/** One `validate.foreach` entry. */
export interface ValidateForeach {
  list: string;
  elementScope?: boolean;
  context?: ContextEntry[];
  preconditions?: Conditions;
  pattern?: JsonValue;
  anyPattern?: JsonValue[];
  deny?: { conditions?: Conditions };
  foreach?: ValidateForeach[];
}

/** Pod Security Standards exclusions of a `validate.podSecurity` rule. */
export interface PodSecurityExclude {
  controlName: string;
  images?: string[];
  restrictedField?: string;
  values?: string[];
}

/** The `validate` block of a rule. */
export interface Validation {
  failureAction?: FailureAction;
  failureActionOverrides?: FailureActionOverride[];
  allowExistingViolations?: boolean;
  message?: string;
  pattern?: JsonValue;
  anyPattern?: JsonValue[];
  deny?: { conditions?: Conditions };
  foreach?: ValidateForeach[];
  podSecurity?: { level?: string; version?: string; exclude?: PodSecurityExclude[] };
  cel?: JsonObject;
  manifests?: JsonObject;
  /** A kyverno-json assertion tree. */
  assert?: JsonValue;
}

/** One `generate.foreach` entry: the generate fields evaluated per element. */
export interface GenerateForeach extends GenerateTarget {
  list: string;
  context?: ContextEntry[];
  preconditions?: Conditions;
}

/** What a generate rule (or one of its foreach entries) creates. */
export interface GenerateTarget {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  data?: JsonValue;
  clone?: { namespace?: string; name?: string };
  cloneList?: { namespace?: string; kinds?: string[]; selector?: LabelSelector };
}

/** The `generate` block of a rule. */
export interface Generation extends GenerateTarget {
  synchronize?: boolean;
  orphanDownstreamOnPolicyDelete?: boolean;
  generateExisting?: boolean;
  foreach?: GenerateForeach[];
}

/** One `mutate.foreach` entry. */
export interface MutateForeach {
  list: string;
  order?: "Ascending" | "Descending";
  context?: ContextEntry[];
  preconditions?: Conditions;
  patchStrategicMerge?: JsonValue;
  patchesJson6902?: string;
  foreach?: MutateForeach[];
}

/** A target of a mutate-existing rule. */
export interface TargetSelector {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  uid?: string;
  selector?: LabelSelector;
  context?: ContextEntry[];
  preconditions?: Conditions;
}

/** The `mutate` block of a rule. */
export interface Mutation {
  patchStrategicMerge?: JsonValue;
  patchesJson6902?: string;
  foreach?: MutateForeach[];
  targets?: TargetSelector[];
  mutateExistingOnPolicyUpdate?: boolean;
}

/** One rule of a policy. `verifyImages` is carried as data; it is not evaluated yet. */
export interface Rule {
  name: string;
  context?: ContextEntry[];
  match: MatchResources;
  exclude?: MatchResources;
  preconditions?: Conditions;
  celPreconditions?: JsonValue[];
  validate?: Validation;
  mutate?: Mutation;
  generate?: Generation;
  verifyImages?: JsonValue[];
  imageExtractors?: JsonObject;
  reportProperties?: Record<string, string>;
  skipBackgroundRequests?: boolean;
}

/**
 * The spec of a ClusterPolicy / Policy, with upstream defaults applied by the loader. `failurePolicy`
 * is the spec field (default Fail); upstream lets `webhookConfiguration.failurePolicy` override it.
 */
export interface PolicySpec {
  rules: Rule[];
  applyRules: "All" | "One";
  validationFailureAction: FailureAction;
  validationFailureActionOverrides?: FailureActionOverride[];
  background: boolean;
  admission: boolean;
  emitWarning: boolean;
  failurePolicy: "Fail" | "Ignore";
  webhookTimeoutSeconds?: number;
  webhookConfiguration?: JsonObject;
  useServerSideApply?: boolean;
  schemaValidation?: boolean;
  mutateExistingOnPolicyUpdate?: boolean;
  generateExisting?: boolean;
  generateExistingOnPolicyUpdate?: boolean;
}

/** A loaded ClusterPolicy or (namespaced) Policy. */
export interface Policy {
  apiVersion: string;
  kind: "ClusterPolicy" | "Policy";
  metadata: ObjectMeta & { name: string };
  spec: PolicySpec;
}

/** A Kubernetes object as the engine sees it: any JSON object with apiVersion/kind/metadata. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: JsonValue | ObjectMeta | undefined;
}

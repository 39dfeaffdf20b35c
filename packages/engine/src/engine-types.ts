import type {
  Clock,
  JsonValue,
  KubeObject,
  LabelSelector,
  Policy,
  PolicyException,
  Rule,
} from "@kyverno-ts/api";
import type { EvaluationLimits } from "./budget/budget.js";
import type { KindSelector } from "./match/kind.js";
import type { PolicyResponse } from "./response/types.js";

/**
 * An opaque per-request cache (`createRequestCache`): put the same one in every `EngineRequest` of one
 * admission request and the policies share its context and lookups.
 */
export interface RequestCache {
  readonly kind: "RequestCache";
}

/**
 * The engine's view of the repository's one `Clock` (`@kyverno-ts/api`): it only reads the time (epoch
 * milliseconds); injected so evaluation is deterministic in tests.
 */
export type EngineClock = Pick<Clock, "now">;

/** An authorization check, as the `ContextLoader` receives it. */
export interface AuthorizationCheck {
  user: string;
  groups: string[];
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** A non-resource URL (`authorizer.path`). */
  path?: string;
}

/** Admission operation of a request. Background evaluation uses `CREATE` semantics unless told otherwise. */
export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** Kubernetes `UserInfo` of the requester. */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Result of a context loader: a value or an error message. Loaders never throw. */
export type LoadResult = { ok: true; value: JsonValue } | { ok: false; error: string };

/** An `apiCall` context entry with its variables substituted, as the `ContextLoader` receives it. */
export interface ApiCallRequest {
  /** An API server path (`urlPath`). */
  urlPath?: string;
  /** A service URL (`service.url`). */
  url?: string;
  method: string;
  data?: JsonValue;
  /** `service.headers`, values substituted. They may hold credentials: never log or report them. */
  headers?: Array<{ key: string; value: string }>;
  /** `service.caBundle`: PEM certificates the service's certificate must chain to. */
  caBundle?: string;
}

/**
 * Supplies external data to context entries (`configMap`, `apiCall`, `globalReference`, `imageRegistry`).
 * The CLI answers from values files; the server from informers and HTTP clients. Omitted loaders make
 * such entries fail with a clear error, as upstream does when the data is unavailable.
 */
export interface ContextLoader {
  configMap?(namespace: string, name: string): LoadResult;
  apiCall?(call: ApiCallRequest): LoadResult;
  globalReference?(name: string): LoadResult;
  imageRegistry?(reference: string): LoadResult;
  /** One object, for `generate.clone`; an error result when it does not exist. */
  getResource?(apiVersion: string, kind: string, namespace: string, name: string): LoadResult;
  /** Objects of the given kinds in a namespace matching a selector, for `generate.cloneList` (an array value). */
  listResources?(kinds: readonly string[], namespace: string, selector?: LabelSelector): LoadResult;
  /**
   * CEL's `resource.Get` / `resource.List` / `resource.Post`: by API version and plural resource name
   * (`v1`, `configmaps`). `get` answers the object, `list` a `{items: [...]}` list, `post` the
   * server's answer to `data`.
   */
  kubeResource?(call: KubeResourceCall): LoadResult;
  /**
   * CEL's `authorizer` checks: `{allowed: boolean, reason?: string}`. Without it every check is an
   * error decision (never an allow).
   */
  authorize?(check: AuthorizationCheck): LoadResult;
  /**
   * CEL's `globalContext.Get(name, projection)` with a projection (the entry's named projection);
   * without a projection `globalReference(name)` answers.
   */
  globalContext?(name: string, projection: string): LoadResult;
}

/** A call of CEL's resource library, as the `ContextLoader` receives it. */
export interface KubeResourceCall {
  verb: "get" | "list" | "post";
  apiVersion: string;
  /** Plural resource name (`deployments`). */
  resource: string;
  /** Empty for cluster-scoped resources, or all namespaces in a `list`. */
  namespace: string;
  /** `get`: the object's name. */
  name?: string;
  /** `list`: label equalities to select by. */
  labels?: Record<string, string>;
  /** `post`: the object sent. */
  data?: JsonValue;
}

/** What to evaluate: a resource and the admission request around it. */
export interface EngineRequest {
  resource: KubeObject;
  /** For UPDATE / DELETE; on DELETE `request.object` is this object, as upstream. */
  oldResource?: KubeObject;
  /** Defaults to CREATE. */
  operation?: Operation;
  userInfo?: UserInfo;
  roles?: string[];
  clusterRoles?: string[];
  /** Labels of the resource's namespace; when unset the engine's `namespaceLabels` lookup is asked. */
  namespaceLabels?: Record<string, string>;
  /** Subresource of the request (e.g. `status`, `ephemeralcontainers`); empty for the main resource. */
  subresource?: string;
  /**
   * Group/version/kind of the addressed resource when it differs from the object's own (a
   * subresource request such as `pods/exec` carries a `PodExecOptions` object but matches `Pod/exec`).
   */
  requestKind?: { group: string; version: string; kind: string };
  /**
   * The admission request's namespace and name (`request.namespace`, `request.name`), when they differ
   * from the object's: the options object of a CONNECT request (`kubectl exec`) carries neither.
   */
  requestNamespace?: string;
  requestName?: string;
  dryRun?: boolean;
  /**
   * Variables set before context entries are evaluated, with dotted keys (`request.operation`,
   * `element.name`). A value here overrides a context entry of the same name, as in `kyverno test`.
   */
  values?: Record<string, JsonValue>;
  /** Per-rule values, same form as `values`, taking precedence over them. */
  ruleValues?: (ruleName: string) => Record<string, JsonValue> | undefined;
  /** True for background scans: rules that need admission-only data are skipped as upstream. */
  background?: boolean;
  /**
   * PolicyExceptions to consider. Those from namespaces the engine does not accept
   * (`EngineOptions.exceptionNamespaces`) are ignored.
   */
  exceptions?: readonly PolicyException[];
  /**
   * Shared by the requests of one admission request evaluated against many policies
   * (`createRequestCache()`): the request context is built once and plain lookups are remembered.
   */
  cache?: RequestCache;
  /**
   * Answers this request's context entries instead of the engine's `contextLoader` (an admission
   * request that loaded its own ConfigMaps and API calls).
   */
  contextLoader?: ContextLoader;
  /**
   * When the caller stops waiting, in milliseconds since the epoch on the engine's clock: a rule
   * still running then stops with an `error` result ("evaluation budget exceeded: the request's
   * deadline passed …"), and so does every rule after it. No deadline when unset.
   */
  deadline?: number;
}

/** The kind of work a rule does, as controllers route it (webhooks, background passes, counts). */
export type RuleKind = "validate" | "mutate" | "mutateExisting" | "generate" | "verifyImages";

/** One filter of a rule's `match`: the kinds it names (none: any kind) and its operations (none: all). */
export interface RuleSelection {
  /** `resources.kinds` as written (autogen rules: the controllers autogen put there). */
  readonly kinds: readonly string[];
  /** The same, parsed; an entry that does not parse is left out (validation reports it). */
  readonly selectors: readonly KindSelector[];
  readonly operations: readonly Operation[] | undefined;
}

/** What the engine knows of one rule of a compiled policy (autogen rules included), for controllers. */
export interface RuleInfo {
  readonly name: string;
  readonly kind: RuleKind;
  /** The rule as evaluated (for an autogen rule, the generated one, as `status.autogen` shows it). */
  readonly rule: Rule;
  /** For an autogen rule (`autogen-x`, `autogen-cronjob-x`): the name of the rule it comes from. */
  readonly autogenOf: string | undefined;
  /**
   * The filters of `match`; empty when the rule selects by something other than `any` filters (a
   * top-level `resources` block counts as one filter). Every filter of `all` must hold, so any of
   * them bounds the kinds.
   */
  readonly selections: readonly RuleSelection[];
  /** Subresources its kinds name (`scale` of `Deployment/scale`), sorted. */
  readonly subresources: readonly string[];
  /** It reads the cluster through `configMap`, `apiCall` or `globalReference` context entries. */
  readonly readsCluster: boolean;
  /** It reads admission-only data (`request.userInfo`, roles, subjects): background scans skip it. */
  readonly admissionOnly: boolean;
}

/** A policy compiled once: defaults applied, autogen rules expanded, expressions parsed. */
export interface CompiledPolicy {
  readonly policy: Policy;
  /** Rule names after autogen expansion, in evaluation order. */
  readonly ruleNames: readonly string[];
  /** Every rule after autogen expansion, in evaluation order, with what controllers need to know. */
  readonly rules: readonly RuleInfo[];
  /**
   * Whether a rule has `configMap`, `apiCall` or `globalReference` context entries, read through the
   * `ContextLoader`: callers that load such data asynchronously only need to for these policies.
   */
  readonly readsExternalData: boolean;
  /**
   * Rules using a feature this engine does not evaluate yet (`verifyImages`, `validate.manifests`),
   * in rule order. Such a rule never passes: it yields an `error` result on
   * every resource it matches, and controllers report the policy as not ready with these reasons.
   */
  readonly unsupported: readonly UnsupportedRule[];
}

/** A rule of a compiled policy that uses a feature the engine does not evaluate yet. */
export interface UnsupportedRule {
  readonly rule: string;
  /** The feature, as written in the policy: `verifyImages` or `validate.manifests`. */
  readonly feature: string;
  /** `<feature> is not supported by kyverno-ts yet …`: the rule's result message. */
  readonly message: string;
}

/** A problem found while compiling a policy, with the field path it concerns. */
export interface CompileIssue {
  path: string;
  message: string;
}

/** Outcome of compiling a policy. */
export type CompileResult = { ok: true; policy: CompiledPolicy } | { ok: false; issues: CompileIssue[] };

/** Options of `createEngine`. */
export interface EngineOptions {
  clock?: EngineClock;
  /** Labels of a namespace, for `namespaceSelector`; return undefined when unknown. */
  namespaceLabels?: (namespace: string) => Record<string, string> | undefined;
  contextLoader?: ContextLoader;
  /** Namespaces PolicyExceptions are accepted from (wildcards; default `["*"]`, upstream's `--exceptionNamespace`). */
  exceptionNamespaces?: readonly string[];
  /**
   * How much work one rule may do (`DEFAULT_EVALUATION_LIMITS` for those left out): a rule that
   * exceeds a limit stops with an `error` result ("evaluation budget exceeded: …"). Throws a
   * RangeError for a limit that is not a positive number.
   */
  limits?: Partial<EvaluationLimits>;
}

/** The policy engine: compile policies once, then evaluate resources against them many times. */
export interface Engine {
  compile(policy: Policy): CompileResult;
  /** Evaluates the validate rules of a compiled policy. Never throws: problems become `error` results. */
  validate(policy: CompiledPolicy, request: EngineRequest): PolicyResponse;
  /**
   * Applies the mutate rules in order (`PolicyResponse.patchedResource` and `.patch`); mutate-existing
   * rules (`targets`) are left to `mutateExisting`.
   */
  mutate(policy: CompiledPolicy, request: EngineRequest): PolicyResponse;
  /** Mutate-existing rules: patches for the targets a trigger request selects (`RuleResponse.patchedTargets`); writes nothing. */
  mutateExisting(policy: CompiledPolicy, request: EngineRequest): PolicyResponse;
  /** Computes what the generate rules want to exist for a trigger resource (`RuleResponse.generated`); writes nothing. */
  generate(policy: CompiledPolicy, request: EngineRequest): PolicyResponse;
}

/**
 * The CEL policies (`policies.kyverno.io` kinds) beside the policy cache: each compiled once per
 * change with the CEL PolicyExceptions that name it (recompiled when one of those changes), and
 * selected per webhook by type, failure policy and namespace.
 */
import type { CelPolicy, CelPolicyException } from "@kyverno-ts/api";
import type { CelEngine, CelPolicyType, CompiledCelPolicy, CompileIssue } from "@kyverno-ts/engine";
import type { FailurePolicy } from "./policy-cache.js";

/** `validationActions` of a ValidatingPolicy. */
export type ValidationAction = "Deny" | "Audit" | "Warn";

/** A compiled CEL policy with what admission needs to know about it. */
export interface CachedCelPolicy {
  /** `Kind/name`, or `Kind/namespace/name` for the namespaced kinds (see `celPolicyKey`). */
  readonly key: string;
  readonly policy: CelPolicy;
  readonly compiled: CompiledCelPolicy;
  readonly failurePolicy: FailurePolicy;
  /** `validationActions` (default `Deny`, as upstream); empty for the kinds without them. */
  readonly actions: ReadonlySet<ValidationAction>;
  /** `webhookConfiguration.timeoutSeconds`, when set. */
  readonly timeoutSeconds: number | undefined;
  /**
   * Whether the policy has a webhook of its own (`…-finegrained-<policy>`), as upstream registers one
   * for a policy with `webhookConfiguration.timeoutSeconds` or `matchConditions`.
   */
  readonly fineGrained: boolean;
  /** `reinvocationPolicy` of a MutatingPolicy (default `Never`). */
  readonly reinvocation: "Never" | "IfNeeded";
}

/** Readiness of a CEL policy, for its status and metrics. */
export interface CelPolicyStatus {
  ready: boolean;
  /** `Ready`, or why not (compile issues with field paths and positions, or what is unsupported). */
  message: string;
  issues: CompileIssue[];
}

/** The store; see `createCelPolicyStore`. */
export interface CelPolicyStore {
  /** Compiles and stores a policy (replacing one with the same key); returns its status. */
  set(policy: CelPolicy): CelPolicyStatus;
  delete(key: string): boolean;
  status(key: string): CelPolicyStatus | undefined;
  get(key: string): CachedCelPolicy | undefined;
  /** Compiled policies (unsupported ones included: they answer `error`), sorted by key. */
  policies(): readonly CachedCelPolicy[];
  /** Adds or replaces a CEL PolicyException (keyed `namespace/name`); recompiles the policies it names. */
  setException(exception: CelPolicyException): void;
  deleteException(key: string): boolean;
  /** Policies of a type an admission request in `namespace` may match, sorted by key. */
  select(query: CelPolicyQuery): readonly CachedCelPolicy[];
}

/** Which CEL policies a webhook request needs. */
export interface CelPolicyQuery {
  type: CelPolicyType;
  /** The request's namespace ("" for cluster-scoped objects). */
  namespace: string;
  /** Only policies with this failure policy; all when undefined. */
  failurePolicy?: FailurePolicy;
  /**
   * Only the policy with this name (a fine-grained webhook); when undefined, every policy without a
   * fine-grained webhook of its own (no `webhookConfiguration.timeoutSeconds`, no `matchConditions`).
   */
  name?: string;
}

/** The key a CEL policy is stored under: `Kind/name`, or `Kind/namespace/name` when namespaced. */
export function celPolicyKey(ref: { kind: string; name: string; namespace?: string | undefined }): string {
  return ref.kind.startsWith("Namespaced")
    ? `${ref.kind}/${ref.namespace ?? "default"}/${ref.name}`
    : `${ref.kind}/${ref.name}`;
}

/** True for a key of `celPolicyKey` (kind names start upper case; namespaces and names cannot). */
export function isCelPolicyKey(key: string): boolean {
  return /^[A-Z][A-Za-z]*Policy\//.test(key);
}

interface SpecView {
  failurePolicy?: FailurePolicy;
  validationActions?: ValidationAction[];
  webhookConfiguration?: { timeoutSeconds?: number };
  reinvocationPolicy?: "Never" | "IfNeeded";
  matchConditions?: unknown[];
}

/**
 * What is compiled of a policy: an ImageValidatingPolicy without its validations, variables and
 * audit annotations (their image functions — `images`, `verifyImageSignatures`… — do not exist
 * here), so it still matches what it selects and answers `error` there, never a silent pass.
 */
export function compilableForm(policy: CelPolicy): CelPolicy {
  if (!policy.kind.endsWith("ImageValidatingPolicy")) return policy;
  return {
    ...policy,
    spec: { ...policy.spec, validations: [], variables: [], auditAnnotations: [] },
  } as CelPolicy;
}

/** Compile issues without the repeats of the autogen variants (one per field path, the policy's own first). */
export function distinctIssues(issues: readonly CompileIssue[]): CompileIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => !seen.has(i.path) && seen.add(i.path) !== undefined);
}

const exceptionKey = (e: CelPolicyException): string =>
  `${e.metadata.namespace ?? "default"}/${e.metadata.name}`;

const names = (e: CelPolicyException | undefined, policy: CelPolicy): boolean =>
  (e?.spec.policyRefs ?? []).some((r) => r.name === policy.metadata.name && r.kind === policy.kind);

/** Options of `createCelPolicyStore`. */
export interface CelPolicyStoreOptions {
  engine: CelEngine;
  /** Called after every compile with the policy's key and status (metrics). */
  onStatus?: (key: string, policy: CelPolicy, status: CelPolicyStatus | undefined) => void;
  /**
   * `--forceFailurePolicyIgnore`: every policy is compiled and served with `failurePolicy: Ignore`
   * (upstream's `GetFailurePolicy` under the toggle); the stored policy is unchanged.
   */
  forceFailurePolicyIgnore?: boolean;
}

/** The policy as compiled under `--forceFailurePolicyIgnore`. */
function withFailurePolicyIgnore(policy: CelPolicy): CelPolicy {
  return { ...policy, spec: { ...policy.spec, failurePolicy: "Ignore" } } as CelPolicy;
}

/** A compiled policy's entry: how its webhooks serve it. */
function cachedEntry(
  key: string,
  policy: CelPolicy,
  compiled: CompiledCelPolicy,
  forced: boolean,
): CachedCelPolicy {
  const spec = policy.spec as SpecView;
  const actions = compiled.type === "validate" || compiled.type === "imageValidate";
  return {
    key,
    policy,
    compiled,
    failurePolicy: forced ? "Ignore" : (spec.failurePolicy ?? "Fail"),
    actions: new Set(actions ? (spec.validationActions ?? ["Deny"]) : []),
    timeoutSeconds: spec.webhookConfiguration?.timeoutSeconds,
    fineGrained:
      spec.webhookConfiguration?.timeoutSeconds !== undefined || (spec.matchConditions?.length ?? 0) > 0,
    reinvocation: spec.reinvocationPolicy ?? "Never",
  };
}

/**
 * The status of a compiled policy. Every kind is processed (DeletingPolicies by the cleanup
 * controller, GeneratingPolicies and mutate-existing MutatingPolicies by the background controller);
 * image verification is not.
 */
function compiledStatus(compiled: CompiledCelPolicy): CelPolicyStatus {
  const unsupported = compiled.unsupported;
  return unsupported === undefined
    ? { ready: true, message: "Ready", issues: [] }
    : { ready: false, message: unsupported, issues: [] };
}

/** The status of a policy that does not compile. */
function failedStatus(all: readonly CompileIssue[]): CelPolicyStatus {
  const issues = distinctIssues(all);
  return {
    ready: false,
    message: issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "),
    issues,
  };
}

/** Creates an empty store; `set` compiles with the engine once per change. */
export function createCelPolicyStore(options: CelPolicyStoreOptions): CelPolicyStore {
  const { engine } = options;
  const sources = new Map<string, CelPolicy>();
  const entries = new Map<string, CachedCelPolicy>();
  const statuses = new Map<string, CelPolicyStatus>();
  const exceptions = new Map<string, CelPolicyException>();
  let sorted: CachedCelPolicy[] | undefined;

  const compile = (policy: CelPolicy): CelPolicyStatus => {
    const key = celPolicyKey({
      kind: policy.kind,
      name: policy.metadata.name,
      namespace: policy.metadata.namespace,
    });
    sources.set(key, policy);
    const forced = options.forceFailurePolicyIgnore === true;
    const form = compilableForm(forced ? withFailurePolicyIgnore(policy) : policy);
    const result = engine.compile(form, { exceptions: [...exceptions.values()] });
    if (result.ok) entries.set(key, cachedEntry(key, policy, result.policy, forced));
    else entries.delete(key);
    const status = result.ok ? compiledStatus(result.policy) : failedStatus(result.issues);
    statuses.set(key, status);
    sorted = undefined;
    options.onStatus?.(key, policy, status);
    return status;
  };

  const recompileNamed = (...changed: Array<CelPolicyException | undefined>): void => {
    for (const policy of [...sources.values()]) if (changed.some((e) => names(e, policy))) compile(policy);
  };

  const all = (): CachedCelPolicy[] => {
    sorted ??= [...entries.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return sorted;
  };

  return {
    set: compile,
    delete(key) {
      const policy = sources.get(key);
      const known = sources.delete(key);
      statuses.delete(key);
      entries.delete(key);
      sorted = undefined;
      if (known && policy) options.onStatus?.(key, policy, undefined);
      return known;
    },
    status: (key) => statuses.get(key),
    get: (key) => entries.get(key),
    policies: all,
    setException(exception) {
      const key = exceptionKey(exception);
      const before = exceptions.get(key);
      exceptions.set(key, exception);
      recompileNamed(before, exception);
    },
    deleteException(key) {
      const before = exceptions.get(key);
      if (!exceptions.delete(key)) return false;
      recompileNamed(before);
      return true;
    },
    select(query) {
      return all().filter(
        (p) =>
          p.compiled.type === query.type &&
          p.compiled.admission &&
          (p.compiled.namespace === undefined || p.compiled.namespace === query.namespace) &&
          (query.failurePolicy === undefined || p.failurePolicy === query.failurePolicy) &&
          // A policy with its own timeout or match conditions has its own (fine-grained) webhook.
          (query.name === undefined ? !p.fineGrained : p.compiled.name === query.name),
      );
    },
  };
}

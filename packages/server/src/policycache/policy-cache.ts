/**
 * The policy cache: policies compiled once when they change, indexed by webhook type, failure policy
 * and kind, so an admission request only touches the policies that can match it. PolicyExceptions
 * are kept beside them and pre-selected per policy.
 */
import type { Policy, PolicyException } from "@kyverno-ts/api";
import type { CompiledPolicy, CompileIssue, Engine, Operation, RuleKind } from "@kyverno-ts/engine";
import { matchWildcard, ruleKindOf } from "@kyverno-ts/engine";
import type { AdmissionMetrics, PolicyLabels, RuleInfoLabels } from "../metrics/metrics.js";
import { ANY_KIND, indexKeys, type RuleTypes } from "./index-keys.js";

/** A policy's failure policy: how the API server treats webhook errors, and how the server treats rule errors. */
export type FailurePolicy = "Fail" | "Ignore";

/** A compiled policy with what admission needs to know about it. */
export interface CachedPolicy {
  /** `name` for a ClusterPolicy, `namespace/name` for a Policy (how PolicyExceptions name it too). */
  readonly key: string;
  readonly policy: Policy;
  readonly compiled: CompiledPolicy;
  /** Namespace of a Policy; undefined for a ClusterPolicy. */
  readonly namespace: string | undefined;
  readonly failurePolicy: FailurePolicy;
  /** Whether any validate rule can have the Enforce action (policy, rule or override level). */
  readonly mayEnforce: boolean;
  /** Sorted kinds the policy can match (autogen controllers included), or `["*"]`. */
  readonly kinds: readonly string[];
  /** Operations it can match; undefined for all. */
  readonly operations: ReadonlySet<Operation> | undefined;
  readonly types: RuleTypes;
  /** Metric labels of the policy, computed once. */
  readonly labels: PolicyLabels;
}

/** Readiness of a policy, for its status (`Ready` condition) and `kyverno_policy_rule_info_total`. */
export interface PolicyStatus {
  ready: boolean;
  /** Why the policy is not ready (compile issues with field paths), or `Ready`. */
  message: string;
  /** Rule names added by autogen (`autogen-*`). */
  autogenRules: string[];
  issues: CompileIssue[];
}

/** Which policies an admission request needs. */
export interface PolicyQuery {
  /** `validate` and `mutate` are the admission webhooks; the others are for the background glue. */
  type: keyof RuleTypes;
  /**
   * The object's kind; undefined selects policies of every kind (subresource requests, whose object
   * kind, e.g. `PodExecOptions`, is not the kind their policies name, e.g. `Pod/exec`).
   */
  kind: string | undefined;
  /** The request's namespace ("" for cluster-scoped objects). */
  namespace: string;
  operation: Operation;
  /** Only policies with this failure policy (the `/fail` and `/ignore` endpoints); all when undefined. */
  failurePolicy?: FailurePolicy;
}

/** The cache; see `createPolicyCache`. */
export interface PolicyCache {
  /** Compiles and stores a policy (replacing one with the same key); returns its status. */
  set(policy: Policy): PolicyStatus;
  /** Removes a policy by key; false when it was not there. */
  delete(key: string): boolean;
  status(key: string): PolicyStatus | undefined;
  get(key: string): CachedPolicy | undefined;
  /** Ready policies, sorted by key. */
  policies(): readonly CachedPolicy[];
  /** Replaces every PolicyException. */
  setExceptions(exceptions: readonly PolicyException[]): void;
  /** Adds or replaces one PolicyException (keyed `namespace/name`). */
  setException(exception: PolicyException): void;
  deleteException(key: string): boolean;
  /** The PolicyExceptions that can apply to a policy (their `policyName` matches its key). */
  exceptionsFor(policy: CachedPolicy): readonly PolicyException[];
  /** Ready policies an admission request can match, sorted by key; never includes `admission: false` policies. */
  select(query: PolicyQuery): readonly CachedPolicy[];
}

/** Options of `createPolicyCache`. */
export interface PolicyCacheOptions {
  engine: Engine;
  metrics?: AdmissionMetrics;
  /**
   * `--forceFailurePolicyIgnore`: every policy's failure policy is `Ignore` (upstream's
   * `GetFailurePolicy` under the toggle), whatever its spec says; the stored policy is unchanged.
   */
  forceFailurePolicyIgnore?: boolean;
}

/** The key a policy is stored under: `name`, or `namespace/name` for a namespaced Policy. */
export function policyKey(policy: Policy): string {
  return policyRefKey({
    kind: policy.kind,
    name: policy.metadata.name,
    namespace: policy.metadata.namespace,
  });
}

/** `policyKey` from a reference (kind, name, namespace), as results and responses carry it. */
export function policyRefKey(ref: { kind: string; name: string; namespace?: string | undefined }): string {
  return ref.kind === "Policy" ? `${ref.namespace ?? "default"}/${ref.name}` : ref.name;
}

function failurePolicyOf(policy: Policy): FailurePolicy {
  const fromConfig = policy.spec.webhookConfiguration?.failurePolicy;
  if (fromConfig === "Fail" || fromConfig === "Ignore") return fromConfig;
  return policy.spec.failurePolicy;
}

function mayEnforce(policy: Policy): boolean {
  const spec = policy.spec;
  const overrides = (o: readonly { action: string }[] | undefined) =>
    (o ?? []).some((x) => x.action === "Enforce");
  return spec.rules.some((r) => {
    if (!r.validate) return false;
    const action = r.validate.failureAction ?? spec.validationFailureAction;
    return (
      action === "Enforce" ||
      overrides(r.validate.failureActionOverrides) ||
      overrides(spec.validationFailureActionOverrides)
    );
  });
}

function labelsOf(policy: Policy): PolicyLabels {
  return {
    validationMode: policy.spec.validationFailureAction === "Enforce" ? "enforce" : "audit",
    type: policy.kind === "Policy" ? "namespaced" : "cluster",
    background: policy.spec.background,
    namespace: policy.kind === "Policy" ? (policy.metadata.namespace ?? "default") : "-",
    name: policy.metadata.name,
  };
}

/** `rule_type` of `kyverno_policy_rule_info_total`, as upstream spells it. */
const METRIC_RULE_TYPE: Readonly<Record<RuleKind, RuleInfoLabels["ruleType"]>> = {
  validate: "validate",
  mutate: "mutate",
  mutateExisting: "mutate",
  generate: "generate",
  verifyImages: "imageVerify",
};

function ruleInfo(
  policy: Policy,
  rules: ReadonlyArray<{ name: string; kind: RuleKind }>,
  ready: (rule: string) => boolean,
): RuleInfoLabels[] {
  const labels = labelsOf(policy);
  return rules.map((r) => ({
    policy: labels,
    rule: r.name,
    ruleType: METRIC_RULE_TYPE[r.kind],
    ready: ready(r.name),
  }));
}

/** A compiled policy's entry in the cache. */
function cachedEntry(
  key: string,
  policy: Policy,
  compiled: CompiledPolicy,
  options: PolicyCacheOptions,
): CachedPolicy {
  const keys = indexKeys(compiled);
  return {
    key,
    policy,
    compiled,
    namespace: policy.kind === "Policy" ? (policy.metadata.namespace ?? "default") : undefined,
    failurePolicy: options.forceFailurePolicyIgnore === true ? "Ignore" : failurePolicyOf(policy),
    mayEnforce: mayEnforce(policy),
    kinds: keys.kinds,
    operations: keys.operations,
    types: keys.types,
    labels: labelsOf(policy),
  };
}

/**
 * The status of a compiled policy. A rule using a feature the engine does not evaluate yet
 * (verifyImages, validate.cel) is evaluated (it answers `error`, honouring the failure policy) but
 * keeps the policy not ready; autogen rules do not count.
 */
function compiledStatus(compiled: CompiledPolicy): PolicyStatus {
  const generated = new Set(compiled.rules.filter((r) => r.autogenOf !== undefined).map((r) => r.name));
  const unsupported = compiled.unsupported.filter((u) => !generated.has(u.rule));
  return {
    ready: unsupported.length === 0,
    message:
      unsupported.length === 0 ? "Ready" : unsupported.map((u) => `rule ${u.rule}: ${u.message}`).join("; "),
    autogenRules: [...generated],
    issues: [],
  };
}

/** The status of a policy that does not compile. */
function failedStatus(issues: CompileIssue[]): PolicyStatus {
  return {
    ready: false,
    message: issues.map((i) => `${i.path}: ${i.message}`).join("; "),
    autogenRules: [],
    issues,
  };
}

/** The rule-info metric of a compiled policy (its unsupported rules not ready) or of one that failed. */
function ruleInfoOf(policy: Policy, compiled: CompiledPolicy | undefined): RuleInfoLabels[] {
  if (compiled === undefined)
    return ruleInfo(
      policy,
      policy.spec.rules.map((r) => ({ name: r.name, kind: ruleKindOf(r) })),
      () => false,
    );
  const notReady = new Set(compiled.unsupported.map((u) => u.rule));
  return ruleInfo(policy, compiled.rules, (name) => !notReady.has(name));
}

/** The ready policies sorted, and per webhook type, failure policy and kind; see `createPolicyIndex`. */
interface PolicyIndex {
  all(): CachedPolicy[];
  select(query: PolicyQuery): readonly CachedPolicy[];
  /** Forgets the derived views after a policy changed. */
  invalidate(): void;
}

/** Derived views over `entries`, rebuilt lazily after a change. */
function createPolicyIndex(entries: ReadonlyMap<string, CachedPolicy>): PolicyIndex {
  let sorted: CachedPolicy[] | undefined;
  let knownKinds: ReadonlySet<string> | undefined;
  const buckets = new Map<string, CachedPolicy[]>();

  const all = (): CachedPolicy[] => {
    sorted ??= [...entries.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return sorted;
  };

  // Buckets exist only for kinds some policy names, so requests for arbitrary kinds cannot grow the map.
  const bucket = (
    type: keyof RuleTypes,
    failurePolicy: FailurePolicy | undefined,
    requested: string | undefined,
  ): CachedPolicy[] => {
    knownKinds ??= new Set(all().flatMap((p) => p.kinds));
    const kind = requested === undefined ? "" : knownKinds.has(requested) ? requested : ANY_KIND;
    const id = `${type}|${failurePolicy ?? ""}|${kind}`;
    let list = buckets.get(id);
    if (list === undefined) {
      list = all().filter(
        (p) =>
          p.types[type] &&
          p.policy.spec.admission &&
          (failurePolicy === undefined || p.failurePolicy === failurePolicy) &&
          (kind === "" || p.kinds[0] === ANY_KIND || p.kinds.includes(kind)),
      );
      buckets.set(id, list);
    }
    return list;
  };

  return {
    all,
    select(query) {
      const candidates = bucket(query.type, query.failurePolicy, query.kind);
      let out: CachedPolicy[] | undefined;
      for (let i = 0; i < candidates.length; i++) {
        const p = candidates[i] as CachedPolicy;
        const keep =
          (p.namespace === undefined || p.namespace === query.namespace) &&
          (p.operations === undefined || p.operations.has(query.operation));
        if (keep && out !== undefined) out.push(p);
        else if (!keep && out === undefined) out = candidates.slice(0, i);
      }
      return out ?? candidates;
    },
    invalidate() {
      sorted = undefined;
      knownKinds = undefined;
      buckets.clear();
    },
  };
}

/** The PolicyExceptions, keyed `namespace/name`, with those naming each policy pre-selected. */
type ExceptionIndex = Pick<
  PolicyCache,
  "setExceptions" | "setException" | "deleteException" | "exceptionsFor"
> & {
  /** Forgets the per-policy selections after a policy changed. */
  invalidate(): void;
};

function createExceptionIndex(): ExceptionIndex {
  const exceptions = new Map<string, PolicyException>();
  const byPolicy = new Map<string, readonly PolicyException[]>();
  return {
    setExceptions(list) {
      exceptions.clear();
      for (const e of list) exceptions.set(`${e.metadata.namespace ?? "default"}/${e.metadata.name}`, e);
      byPolicy.clear();
    },
    setException(e) {
      exceptions.set(`${e.metadata.namespace ?? "default"}/${e.metadata.name}`, e);
      byPolicy.clear();
    },
    deleteException(key) {
      const removed = exceptions.delete(key);
      if (removed) byPolicy.clear();
      return removed;
    },
    exceptionsFor(policy) {
      let list = byPolicy.get(policy.key);
      if (list === undefined) {
        list = [...exceptions.values()].filter((e) =>
          e.spec.exceptions.some((x) => matchWildcard(x.policyName, policy.key)),
        );
        byPolicy.set(policy.key, list);
      }
      return list;
    },
    invalidate: () => byPolicy.clear(),
  };
}

/**
 * Creates an empty cache. `set` compiles with the engine once per change; a policy that does not
 * compile is kept out of the index and reported not ready with the issues' field paths.
 */
export function createPolicyCache(options: PolicyCacheOptions): PolicyCache {
  const { engine, metrics } = options;
  const entries = new Map<string, CachedPolicy>();
  const statuses = new Map<string, PolicyStatus>();
  const index = createPolicyIndex(entries);
  const exceptions = createExceptionIndex();
  const changed = (): void => {
    index.invalidate();
    exceptions.invalidate();
  };

  return {
    set(policy) {
      const key = policyKey(policy);
      const previous = entries.get(key) ?? (statuses.has(key) ? null : undefined);
      const result = engine.compile(policy);
      if (result.ok) entries.set(key, cachedEntry(key, policy, result.policy, options));
      else entries.delete(key);
      const status = result.ok ? compiledStatus(result.policy) : failedStatus(result.issues);
      metrics?.setRuleInfo(key, ruleInfoOf(policy, result.ok ? result.policy : undefined));
      statuses.set(key, status);
      changed();
      metrics?.policyChange(labelsOf(policy), previous === undefined ? "create" : "update");
      return status;
    },
    delete(key) {
      const entry = entries.get(key);
      const known = statuses.delete(key);
      entries.delete(key);
      if (!known) return false;
      changed();
      metrics?.setRuleInfo(key, []);
      if (entry) metrics?.policyChange(entry.labels, "delete");
      return true;
    },
    status: (key) => statuses.get(key),
    get: (key) => entries.get(key),
    policies: () => index.all(),
    setExceptions: exceptions.setExceptions,
    setException: exceptions.setException,
    deleteException: exceptions.deleteException,
    exceptionsFor: exceptions.exceptionsFor,
    select: index.select,
  };
}

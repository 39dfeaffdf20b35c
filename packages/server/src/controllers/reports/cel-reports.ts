/**
 * The CEL policies in the reports controller: which ValidatingPolicies (and ImageValidatingPolicies,
 * whose results are errors) can match a resource, by the kinds of their `matchConstraints.resourceRules`
 * (autogen's Pod controllers included); their background scans (`evaluation.background.enabled`,
 * default true) as report results with upstream's `source` (`KyvernoValidatingPolicy`…); and which
 * stored CEL policy an admission result (ephemeral report) belongs to.
 */
import type { KubeObject, PolicyReportResult } from "@kyverno-ts/api";
import {
  type CelEngine,
  type PolicyResponse,
  policyReportResults,
  SCORED_ANNOTATION,
} from "@kyverno-ts/engine";
import { CEL_POLICY_KINDS, type CelPolicyKind } from "../../cluster-state/cel-feed.js";
import type { CachedCelPolicy, CelPolicyStore } from "../../policycache/cel-policy-store.js";
import type { ReportsMetrics } from "./metrics.js";
import { PROCESS_PROPERTY } from "./process-property.js";
import type { ResourceRef } from "./resource-key.js";

/**
 * Report sources of the CEL kinds whose results go into reports: the validating kinds (scanned and at
 * admission), MutatingPolicies (the mutating webhook's and mutate-existing results) and
 * GeneratingPolicies (the background controller's results), as upstream's.
 */
const CEL_SOURCES: Readonly<Record<string, string>> = {
  ValidatingPolicy: "KyvernoValidatingPolicy",
  NamespacedValidatingPolicy: "KyvernoValidatingPolicy",
  ImageValidatingPolicy: "KyvernoImageValidatingPolicy",
  NamespacedImageValidatingPolicy: "KyvernoImageValidatingPolicy",
  MutatingPolicy: "KyvernoMutatingPolicy",
  NamespacedMutatingPolicy: "KyvernoMutatingPolicy",
  GeneratingPolicy: "KyvernoGeneratingPolicy",
  NamespacedGeneratingPolicy: "KyvernoGeneratingPolicy",
};

/**
 * The `policies.kyverno.io` kinds whose results go into reports (those with a source above): the only
 * CEL kinds the reports controller's cluster state watches (DeletingPolicies report nothing).
 */
export const REPORTED_CEL_KINDS: readonly CelPolicyKind[] = CEL_POLICY_KINDS.filter(
  (kind) => CEL_SOURCES[kind] !== undefined,
);

/** What the reconciler asks about CEL policies; see `createCelReports`. */
export interface CelReports {
  /** Validating CEL policies that can match a resource of this kind and namespace, reports enabled. */
  applicable(ref: ResourceRef): CachedCelPolicy[];
  /** Background results of the policies (those with `evaluation.background` on) for the object. */
  scan(
    ref: ResourceRef,
    object: KubeObject,
    policies: readonly CachedCelPolicy[],
    signal: AbortSignal,
  ): Promise<PolicyReportResult[]>;
  /**
   * Store keys of the CEL policies (any kind that reports) that can match a resource of this kind and
   * namespace: their admission rows live in the report, read back after a restart.
   */
  admissionFed(ref: ResourceRef): string[];
  /** Kinds the background CEL policies match (the resource informers watch them). */
  kinds(): string[];
  /** The store key of the CEL policy a report result names (`source` and `policy`), if one is loaded. */
  keyOf(result: Pick<PolicyReportResult, "source" | "policy">): string | undefined;
  /** Whether a stored CEL policy exists under the key (its admission results still count). */
  known(key: string): boolean;
  /** Whether the stored CEL policy under the key is unscored (`policies.kyverno.io/scored: "false"`). */
  unscored(key: string): boolean;
}

/** Options of `createCelReports`. */
export interface CelReportsOptions {
  engine: CelEngine;
  store: CelPolicyStore;
  /** The kind of a resource (`apps/v1`, `deployments` → `Deployment`), built-in or discovered. */
  resourceKind: (apiVersion: string, resource: string) => string | undefined;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
  /** Records each background evaluation (`kyverno_<kind>_policy_execution_duration_seconds`). */
  metrics?: ReportsMetrics;
  /** Monotonic milliseconds, for evaluation durations. */
  monotonic?: () => number;
  /** Runs an evaluation that may read external data (`resource.Get`…), as the classic scans do. */
  evaluate: (run: () => PolicyResponse, signal: AbortSignal) => Promise<PolicyResponse>;
  /** Awaited before each evaluation: yields the event loop once a scan has held it for a slice. */
  pause?: () => Promise<void>;
  /** Told each background evaluation's response (the scan's Kubernetes Events). */
  onScanned?: (response: PolicyResponse) => void;
}

const reportsDisabled = (p: CachedCelPolicy): boolean =>
  p.policy.metadata.labels?.["reports.kyverno.io/disabled"] !== undefined;

const isValidating = (p: CachedCelPolicy): boolean =>
  (p.compiled.type === "validate" || p.compiled.type === "imageValidate") && !reportsDisabled(p);

/** Creates the view; it reads the store at each call (the cluster state keeps the store current). */
export function createCelReports(options: CelReportsOptions): CelReports {
  const { engine, store } = options;
  const kindCache = new WeakMap<object, readonly string[]>();

  /** Kinds of a policy's resource rules (wildcard resources match every kind: `*`). */
  const kindsOf = (p: CachedCelPolicy): readonly string[] => {
    const cached = kindCache.get(p.compiled);
    if (cached !== undefined) return cached;
    const kinds = new Set<string>();
    for (const rule of p.compiled.resourceRules)
      for (const group of rule.apiGroups?.length ? rule.apiGroups : [""])
        for (const version of rule.apiVersions?.length ? rule.apiVersions : ["v1"])
          for (const resource of rule.resources ?? []) {
            if (resource.includes("*")) {
              kinds.add("*");
              continue;
            }
            if (resource.includes("/")) continue;
            const v = version === "*" ? "v1" : version;
            const kind = options.resourceKind(group === "" || group === "*" ? v : `${group}/${v}`, resource);
            if (kind !== undefined) kinds.add(kind);
          }
    const list = [...kinds].sort();
    // Kinds discovery has not seen yet are asked again next time.
    if (list.length > 0) kindCache.set(p.compiled, list);
    return list;
  };

  const applies = (p: CachedCelPolicy, kind: string, namespace: string): boolean =>
    isValidating(p) && matches(p, kind, namespace);

  const matches = (p: CachedCelPolicy, kind: string, namespace: string): boolean => {
    if (p.compiled.namespace !== undefined && p.compiled.namespace !== namespace) return false;
    const kinds = kindsOf(p);
    return kinds.includes("*") || kinds.includes(kind);
  };

  return {
    applicable: (ref) => store.policies().filter((p) => applies(p, ref.kind, ref.namespace)),
    admissionFed: (ref) =>
      store
        .policies()
        .filter(
          (p) =>
            CEL_SOURCES[p.policy.kind] !== undefined &&
            !reportsDisabled(p) &&
            matches(p, ref.kind, ref.namespace),
        )
        .map((p) => p.key),
    async scan(ref, object, policies, signal) {
      const out: PolicyReportResult[] = [];
      const namespaceLabels = ref.namespace === "" ? undefined : options.namespaceLabels(ref.namespace);
      for (const p of policies) {
        if (!p.compiled.background) continue;
        await options.pause?.();
        let elapsed = 0;
        const response = await options.evaluate(() => {
          const started = options.monotonic?.() ?? 0;
          const evaluated = engine.validate(p.compiled, {
            resource: object,
            operation: "CREATE",
            background: true,
            ...(namespaceLabels === undefined ? {} : { namespaceLabels }),
          });
          elapsed = (options.monotonic?.() ?? 0) - started;
          return evaluated;
        }, signal);
        if (response.rules.length > 0) options.onScanned?.(response);
        const rule = response.rules[0];
        const type = p.compiled.type;
        if (rule !== undefined && (type === "validate" || type === "imageValidate"))
          options.metrics?.celPolicyExecution(
            {
              type,
              policyName: p.compiled.name,
              background: p.compiled.background,
              validationMode: p.actions.has("Deny") ? "enforce" : "audit",
              resourceKind: ref.kind,
              resourceNamespace: ref.namespace,
              operation: "CREATE",
              result: rule.status,
            },
            elapsed / 1000,
          );
        const unscored = p.policy.metadata.annotations?.[SCORED_ANNOTATION] === "false";
        for (const { resources: _resources, ...r } of policyReportResults(response, { unscored }))
          out.push({ ...r, properties: { ...r.properties, process: PROCESS_PROPERTY.background } });
      }
      return out;
    },
    kinds() {
      const kinds = new Set<string>();
      for (const p of store.policies())
        if (isValidating(p) && p.compiled.background) for (const k of kindsOf(p)) if (k !== "*") kinds.add(k);
      return [...kinds].sort();
    },
    keyOf(result) {
      if (result.source === undefined || !Object.values(CEL_SOURCES).includes(result.source))
        return undefined;
      const slash = result.policy.indexOf("/");
      const name = slash < 0 ? result.policy : result.policy.slice(slash + 1);
      const namespace = slash < 0 ? undefined : result.policy.slice(0, slash);
      return store
        .policies()
        .find(
          (p) =>
            CEL_SOURCES[p.policy.kind] === result.source &&
            p.compiled.name === name &&
            p.compiled.namespace === namespace,
        )?.key;
    },
    known: (key) => store.get(key) !== undefined,
    unscored: (key) => store.get(key)?.policy.metadata.annotations?.[SCORED_ANNOTATION] === "false",
  };
}

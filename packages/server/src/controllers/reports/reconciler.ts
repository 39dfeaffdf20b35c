/**
 * Reconciling one resource: evaluate every background policy that can match it (as a background
 * request: rules needing admission data are skipped, as upstream), merge the admission results kept
 * for it, and make its report say exactly that: written when the content changed, deleted when the
 * resource is gone or nothing applies to it any more.
 */
import type { KubeObject, PolicyReportResult } from "@kyverno-ts/api";
import {
  createRequestCache,
  type Engine,
  type PolicyResponse,
  policyReportResults,
  SCORED_ANNOTATION,
} from "@kyverno-ts/engine";
import type { ApiResult, KubeClient, ReconcileContext, ReconcileResult } from "@kyverno-ts/kube";
import type { PolicyEvents } from "../../events/policy-events.js";
import type { ImmediateScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import { buildResourceReport, mergeResults, type ReportLimits } from "../../reports/report-builder.js";
import type { ReportWriter, WriteOutcome } from "../../reports/report-writer.js";
import { type AdmissionPhase, PHASE_RULE_TYPES } from "../admission/results.js";
import type { AdmissionResultStore } from "./admission-results.js";
import type { CelReports } from "./cel-reports.js";
import { parseObject, takeJson } from "./compact-object.js";
import type { ReportsMetrics } from "./metrics.js";
import { admissionFed, createSelections, reportsDisabled } from "./policy-selection.js";
import { PROCESS_PROPERTY } from "./process-property.js";
import type { ResourceInformers } from "./resource-informers.js";
import { parseResourceKey, type ResourceRef, scopeOf } from "./resource-key.js";
import type { ScanInputs } from "./scan-inputs.js";
import { createScanSlicer, type ScanSlicer } from "./scan-slicer.js";

/** What a reconcile reads and writes through. */
export interface ReconcilerDeps {
  engine: Engine;
  /** Answers the context entries (configMap, apiCall, globalReference) the engine's loader is asked for. */
  context: ImmediateScanContext;
  cache: PolicyCache;
  informers: ResourceInformers;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
  /** Resources Kyverno's ConfigMap filters out (`resourceFilters`): they get no report. */
  filtered?: (ref: ResourceRef) => boolean;
  /** `--enableReporting` without `validate`: background scans report nothing (default false). */
  skipValidateScans?: boolean;
  writer: ReportWriter;
  admission: AdmissionResultStore;
  client: KubeClient;
  logger: Logger;
  metrics: ReportsMetrics | undefined;
  limits: ReportLimits;
  /** Monotonic milliseconds, for rule execution durations. */
  monotonic: () => number;
  /** Told about each write that happened (or not). */
  onOutcome?: (outcome: WriteOutcome) => void;
  /** The CEL policies (`policies.kyverno.io` ValidatingPolicies); none when omitted. */
  cel?: CelReports;
  /** Receives each scan's response for Kubernetes Events (only enqueues). */
  events?: PolicyEvents;
  /**
   * The digest of a scan's inputs: a resource whose report answers the same inputs is not evaluated
   * again (no evaluation, no Events, no write). None: every scan evaluates.
   */
  inputs?: ScanInputs;
  /**
   * Evaluation runs on the event loop that answers probes and metrics: before each policy it pauses
   * here, which yields once the scan has held the loop for a slice (default: a slicer of
   * `DEFAULT_SLICE_MS` over `monotonic`).
   */
  slicer?: ScanSlicer;
}

/**
 * Report results of a policy response as per-resource reports carry them: without `resources` (the
 * report's `scope` names the resource), with the `process` property of where they came from.
 */
export function reportResultsOf(
  response: PolicyResponse,
  policy: CachedPolicy,
  process: (typeof PROCESS_PROPERTY)[keyof typeof PROCESS_PROPERTY],
  phase: AdmissionPhase = "validate",
): PolicyReportResult[] {
  const unscored = policy.policy.metadata.annotations?.[SCORED_ANNOTATION] === "false";
  const ruleTypes = PHASE_RULE_TYPES[phase];
  // Per-resource reports name the resource once, in `scope`; upstream leaves `resources` out of results.
  return policyReportResults(response, {
    unscored,
    ruleTypes,
    omitResources: true,
    properties: { process },
  });
}

const ok = <T>(value: T): ApiResult<T> => ({ ok: true, status: 200, value });
const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** How often, and how far apart, a resource with admission results is looked for before it counts as gone. */
const NOT_STORED_RETRIES = 5;
const NOT_STORED_DELAY_MS = 200;

/**
 * A live resource: its resourceVersion, and the object itself, decoded only when asked (a scan whose
 * inputs did not change needs none; asking twice decodes once).
 */
type Lookup =
  | { state: "live"; resourceVersion: string | undefined; object: () => KubeObject }
  | { state: "gone" }
  | { state: "unsynced" }
  | { state: "failed"; failure: ApiResult<never> };

/** Creates the reconcile function of the work queue. */
export function createReconciler(
  deps: ReconcilerDeps,
): (key: string, context: ReconcileContext) => Promise<ReconcileResult | undefined> {
  const { engine, cache, informers, writer, admission, logger, metrics } = deps;
  /** Resources with admission results not found yet, and how often they were looked for. */
  const notStoredYet = new Map<string, number>();
  const slicer = deps.slicer ?? createScanSlicer({ monotonic: deps.monotonic });
  const select = createSelections();
  const none: CachedPolicy[] = [];

  /** The resource, from its informer when its kind is watched, else from the API server. */
  const lookup = async (ref: ResourceRef, signal: AbortSignal): Promise<Lookup> => {
    const watched = informers.get(ref.kind);
    if (watched !== undefined && watched.apiVersion === ref.apiVersion) {
      if (!watched.informer.hasSynced()) return { state: "unsynced" };
      const cached = watched.informer.get(ref.namespace || undefined, ref.name);
      if (cached?.metadata.uid === ref.uid) {
        // Taken from the cache now (as the scan of it would), decoded when the scan needs it.
        const json = takeJson(cached);
        if (json !== undefined) {
          let object: KubeObject | undefined;
          const decoded = () => {
            object ??= parseObject(json);
            return object;
          };
          return { state: "live", resourceVersion: cached.metadata.resourceVersion, object: decoded };
        }
        // An earlier scan took its text: the API server has it (as upstream's scans always read it).
      }
      // Admission results (the mutating webhook's first) can come before the informer's event for the
      // object: ask the API server instead of forgetting them.
      else if (admission.get(ref.uid) === undefined) return { state: "gone" };
    }
    const got = await deps.client.get(
      {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        name: ref.name,
        ...(ref.namespace ? { namespace: ref.namespace } : {}),
      },
      { signal },
    );
    if (got.ok) {
      const object = got.value;
      return object.metadata?.uid === ref.uid
        ? { state: "live", resourceVersion: stringOf(object.metadata?.resourceVersion), object: () => object }
        : { state: "gone" };
    }
    return got.status === 404 ? { state: "gone" } : { state: "failed", failure: got };
  };

  const evaluate = async (
    ref: ResourceRef,
    object: KubeObject,
    policies: readonly CachedPolicy[],
    signal: AbortSignal,
  ): Promise<PolicyReportResult[]> => {
    const out: PolicyReportResult[] = [];
    const namespaceLabels = ref.namespace === "" ? undefined : deps.namespaceLabels(ref.namespace);
    // The policies scanning one resource share its context and plain lookups.
    const requestCache = createRequestCache();
    for (const p of policies) {
      // Yields once the scan held the loop for a slice (no promise per policy otherwise).
      if (slicer.due()) await slicer.pause();
      let elapsed = 0;
      // Without waiting for a promise when the policy reads no context entry not fetched yet.
      const evaluation = deps.context.evaluateNow(() => {
        const started = deps.monotonic();
        const evaluated = engine.validate(p.compiled, {
          resource: object,
          operation: "CREATE",
          background: true,
          ...(namespaceLabels === undefined ? {} : { namespaceLabels }),
          exceptions: cache.exceptionsFor(p),
          cache: requestCache,
        });
        elapsed = deps.monotonic() - started;
        return evaluated;
      }, signal);
      const response = "value" in evaluation ? evaluation.value : await evaluation.later;
      const seconds = elapsed / 1000 / Math.max(1, response.rules.length);
      for (const rule of response.rules) {
        metrics?.ruleResult(
          {
            policy: p.labels,
            validationMode: rule.failureAction === "Enforce" ? "enforce" : "audit",
            rule: rule.name,
            result: rule.status,
            resourceKind: ref.kind,
            resourceNamespace: ref.namespace,
          },
          seconds,
        );
      }
      deps.events?.scan(response);
      for (const r of reportResultsOf(response, p, PROCESS_PROPERTY.background)) out.push(r);
    }
    return out;
  };

  /** Admission results still meaningful: their policy and rule exist, and the scan did not answer for them. */
  const admissionResults = (uid: string, background: readonly PolicyReportResult[]): PolicyReportResult[] => {
    const entry = admission.get(uid);
    if (entry === undefined) return [];
    const answered = new Set(background.map((r) => `${r.policy}\u0000${r.rule ?? ""}`));
    const out: PolicyReportResult[] = [];
    for (const [key, results] of entry) {
      const policy = cache.get(key);
      if (policy === undefined && deps.cel?.known(key) === true) {
        for (const r of results) if (!answered.has(`${r.policy}\u0000${r.rule ?? ""}`)) out.push(r);
        continue;
      }
      if (policy === undefined || reportsDisabled(policy)) continue;
      const rules = new Set(policy.compiled.ruleNames);
      for (const r of results)
        if (rules.has(r.rule ?? "") && !answered.has(`${r.policy}\u0000${r.rule ?? ""}`)) out.push(r);
    }
    return out;
  };

  /**
   * After a restart the rows that come from admission (validate rules no scan answers, mutate rules)
   * and from the background controller (generate, mutate existing) live in the report alone: read
   * them back, as upstream keeps them in its reports rather than in a controller's memory. The CEL
   * kinds' rows too (kept under their store keys): those admission wrote (`process: admission review`:
   * a MutatingPolicy's, a GeneratingPolicy's, a ValidatingPolicy's no scan answers).
   */
  const seedFromReport = async (
    ref: ResourceRef,
    admissionFedPolicies: readonly CachedPolicy[],
    celKeys: readonly string[],
    signal: AbortSignal,
  ) => {
    if (admissionFedPolicies.length + celKeys.length === 0 || admission.get(ref.uid) !== undefined)
      return undefined;
    const current = await writer.read({ namespace: ref.namespace, name: ref.uid }, signal);
    if (!current.ok) return current;
    const byKey = new Map(admissionFedPolicies.map((p) => [p.key, p]));
    const cel = new Set(celKeys);
    const byPolicy = new Map<string, PolicyReportResult[]>();
    for (const r of current.value?.results ?? []) {
      const policy = byKey.get(r.policy);
      if (policy === undefined) {
        const celKey = cel.size === 0 ? undefined : deps.cel?.keyOf(r);
        if (celKey === undefined || !cel.has(celKey)) continue;
        if (r.properties?.process !== PROCESS_PROPERTY.admission) continue;
        byPolicy.set(celKey, [...(byPolicy.get(celKey) ?? []), r]);
        continue;
      }
      if (!admissionFed(policy, r.rule ?? "")) continue;
      byPolicy.set(r.policy, [...(byPolicy.get(r.policy) ?? []), r]);
    }
    admission.seed(ref.uid, byPolicy);
    return undefined;
  };

  const settle = (
    written: ApiResult<WriteOutcome>,
    key: string,
    retries: number,
  ): ReconcileResult | undefined => {
    if (written.ok) {
      deps.onOutcome?.(written.value);
      return undefined;
    }
    const fields = { key, status: written.status, reason: written.reason, message: written.message };
    if (retries === 0) logger.warn(fields, "cannot write report, retrying with backoff");
    else logger.debug({ ...fields, retries }, "cannot write report, retrying with backoff");
    return { error: written };
  };

  return async (key, { retries, signal }) => {
    if (slicer.due()) await slicer.pause();
    const ref = parseResourceKey(key);
    if (ref === undefined) return undefined;
    const filtered = deps.filtered?.(ref) === true;
    const selection = filtered ? undefined : select(cache.policies(), ref.kind, ref.namespace);
    const applicable = selection?.applicable ?? none;
    const celApplicable =
      filtered || deps.skipValidateScans === true ? [] : (deps.cel?.applicable(ref) ?? []);
    const background = deps.skipValidateScans === true ? none : (selection?.scanned ?? none);
    const admissionFedPolicies = selection?.admissionFed ?? none;
    const celAdmissionFed = filtered ? [] : (deps.cel?.admissionFed(ref) ?? []);
    const at = { namespace: ref.namespace, name: ref.uid };
    if (filtered) admission.delete(ref.uid);
    if (
      applicable.length === 0 &&
      celApplicable.length === 0 &&
      admissionFedPolicies.length === 0 &&
      celAdmissionFed.length === 0 &&
      admission.get(ref.uid) === undefined
    ) {
      // Nothing applies to it (any more): no report, whether or not the resource exists.
      return settle(await writer.remove(at, { known: true, signal }), key, retries);
    }
    const found = await lookup(ref, signal);
    if (found.state === "unsynced") return { requeueAfterMs: 1000 };
    if (found.state === "failed") return settle(found.failure, key, retries);
    if (found.state === "gone" && admission.get(ref.uid) !== undefined) {
      // The webhooks answer before the API server stores the object: wait for it a few times.
      const waited = notStoredYet.get(ref.uid) ?? 0;
      if (waited < NOT_STORED_RETRIES) {
        notStoredYet.set(ref.uid, waited + 1);
        return { requeueAfterMs: NOT_STORED_DELAY_MS };
      }
    }
    notStoredYet.delete(ref.uid);
    if (found.state === "gone") {
      admission.delete(ref.uid);
      return settle(await writer.remove(at, { known: false, signal }), key, retries);
    }
    const inputs =
      celApplicable.length + celAdmissionFed.length > 0 || admission.get(ref.uid) !== undefined
        ? undefined
        : deps.inputs?.digest({
            uid: ref.uid,
            resourceVersion: found.resourceVersion,
            namespaceLabels: ref.namespace === "" ? undefined : deps.namespaceLabels(ref.namespace),
            scanned: background,
            reporting: selection?.reporting ?? none,
          });
    // Nothing the scan reads changed since the report was written for it: it still says the same.
    if (inputs !== undefined && writer.answers(at, inputs)) return settle(ok("unchanged"), key, retries);
    const seeded = await seedFromReport(ref, admissionFedPolicies, celAdmissionFed, signal);
    if (seeded !== undefined) return settle(seeded, key, retries);
    const object = found.object();
    const scanned = [
      ...(await evaluate(ref, object, background, signal)),
      ...((await deps.cel?.scan(ref, object, celApplicable, signal)) ?? []),
    ];
    const results = mergeResults(admissionResults(ref.uid, scanned), scanned);
    if (results.length === 0) return settle(await writer.remove(at, { known: true, signal }), key, retries);
    const report = buildResourceReport(scopeOf(ref), results, deps.limits, { merged: true });
    return settle(await writer.apply(report, signal, inputs), key, retries);
  };
}

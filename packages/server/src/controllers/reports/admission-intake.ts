/**
 * Admission results entering the reports controller, from either hand-over: the in-process bounded
 * queue (`AdmissionResult`, playground and single-process setups) or the ephemeral reports another
 * process wrote. Both record, per resource and policy, what the policy said at admission, and requeue
 * the resource so its report merges it.
 */
import type { PolicyReportResult } from "@kyverno-ts/api";
import { policyReportResults, type RuleKind } from "@kyverno-ts/engine";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import { policiesByPhase } from "../../reports/ephemeral-phases.js";
import { type EphemeralReport, evaluatedPolicies } from "../../reports/ephemeral-reports.js";
import {
  type AdmissionPhase,
  type AdmissionResult,
  PHASE_RULE_KINDS,
  PHASE_RULE_TYPES,
} from "../admission/results.js";
import type { AdmissionResultStore } from "./admission-results.js";
import type { CelReports } from "./cel-reports.js";
import { PROCESS_PROPERTY } from "./process-property.js";
import { reportResultsOf } from "./reconciler.js";
import { type ResourceRef, resourceKey } from "./resource-key.js";

/** What the intake writes to. */
export interface AdmissionIntakeDeps {
  cache: PolicyCache;
  admission: AdmissionResultStore;
  enqueue: (key: string) => void;
  /** The CEL policies, whose admission results are kept under their store keys. */
  cel?: CelReports;
}

/**
 * Records what some phases said about a policy: their results replace the policy's earlier results of
 * the rules they answer for (the mutating webhook's for mutate rules, the validating webhook's for the
 * validate rules, the background controller's for generate and mutate-existing rules) and leave the
 * others.
 */
function recordPhases(
  deps: AdmissionIntakeDeps,
  uid: string,
  policy: CachedPolicy,
  results: readonly PolicyReportResult[],
  phases: ReadonlySet<AdmissionPhase>,
): void {
  const kinds = new Set<RuleKind>([...phases].flatMap((p) => PHASE_RULE_KINDS[p]));
  const answered = new Set(policy.compiled.rules.filter((r) => kinds.has(r.kind)).map((r) => r.name));
  const earlier = deps.admission.get(uid)?.get(policy.key) ?? [];
  const kept = earlier.filter((r) => !answered.has(r.rule ?? ""));
  deps.admission.record(uid, policy.key, [...kept, ...results]);
}

/** Records one in-process admission result (a DELETE forgets the resource's admission results). */
export function ingestAdmissionResult(result: AdmissionResult, deps: AdmissionIntakeDeps): void {
  const { apiVersion, kind, namespace, name, uid } = result.resource;
  if (uid === "" || name === "") return;
  const phase = result.phase ?? "validate";
  if (result.operation === "DELETE") deps.admission.delete(uid);
  else {
    for (const response of result.responses) {
      const p = response.policy;
      const policy = deps.cache.get(p.namespace ? `${p.namespace}/${p.name}` : p.name);
      if (policy !== undefined)
        recordPhases(
          deps,
          uid,
          policy,
          // Every phase answers an admission, the background controller's too (upstream's generate
          // reports say `process: admission review`).
          reportResultsOf(response, policy, PROCESS_PROPERTY.admission, phase),
          new Set([phase]),
        );
      else if (deps.cel !== undefined) {
        // The phase's rule types: a MutatingPolicy's rows come from the mutating webhook, a
        // GeneratingPolicy's from the background controller.
        // An unscored policy's failures are warnings, as a classic policy's.
        const ruleTypes = PHASE_RULE_TYPES[phase];
        const first = policyReportResults(response, { ruleTypes })[0];
        const key = first === undefined ? undefined : deps.cel.keyOf(first);
        if (key === undefined) continue;
        const unscored = deps.cel.unscored(key);
        const results = policyReportResults(response, { ruleTypes, unscored }).map(
          ({ resources: _resources, ...r }) => ({
            ...r,
            properties: { ...r.properties, process: PROCESS_PROPERTY.admission },
          }),
        );
        deps.admission.record(uid, key, results);
      }
    }
  }
  deps.enqueue(resourceKey({ apiVersion, kind, namespace, name, uid }));
}

/** Records the results of an ephemeral report; policies this replica does not know are left out. */
export function ingestEphemeralReport(report: EphemeralReport, deps: AdmissionIntakeDeps): void {
  const { owner } = report.spec;
  const byPhase = policiesByPhase(report);
  for (const key of evaluatedPolicies(report)) {
    const policy = deps.cache.get(key);
    if (policy === undefined) {
      // A CEL policy's results: kept under the key of the stored policy their source and name select.
      const results = report.spec.results.filter((r) => r.policy === key);
      const celKey = results[0] === undefined ? undefined : deps.cel?.keyOf(results[0]);
      if (celKey !== undefined) deps.admission.record(owner.uid, celKey, results);
      continue;
    }
    const phases = new Set([...byPhase].filter(([, policies]) => policies.has(key)).map(([phase]) => phase));
    recordPhases(
      deps,
      owner.uid,
      policy,
      report.spec.results.filter((r) => r.policy === key),
      phases,
    );
  }
  const ref: ResourceRef = {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    namespace: report.metadata.namespace ?? "",
    name: owner.name,
    uid: owner.uid,
  };
  deps.enqueue(resourceKey(ref));
}

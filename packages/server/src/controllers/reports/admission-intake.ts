/**
 * Admission results entering the reports controller, from either hand-over: the in-process bounded
 * queue (`AdmissionResult`, playground and single-process setups) or the ephemeral reports another
 * process wrote. Both record, per resource and policy, what the policy said at admission, and requeue
 * the resource so its report merges it.
 */
import { policyReportResults } from "@kyverno-ts/engine";
import type { AdmissionResult } from "../../admission/results.js";
import type { PolicyCache } from "../../policycache/policy-cache.js";
import { type EphemeralReport, evaluatedPolicies } from "../../reports/ephemeral-reports.js";
import type { AdmissionResultStore } from "./admission-results.js";
import type { CelReports } from "./cel-reports.js";
import { PROCESS_PROPERTY, reportResultsOf } from "./reconciler.js";
import { type ResourceRef, resourceKey } from "./resource-key.js";

/** What the intake writes to. */
export interface AdmissionIntakeDeps {
  cache: PolicyCache;
  admission: AdmissionResultStore;
  enqueue: (key: string) => void;
  /** The CEL policies, whose admission results are kept under their store keys. */
  cel?: CelReports;
}

/** Records one in-process admission result (a DELETE forgets the resource's admission results). */
export function ingestAdmissionResult(result: AdmissionResult, deps: AdmissionIntakeDeps): void {
  const { apiVersion, kind, namespace, name, uid } = result.resource;
  if (uid === "" || name === "") return;
  if (result.operation === "DELETE") deps.admission.delete(uid);
  else {
    for (const response of result.responses) {
      const p = response.policy;
      const policy = deps.cache.get(p.namespace ? `${p.namespace}/${p.name}` : p.name);
      if (policy !== undefined)
        deps.admission.record(uid, policy.key, reportResultsOf(response, policy, PROCESS_PROPERTY.admission));
      else if (deps.cel !== undefined) {
        const results = policyReportResults(response).map(({ resources: _resources, ...r }) => ({
          ...r,
          properties: { ...r.properties, process: PROCESS_PROPERTY.admission },
        }));
        const key = results[0] === undefined ? undefined : deps.cel.keyOf(results[0]);
        if (key !== undefined) deps.admission.record(uid, key, results);
      }
    }
  }
  deps.enqueue(resourceKey({ apiVersion, kind, namespace, name, uid }));
}

/** Records the results of an ephemeral report; policies this replica does not know are left out. */
export function ingestEphemeralReport(report: EphemeralReport, deps: AdmissionIntakeDeps): void {
  const { owner } = report.spec;
  for (const key of evaluatedPolicies(report)) {
    const policy = deps.cache.get(key);
    if (policy === undefined) {
      // A CEL policy's results: kept under the key of the stored policy their source and name select.
      const results = report.spec.results.filter((r) => r.policy === key);
      const celKey = results[0] === undefined ? undefined : deps.cel?.keyOf(results[0]);
      if (celKey !== undefined) deps.admission.record(owner.uid, celKey, results);
      continue;
    }
    deps.admission.record(
      owner.uid,
      policy.key,
      report.spec.results.filter((r) => r.policy === key),
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

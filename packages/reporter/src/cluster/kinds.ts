/**
 * The report kinds the reporter watches: `wgpolicyk8s.io/v1alpha2` PolicyReport / ClusterPolicyReport
 * always, `openreports.io/v1alpha1` Report / ClusterReport when the API server serves them.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../logger.js";
import type { ReportKind } from "../model/types.js";

/** One watched report kind. */
export interface ReportKindSpec {
  readonly apiVersion: string;
  readonly kind: ReportKind;
}

/** The PolicyReport kinds (required: the initial sync waits for them). */
export const POLICY_REPORT_KINDS: readonly ReportKindSpec[] = [
  { apiVersion: "wgpolicyk8s.io/v1alpha2", kind: "PolicyReport" },
  { apiVersion: "wgpolicyk8s.io/v1alpha2", kind: "ClusterPolicyReport" },
];

/** The OpenReports kinds (watched only when served). */
export const OPEN_REPORTS_KINDS: readonly ReportKindSpec[] = [
  { apiVersion: "openreports.io/v1alpha1", kind: "Report" },
  { apiVersion: "openreports.io/v1alpha1", kind: "ClusterReport" },
];

/**
 * The kinds to watch: the PolicyReport kinds, plus each OpenReports kind that discovery finds.
 * Discovery is asked once, at start (as upstream); a CRD installed later needs a restart.
 */
export async function reportKindsToWatch(client: KubeClient, logger: Logger): Promise<ReportKindSpec[]> {
  const kinds = [...POLICY_REPORT_KINDS];
  for (const spec of OPEN_REPORTS_KINDS) {
    const found = await client.resource(spec.apiVersion, spec.kind);
    if (found.ok) kinds.push(spec);
    else if (found.status !== 404)
      logger.warn(
        { kind: spec.kind, status: found.status, reason: found.reason, err: found.message },
        "discovery failed; OpenReports kind not watched",
      );
  }
  for (const spec of POLICY_REPORT_KINDS) {
    const found = await client.resource(spec.apiVersion, spec.kind);
    if (!found.ok && found.status === 404) {
      logger.warn(
        { kind: spec.kind, apiVersion: spec.apiVersion },
        "the API server does not serve this kind (is the CRD installed?); waiting for it",
      );
    }
  }
  return kinds;
}

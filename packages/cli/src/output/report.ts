import type { ClusterPolicyReport, PolicyReportResult } from "@kyverno-ts/api";
import { POLICY_REPORT_API_VERSION } from "@kyverno-ts/api";
import { policyReportResults } from "@kyverno-ts/engine";
import type { Evaluated } from "../run/judge.js";
import type { ResultCounts } from "../run/report-result.js";
import { emptyCounts, reportOptions } from "../run/report-result.js";

/** A report result as the CLI prints it: the api type with the fields the CLI always sets. */
export type CliReportResult = PolicyReportResult & Required<Pick<PolicyReportResult, "result" | "resources">>;

/** The merged ClusterPolicyReport printed by `apply --policy-report` / `-o`. */
export type CliClusterReport = ClusterPolicyReport & { results: CliReportResult[]; summary: ResultCounts };

/**
 * Report results of all validate rule responses, in evaluation order, as upstream's CLI builds
 * them (the engine's `policyReportResults`).
 */
export function reportResults(evaluated: readonly Evaluated[], auditWarn: boolean): CliReportResult[] {
  return evaluated.flatMap(
    (e) => policyReportResults(e.response, reportOptions(e.policy, auditWarn)) as CliReportResult[],
  );
}

/** Counts results by outcome. */
export function countResults(results: readonly CliReportResult[]): ResultCounts {
  const counts = emptyCounts();
  for (const r of results) counts[r.result]++;
  return counts;
}

/** Builds the merged ClusterPolicyReport (named `merged`, as upstream's CLI names it). */
export function buildClusterReport(results: readonly CliReportResult[]): CliClusterReport {
  return {
    apiVersion: POLICY_REPORT_API_VERSION,
    kind: "ClusterPolicyReport",
    metadata: { name: "merged" },
    results: [...results],
    summary: countResults(results),
  };
}

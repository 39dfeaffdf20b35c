import type {
  ClusterPolicyReport,
  ObjectReference,
  PolicyReportResult,
  PolicySeverity,
} from "@kyverno-ts/api";
import { POLICY_REPORT_API_VERSION } from "@kyverno-ts/api";
import type { Evaluated } from "../run/judge.js";
import type { ResultCounts } from "../run/report-result.js";
import { emptyCounts, reportResult } from "../run/report-result.js";

/** A report result as the CLI prints it: the api type with the fields the CLI always sets. */
export type CliReportResult = PolicyReportResult & Required<Pick<PolicyReportResult, "result" | "resources">>;

/** The merged ClusterPolicyReport printed by `apply --policy-report` / `-o`. */
export type CliClusterReport = ClusterPolicyReport & { results: CliReportResult[]; summary: ResultCounts };

const SEVERITIES: ReadonlySet<string> = new Set<PolicySeverity>([
  "critical",
  "high",
  "medium",
  "low",
  "info",
]);

/**
 * Report results of all validate rule responses, in evaluation order, as upstream's CLI builds
 * them: source `kyverno`, policy (`ns/name` for namespaced Policies), rule, result, message,
 * category/severity from the policy annotations, the resource reference, scored, timestamp.
 */
export function reportResults(evaluated: readonly Evaluated[], auditWarn: boolean): CliReportResult[] {
  const out: CliReportResult[] = [];
  for (const e of evaluated) {
    const p = e.response.policy;
    const r = e.response.resource;
    const resource: ObjectReference = { apiVersion: r.apiVersion, kind: r.kind, name: r.name };
    if (r.namespace) resource.namespace = r.namespace;
    if (r.uid) resource.uid = r.uid;
    for (const rule of e.response.rules) {
      if (rule.type !== "Validation") continue;
      const result: CliReportResult = {
        source: "kyverno",
        policy: p.namespace ? `${p.namespace}/${p.name}` : p.name,
        rule: rule.name,
        result: reportResult(e.policy, rule, auditWarn),
        message: rule.message,
        resources: [resource],
        scored: true,
        timestamp: { seconds: Math.floor(e.response.timestamp / 1000), nanos: 0 },
      };
      if (e.response.category) result.category = e.response.category;
      const severity = e.response.severity?.toLowerCase();
      if (severity !== undefined && SEVERITIES.has(severity)) result.severity = severity as PolicySeverity;
      if (rule.properties && Object.keys(rule.properties).length > 0) result.properties = rule.properties;
      out.push(result);
    }
  }
  return out;
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

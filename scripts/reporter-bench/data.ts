// The reporter benchmarks' data set: PolicyReports as Kyverno and Trivy write them, generated
// deterministically (the same index and seed give the same report) so every run ingests the same data.

/** Deterministic PRNG so every run ingests the same data. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// 40 Kyverno policies with 1-3 rules each; severity and category come from the policy's annotations,
// as in Kyverno's policy library (a handful of categories, mostly medium severity).
const CATEGORIES: [string, string][] = [
  ["Pod Security Standards (Baseline)", "medium"],
  ["Pod Security Standards (Restricted)", "medium"],
  ["Best Practices", "medium"],
  ["Best Practices", "low"],
  ["Multi-Tenancy", "high"],
  ["Security", "high"],
  ["Other", ""],
];
const POLICIES = Array.from({ length: 40 }, (_, i) => ({
  name: `policy-${String(i).padStart(2, "0")}`,
  rules: 1 + (i % 3),
  category: CATEGORIES[i % CATEGORIES.length]?.[0] ?? "",
  severity: CATEGORIES[i % CATEGORIES.length]?.[1] ?? "",
}));
const TRIVY_SEVERITIES = ["low", "medium", "high", "critical"];

/** Namespaces the reports are spread over (`ns-0` … `ns-99`). */
export const NAMESPACES = 100;

function status(r: number): string {
  if (r < 0.7) return "pass";
  if (r < 0.9) return "fail";
  if (r < 0.95) return "warn";
  if (r < 0.98) return "error";
  return "skip";
}

/** A raw report as the API server holds it. */
export interface RawReport {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels: Record<string, string>; creationTimestamp?: string };
  scope: Record<string, string | undefined>;
  results: Record<string, unknown>[];
}

/**
 * Report `index` with `results` results: Pod-scoped PolicyReports in 100 namespaces (1% cluster
 * reports, 10% Trivy). `rand` supplies statuses, CVEs and message lengths.
 */
export function generateReport(index: number, results: number, rand: () => number): RawReport {
  const cluster = index % 100 === 99;
  const namespace = cluster ? "" : `ns-${index % NAMESPACES}`;
  const trivy = index % 10 === 7;
  const name = `pod-${index}`;
  const scope = cluster
    ? { apiVersion: "v1", kind: "Namespace", name: `ns-${index}`, uid: `uid-${index}` }
    : { apiVersion: "v1", kind: index % 3 ? "Pod" : "Deployment", name, namespace, uid: `uid-${index}` };
  const list = Array.from({ length: results }, (_, j) => {
    const cve = 1000 + Math.floor(rand() * 500);
    const p = POLICIES[(index + j) % POLICIES.length] ?? { name: "p", rules: 1, category: "", severity: "" };
    const policy = trivy ? `CVE-2025-${cve}` : p.name;
    return {
      source: trivy ? "trivy" : "kyverno",
      policy,
      rule: trivy ? `lib-${j}` : `rule-${j % p.rules}`,
      result: status(rand()),
      // An empty severity is left out, as the CRD's enum has no "".
      ...((trivy || p.severity) && { severity: trivy ? TRIVY_SEVERITIES[cve % 4] : p.severity }),
      category: trivy ? "Vulnerability" : p.category,
      message: `validation error: rule ${j} of ${policy} failed for ${name}; details ${"x".repeat(Math.floor(rand() * 80))}`,
      scored: true,
      timestamp: { seconds: 1767225600 + index, nanos: 0 },
      ...(trivy ? { properties: { installedVersion: `1.${j}`, fixedVersion: `1.${j + 1}` } } : {}),
    };
  });
  return {
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: cluster ? "ClusterPolicyReport" : "PolicyReport",
    metadata: {
      name: `${trivy ? "trivy" : "pol"}-${name}`,
      ...(namespace ? { namespace } : {}),
      labels: { "app.kubernetes.io/managed-by": trivy ? "trivy-operator" : "kyverno" },
    },
    scope,
    results: list,
  };
}

/** The dashboard's API queries (what `packages/reporter-ui` requests), by label; `pod` is a resource ID. */
export function dashboardQueries(pod: string): Record<string, string> {
  return {
    "sources/categories": "/v2/sources/categories",
    findings: "/v2/findings",
    "severity-findings (fail)": "/v2/severity-findings?status=fail",
    namespaces: "/v2/namespaces",
    "namespace status counts": "/v2/namespace-scoped/kyverno/status-counts",
    "cluster status counts": "/v2/cluster-scoped/kyverno/status-counts",
    policies: "/v2/policies",
    "resource-results p1": "/v2/namespace-scoped/resource-results?page=1&offset=25",
    "resource-results fail p1": "/v2/namespace-scoped/resource-results?status=fail&page=1&offset=25",
    "results fail p1": "/v2/namespace-scoped/results?status=fail&page=1&offset=25",
    "results ns p1": "/v2/namespace-scoped/results?namespaces=ns-42&page=1&offset=25",
    "results p100": "/v2/namespace-scoped/results?page=100&offset=25",
    "v1 status-counts": "/v1/namespaced-resources/status-counts",
    "resource details": `/v2/resource/${pod}`,
    "resource results": `/v2/resource/${pod}/results?page=1&offset=25`,
    "resource source-categories": `/v2/resource/${pod}/source-categories`,
    sources: "/v2/sources",
    "namespace kinds": "/v2/namespace-scoped/kinds",
    "source status counts": "/v2/sources/kyverno/status-counts",
    "namespace severity counts": "/v2/namespace-scoped/trivy/severity-counts",
    "policies (kyverno)": "/v2/policies?sources=kyverno",
    "policy results p1": "/v2/namespace-scoped/results?policies=policy-07&page=1&offset=25",
    "policy resource-results p1":
      "/v2/namespace-scoped/resource-results?policies=policy-07&status=fail&page=1&offset=25",
    "search (not dashboard)": "/v2/namespace-scoped/results?search=pod-4242&page=1&offset=25",
  };
}

/** The value at percentile `p` of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * The small, hand-countable dataset the API suite asserts on (the same on every database):
 * two namespaces, Kyverno and Trivy results, a result without a resource, a cluster report.
 *
 *   report      ns      scope          results (policy/rule: status severity category)
 *   web-report  team-a  Pod web        require-labels/check-labels fail medium BP; disallow-latest pass high Security;
 *                                      restrict-root/run-as-non-root warn high Pod Security
 *   api-report  team-a  Deployment api require-labels fail medium BP; disallow-latest pass high Security
 *   db-report   team-b  Pod db         require-labels pass medium BP; restrict-root error critical Pod Security
 *   trivy-db    team-b  Pod db         trivy CVE-2024-0001/libssl fail critical; CVE-2024-0002/libcurl fail low
 *   audit       team-b  (none)         audit-config/check pass (no severity, category Other)
 *   ns-labels   cluster                require-ns-labels/check-ns fail low on Namespace team-a, pass on team-b
 */
import type { Report } from "../model/types.js";
import { normalized, pod, report, result } from "./fixtures.js";

const BP = "Best Practices";
const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  name: "api",
  namespace: "team-a",
  uid: "uid-api",
};
const namespace = (name: string) => ({ apiVersion: "v1", kind: "Namespace", name, uid: `uid-ns-${name}` });

/** The dataset's reports, normalised. */
export function apiDataset(): Report[] {
  const requireLabels = (status: string) =>
    result({
      policy: "require-labels",
      rule: "check-labels",
      result: status,
      severity: "medium",
      category: BP,
      message: status === "fail" ? "label app is required" : "labels present",
    });
  const latest = () =>
    result({
      policy: "disallow-latest",
      rule: "validate-image",
      result: "pass",
      severity: "high",
      category: "Security",
    });
  return [
    report({
      name: "web-report",
      namespace: "team-a",
      labels: { team: "a" },
      scope: pod("web", "team-a"),
      results: [
        requireLabels("fail"),
        latest(),
        result({
          policy: "restrict-root",
          rule: "run-as-non-root",
          result: "warn",
          severity: "high",
          category: "Pod Security",
          message: "running as root",
        }),
      ],
    }),
    report({
      name: "api-report",
      namespace: "team-a",
      labels: { team: "a" },
      scope: deployment,
      results: [requireLabels("fail"), latest()],
    }),
    report({
      name: "db-report",
      namespace: "team-b",
      labels: { team: "b" },
      scope: pod("db", "team-b"),
      results: [
        requireLabels("pass"),
        result({
          policy: "restrict-root",
          rule: "run-as-non-root",
          result: "error",
          severity: "critical",
          category: "Pod Security",
          message: "evaluation error",
        }),
      ],
    }),
    report({
      name: "trivy-db",
      namespace: "team-b",
      labels: { team: "b", "trivy-operator.source": "vuln" },
      scope: pod("db", "team-b"),
      results: [
        result({
          source: "trivy",
          policy: "CVE-2024-0001",
          rule: "libssl",
          result: "fail",
          severity: "critical",
          category: "Vulnerability",
          message: "libssl vulnerable",
          properties: { installedVersion: "1.0", fixedVersion: "1.1" },
        }),
        result({
          source: "trivy",
          policy: "CVE-2024-0002",
          rule: "libcurl",
          result: "fail",
          severity: "low",
          category: "Vulnerability",
          message: "libcurl vulnerable",
          properties: { installedVersion: "7.0" },
        }),
      ],
    }),
    report({
      name: "audit",
      namespace: "team-b",
      labels: { team: "b" },
      results: [result({ policy: "audit-config", rule: "check", result: "pass", message: "configured" })],
    }),
    report({
      name: "ns-labels",
      results: [
        result({
          policy: "require-ns-labels",
          rule: "check-ns",
          result: "fail",
          severity: "low",
          category: BP,
          resources: [namespace("team-a")],
        }),
        result({
          policy: "require-ns-labels",
          rule: "check-ns",
          result: "pass",
          severity: "low",
          category: BP,
          resources: [namespace("team-b")],
        }),
      ],
    }),
  ].map(normalized);
}

/**
 * The ClusterPolicy objects behind the demo's Kyverno results, as the API server would return them
 * (with `managedFields` and a last-applied annotation, which the reporter leaves out of the YAML),
 * for the policy details of the demo server. `require-argocd-management` is left out on purpose:
 * its page shows how a policy that is no longer in the cluster looks.
 */
import { DEMO_POLICIES, type DemoPolicy } from "./demo-data.ts";

/** Policies the demo cluster does not have (their pages have results but no details). */
export const MISSING_DEMO_POLICIES: readonly string[] = ["require-argocd-management"];

function title(name: string): string {
  return name
    .split("-")
    .map((w) => `${w.charAt(0).toUpperCase()}${w.slice(1)}`)
    .join(" ");
}

function clusterPolicy(p: DemoPolicy): Record<string, unknown> {
  const message = p.fail.replace(/^validation error: /, "").replace(/ rule \{rule\}.*$/, "");
  const spec = {
    validationFailureAction: p.severity === "high" ? "Enforce" : "Audit",
    background: true,
    rules: p.rules.map((rule) => ({
      name: rule,
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      validate: { message, pattern: { spec: { containers: [{ name: "*" }] } } },
    })),
  };
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: {
      name: p.policy,
      annotations: {
        "policies.kyverno.io/title": title(p.policy),
        "policies.kyverno.io/category": p.category,
        "policies.kyverno.io/severity": p.severity,
        "policies.kyverno.io/subject": "Pod",
        "policies.kyverno.io/description": `${message} The rules match Pods; Kyverno's autogen applies them to Pod controllers.`,
        "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({ spec }),
      },
      generation: 1,
      managedFields: [
        { manager: "kubectl-client-side-apply", operation: "Update", apiVersion: "kyverno.io/v1" },
      ],
    },
    spec,
  };
}

/** The demo's ClusterPolicies (all but {@link MISSING_DEMO_POLICIES}). */
export function demoPolicies(): Record<string, unknown>[] {
  return DEMO_POLICIES.filter((p) => !MISSING_DEMO_POLICIES.includes(p.policy)).map(clusterPolicy);
}

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ARGOCD_USER, asPlaygroundPolicy, loadScenario, ScenarioError } from "./scenario.js";

describe("playground scenario", () => {
  it("installs the seven bundled policies, enforced in production and warning elsewhere, and the generate example", () => {
    const scenario = loadScenario();
    expect(scenario.policies.map((p) => (p.metadata as { name: string }).name).sort()).toEqual([
      "add-default-networkpolicy",
      "disallow-latest-tag",
      "disallow-privileged-containers",
      "protect-critical-namespaces",
      "require-argocd-management",
      "require-probes",
      "require-requests-limits",
      "require-standard-labels",
    ]);
    for (const policy of scenario.policies.filter((p) => !JSON.stringify(p).includes('"generate"'))) {
      expect(policy.spec).toMatchObject({
        validationFailureAction: "Audit",
        emitWarning: true,
        validationFailureActionOverrides: [{ action: "Enforce", namespaces: ["production"] }],
      });
    }
  });

  it("applies staging first, then production by hand, then production as Argo CD", () => {
    const steps = loadScenario().steps.map((s) => `${s.actor} ${s.file}`);
    expect(steps).toEqual([
      "admin examples/staging/cache-warmer-pod-no-limits.yaml",
      "admin examples/staging/log-shipper-privileged.yaml",
      "admin examples/staging/nightly-report-cronjob-missing-labels.yaml",
      "admin examples/staging/storefront-latest-no-probes.yaml",
      "admin examples/production/checkout-deployment.yaml",
      "admin examples/production/checkout-service.yaml",
      "argocd examples/production/checkout-deployment.yaml",
      "argocd examples/production/checkout-service.yaml",
    ]);
    expect(ARGOCD_USER).toBe("system:serviceaccount:argocd:argocd-application-controller");
  });

  it("keeps the rest of a policy's spec as it is", () => {
    const policy = { kind: "ClusterPolicy", spec: { background: false, rules: [{ name: "r" }] } };
    expect(asPlaygroundPolicy(policy).spec).toMatchObject({ background: false, rules: [{ name: "r" }] });
  });

  it("names the file of a broken manifest", () => {
    const root = mkdtempSync(join(tmpdir(), "playground-scenario-"));
    try {
      mkdirSync(join(root, "policies"));
      mkdirSync(join(root, "examples"));
      writeFileSync(
        join(root, "policies", "p.yaml"),
        "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\n",
      );
      writeFileSync(join(root, "examples", "bad.yaml"), "kind: Pod\nmetadata: [unclosed\n");
      const load = () => loadScenario({ policies: join(root, "policies"), examples: join(root, "examples") });
      expect(load).toThrow(ScenarioError);
      expect(load).toThrow(/^examples\/bad\.yaml \(document 1\): /);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

/**
 * The generator of the policies chart (scripts/charts/generate.ts): a changed, added or removed policy
 * in policies/ makes the chart out of date (what the up-to-date test in policies-chart.test.ts relies
 * on), re-generating brings it back, and policy layouts the chart cannot template are refused with
 * the file and the field.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { outdatedFiles, REPO_ROOT, writeGeneratedFiles } from "../../../scripts/charts/generate.ts";
import { bundledPolicyFiles } from "../../../scripts/charts/policies-chart.ts";
import { PolicySourceError, policyTemplate } from "../../../scripts/charts/policy-template.ts";

const TEMPLATES = "charts/kyverno-ts-policies/templates";
let root = "";

/** A copy of what the generator reads and writes, to change freely. */
function copyRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), "charts-generator-"));
  mkdirSync(join(dir, "policies"));
  for (const file of bundledPolicyFiles(REPO_ROOT)) cpSync(join(REPO_ROOT, file), join(dir, file));
  cpSync(join(REPO_ROOT, "charts/kyverno-ts-policies"), join(dir, "charts/kyverno-ts-policies"), {
    recursive: true,
  });
  mkdirSync(join(dir, "charts/policy-reporter"), { recursive: true });
  cpSync(
    join(REPO_ROOT, "charts/policy-reporter/values.schema.json"),
    join(dir, "charts/policy-reporter/values.schema.json"),
  );
  return dir;
}

beforeEach(() => {
  root = copyRepository();
  // policies/ may have changed since the chart was last generated: start from a consistent copy.
  writeGeneratedFiles(root);
}, 60_000);
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("out of date with policies/", { timeout: 60_000 }, () => {
  it("names the template of a changed policy, and is up to date again after generating", () => {
    expect(outdatedFiles(root)).toEqual([]);
    const file = join(root, "policies/require-probes.yaml");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("Every container must define", "Each container needs"),
    );
    expect(outdatedFiles(root)).toEqual([`${TEMPLATES}/require-probes.yaml`]);
    expect(writeGeneratedFiles(root)).toEqual([`${TEMPLATES}/require-probes.yaml`]);
    expect(outdatedFiles(root)).toEqual([]);
    expect(readFileSync(join(root, TEMPLATES, "require-probes.yaml"), "utf8")).toContain(
      "Each container needs",
    );
  });

  it("names the new template, values.yaml and the schema when a policy is added", () => {
    const source = readFileSync(join(root, "policies/require-probes.yaml"), "utf8");
    writeFileSync(
      join(root, "policies/require-probes-2.yaml"),
      source.replace("name: require-probes", "name: require-probes-2"),
    );
    expect(outdatedFiles(root).sort()).toEqual(
      [
        `${TEMPLATES}/require-probes-2.yaml`,
        "charts/kyverno-ts-policies/values.schema.json",
        "charts/kyverno-ts-policies/values.yaml",
      ].sort(),
    );
  });

  it("names the template of a removed policy, and removes it when generating", () => {
    rmSync(join(root, "policies/require-probes.yaml"));
    expect(outdatedFiles(root)).toContain(`${TEMPLATES}/require-probes.yaml`);
    writeGeneratedFiles(root);
    expect(outdatedFiles(root)).toEqual([]);
  });

  it("takes the critical namespaces and Argo CD's identity defaults from protect-critical-namespaces", () => {
    const file = join(root, "policies/protect-critical-namespaces.yaml");
    const changed = readFileSync(file, "utf8")
      .replace("                - production\n", "                - payments\n")
      .replaceAll("argocd:argocd-application-controller", "gitops:syncer");
    writeFileSync(file, changed);
    writeGeneratedFiles(root);
    const values = readFileSync(join(root, "charts/kyverno-ts-policies/values.yaml"), "utf8");
    expect(values).toContain("  - payments\n");
    expect(values).not.toContain("  - production\n");
    expect(values).toContain("namespace: gitops\n");
    expect(values).toContain("serviceAccount: syncer\n");
  });
});

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: sample
spec:
  validationFailureAction: Audit
  background: true
  rules:
    - name: check
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        failureAction: Audit
        message: "{{ request.object.metadata.name }} needs a label"
        pattern:
          metadata:
            labels:
              team: "?*"
`;

describe("templating one policy", () => {
  it("templates a rule-level failureAction too, and keeps Kyverno's variables literal for Helm", () => {
    const { template, facts } = policyTemplate("policies/sample.yaml", POLICY);
    expect(facts).toEqual({ name: "sample", rules: ["check"] });
    expect(template.match(/include "kyverno-ts-policies.action" \(list \$ "sample"\)/g)).toHaveLength(2);
    expect(template).toContain(`message: "{{ "{{" }} request.object.metadata.name }} needs a label"`);
  });

  it.each([
    [
      "an exclude with an all block",
      POLICY.replace(
        "      validate:",
        "      exclude:\n        all:\n          - resources:\n              namespaces: [x]\n      validate:",
      ),
      'policies/sample.yaml: rule check: exclude must be an "any" list',
    ],
    [
      "namespace overrides in the spec",
      POLICY.replace("  background: true", "  background: true\n  validationFailureActionOverrides: []"),
      "policies/sample.yaml: spec.validationFailureActionOverrides is set by the chart's values",
    ],
    ["two documents", `${POLICY}---\n${POLICY}`, "policies/sample.yaml: one policy per file is expected"],
    ["another kind", POLICY.replace("kind: ClusterPolicy", "kind: Policy"), "kind must be ClusterPolicy"],
  ])("refuses %s, naming the file", (_what, source, message) => {
    expect(() => policyTemplate("policies/sample.yaml", source)).toThrow(PolicySourceError);
    expect(() => policyTemplate("policies/sample.yaml", source)).toThrow(message);
  });
});

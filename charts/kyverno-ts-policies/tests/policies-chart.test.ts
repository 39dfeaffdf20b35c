/**
 * The kyverno-ts-policies chart: generated from policies/*.yaml (and checked to be up to date), linted
 * with `helm lint --strict`, rendered with the default, staging and production values, and the
 * rendered policies evaluated by our CLI against the examples and the policies' own tests.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { outdatedFiles, REPO_ROOT } from "../../../scripts/charts/generate.ts";
import {
  find,
  lint,
  type RenderedObject,
  render,
  renderError,
  renderText,
} from "../../../scripts/charts/helm-render.ts";
import { bundledPolicyFiles } from "../../../scripts/charts/policies-chart.ts";

const CHART = "charts/kyverno-ts-policies";
const STAGING = "examples/helm/values-policies-staging.yaml";
const PRODUCTION = "examples/helm/values-policies-production.yaml";
const CLI = join(REPO_ROOT, "packages/cli/dist/bin.js");

type Spec = {
  validationFailureAction?: string;
  background?: boolean;
  failurePolicy?: string;
  validationFailureActionOverrides?: unknown[];
  rules: { name: string; exclude?: { any?: unknown[] }; [key: string]: unknown }[];
};
const spec = (o: RenderedObject): Spec => o.spec as Spec;

const sources = bundledPolicyFiles(REPO_ROOT).map((file) =>
  parse(readFileSync(join(REPO_ROOT, file), "utf8")),
);
const sourceNames: string[] = sources.map((s: { metadata: { name: string } }) => s.metadata.name);

const work = mkdtempSync(join(tmpdir(), "policies-chart-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs our CLI; returns its exit status and output. */
function cli(args: string[]): { status: number; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, encoding: "utf8" });
  return { status: run.status ?? 1, stdout: run.stdout, stderr: run.stderr };
}

/** Writes the chart rendered with `valuesFiles` into the work folder; returns the file. */
function renderToFile(name: string, valuesFiles: string[] = []): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(path, renderText(CHART, { valuesFiles }));
  return path;
}

/** The summary of `apply <policies> -r examples/staging -r examples/production --audit-warn -o json`. */
function applyToExamples(policies: string): { status: number; summary: Record<string, number> } {
  const run = cli([
    "apply",
    policies,
    "-r",
    "examples/staging",
    "-r",
    "examples/production",
    "--audit-warn",
    "-o",
    "json",
  ]);
  const report = JSON.parse(run.stdout) as { summary: Record<string, number> };
  return { status: run.status, summary: report.summary };
}

describe("generated from policies/", { timeout: 30_000 }, () => {
  it("is up to date with policies/*.yaml (run node scripts/charts/generate.ts after changing a policy)", () => {
    expect(outdatedFiles()).toEqual([]);
  });

  it("renders the sources unchanged with the default values, apart from labels and failurePolicy", () => {
    const objects = render(CHART);
    expect(objects.map((o) => o.metadata.name).sort()).toEqual([...sourceNames].sort());
    for (const source of sources) {
      const rendered = find(objects, "ClusterPolicy", source.metadata.name);
      const { labels, ...metadata } = rendered.metadata;
      expect(labels?.["app.kubernetes.io/instance"]).toBe("test");
      expect(metadata).toEqual(source.metadata);
      const { failurePolicy, ...rest } = spec(rendered);
      expect(failurePolicy).toBe("Fail");
      expect(rest).toEqual(source.spec);
    }
  });
});

describe("helm lint --strict", { timeout: 30_000 }, () => {
  it.each([
    ["default values", []],
    ["staging values", [STAGING]],
    ["production values", [PRODUCTION]],
  ])("passes with the %s", (_name, files) => {
    const out = lint(CHART, files);
    expect(out.stderr + out.stdout).toContain("0 chart(s) failed");
    expect(out.status).toBe(0);
  });
});

describe("staging and production", { timeout: 30_000 }, () => {
  // What the sources (Audit) report for the examples: the rendered sets must report the same results.
  const fromSources = () => applyToExamples(join(REPO_ROOT, "policies"));

  it("staging audits every policy: the examples' violations are warnings, as with the sources", () => {
    const objects = render(CHART, { valuesFiles: [STAGING] });
    expect(objects).toHaveLength(sources.length);
    for (const o of objects) expect(spec(o).validationFailureAction).toBe("Audit");
    const expected = fromSources();
    expect(expected.summary.warn).toBeGreaterThan(0);
    expect(expected.summary.fail).toBe(0);
    const { status, summary } = applyToExamples(renderToFile("staging", [STAGING]));
    expect(summary).toEqual(expected.summary);
    expect(status).toBe(0);
  });

  it("production enforces every policy: the same violations fail", () => {
    const objects = render(CHART, { valuesFiles: [PRODUCTION] });
    expect(objects).toHaveLength(sources.length);
    for (const o of objects) expect(spec(o).validationFailureAction).toBe("Enforce");
    const expected = fromSources().summary;
    const { status, summary } = applyToExamples(renderToFile("production", [PRODUCTION]));
    expect(summary).toEqual({ ...expected, fail: expected.warn, warn: 0 });
    expect(status).toBe(1);
  });

  it("the rendered production policies pass the policies' own kyverno-test.yaml files", () => {
    // The tests name their policy as ../../../<policy>.yaml: lay the rendered policies out that way.
    const root = join(work, "kyverno-test");
    cpSync(join(REPO_ROOT, "policies/tests"), join(root, "tests"), { recursive: true });
    for (const name of sourceNames) {
      const text = renderText(CHART, {
        valuesFiles: [PRODUCTION],
        args: ["--show-only", `templates/${name}.yaml`],
      });
      writeFileSync(join(root, `${name}.yaml`), text);
    }
    const run = cli(["test", join(root, "tests")]);
    expect(run.stdout).toMatch(/tests passed and 0 tests failed/);
    expect(run.status).toBe(0);
  });
});

describe("values", { timeout: 30_000 }, () => {
  it("sets the failure action per policy over the chart-wide one", () => {
    const objects = render(CHART, {
      set: { validationFailureAction: "Enforce", "validationFailureActionByPolicy.require-probes": "Audit" },
    });
    expect(spec(find(objects, "ClusterPolicy", "require-probes")).validationFailureAction).toBe("Audit");
    expect(spec(find(objects, "ClusterPolicy", "disallow-latest-tag")).validationFailureAction).toBe(
      "Enforce",
    );
  });

  it("concatenates the namespace overrides of `all` and of the policy", () => {
    const path = join(work, "overrides.yaml");
    writeFileSync(
      path,
      [
        "validationFailureActionOverrides:",
        "  all:",
        "    - action: Audit",
        "      namespaces: [legacy]",
        "  require-probes:",
        "    - action: Enforce",
        "      namespaceSelector: {matchLabels: {tier: critical}}",
      ].join("\n"),
    );
    const objects = render(CHART, { valuesFiles: [path] });
    expect(spec(find(objects, "ClusterPolicy", "require-probes")).validationFailureActionOverrides).toEqual([
      { action: "Audit", namespaces: ["legacy"] },
      { action: "Enforce", namespaceSelector: { matchLabels: { tier: "critical" } } },
    ]);
    expect(
      spec(find(objects, "ClusterPolicy", "disallow-latest-tag")).validationFailureActionOverrides,
    ).toEqual([{ action: "Audit", namespaces: ["legacy"] }]);
  });

  it("adds policyExclude entries to a rule's own exclusions, or as a new exclude block", () => {
    const path = join(work, "exclude.yaml");
    const extra = { resources: { namespaces: ["batch"] } };
    writeFileSync(
      path,
      [
        "policyExclude:",
        "  protect-critical-namespaces:",
        "    any: [{subjects: [{kind: User, name: break-glass}]}]",
        "  validate-probes:",
        "    any: [{resources: {namespaces: [batch]}}]",
      ].join("\n"),
    );
    const objects = render(CHART, { valuesFiles: [path] });
    const protect = spec(find(objects, "ClusterPolicy", "protect-critical-namespaces")).rules[0];
    const own = sources.find((s) => s.metadata.name === "protect-critical-namespaces").spec.rules[0].exclude
      .any;
    expect(protect?.exclude?.any).toEqual([
      ...(own ?? []),
      { subjects: [{ kind: "User", name: "break-glass" }] },
    ]);
    const probes = spec(find(objects, "ClusterPolicy", "require-probes")).rules[0];
    expect(probes?.exclude).toEqual({ any: [extra] });
    expect(spec(find(objects, "ClusterPolicy", "disallow-latest-tag")).rules[0]?.exclude).toBeUndefined();
  });

  it("picks policies with includePolicies and excludePolicies", () => {
    const included = render(CHART, {
      set: { "includePolicies[0]": "require-probes", "includePolicies[1]": "disallow-latest-tag" },
    });
    expect(included.map((o) => o.metadata.name).sort()).toEqual(["disallow-latest-tag", "require-probes"]);
    const excluded = render(CHART, { set: { "excludePolicies[0]": "protect-critical-namespaces" } });
    expect(excluded.map((o) => o.metadata.name)).not.toContain("protect-critical-namespaces");
    expect(excluded).toHaveLength(sources.length - 1);
  });

  it("sets background and failurePolicy, keeping admission-only policies out of the background", () => {
    const objects = render(CHART, { set: { background: "false", failurePolicy: "Ignore" } });
    for (const o of objects) expect(spec(o)).toMatchObject({ background: false, failurePolicy: "Ignore" });
    const on = render(CHART, { set: { background: "true" } });
    expect(spec(find(on, "ClusterPolicy", "protect-critical-namespaces")).background).toBe(false);
    expect(spec(find(on, "ClusterPolicy", "require-probes")).background).toBe(true);
  });

  it("protects the configured namespaces for the configured Argo CD identity", () => {
    const objects = render(CHART, {
      set: {
        "criticalNamespaces[0]": "payments",
        "argocd.namespace": "gitops",
        "argocd.serviceAccount": "syncer",
      },
    });
    const policy = find(objects, "ClusterPolicy", "protect-critical-namespaces");
    const text = JSON.stringify(policy);
    expect(text).toContain("system:serviceaccount:gitops:syncer");
    expect(text).not.toContain("argocd-application-controller");
    const rule = spec(policy).rules[0] as unknown as {
      match: { any: { resources: { namespaces: string[] } }[] };
    };
    expect(rule.match.any[0]?.resources.namespaces).toEqual(["payments"]);
    // No rule keeps a default namespace anywhere (filters, or conditions on request.namespace).
    const defaults = find(render(CHART), "ClusterPolicy", "protect-critical-namespaces");
    const defaultRule = spec(defaults).rules[0] as unknown as typeof rule;
    const defaultNamespaces = defaultRule.match.any[0]?.resources.namespaces ?? [];
    expect(defaultNamespaces.length).toBeGreaterThan(0);
    for (const ns of defaultNamespaces) expect(JSON.stringify(spec(policy))).not.toContain(`"${ns}"`);
    // Behaviour: the CLI, sending the request as that identity, is admitted in the protected namespace.
    const policyFile = join(work, "protect.yaml");
    writeFileSync(
      policyFile,
      renderText(CHART, {
        set: {
          "criticalNamespaces[0]": "payments",
          "argocd.namespace": "gitops",
          "argocd.serviceAccount": "syncer",
        },
        args: ["--show-only", "templates/protect-critical-namespaces.yaml"],
      }),
    );
    const resource = join(work, "cm.yaml");
    writeFileSync(resource, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fees, namespace: payments}\n");
    const userinfo = join(work, "userinfo.yaml");
    writeFileSync(
      userinfo,
      "apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nmetadata: {name: syncer}\nuserInfo: {username: system:serviceaccount:gitops:syncer}\n",
    );
    expect(cli(["apply", policyFile, "-r", resource]).status).toBe(1);
    expect(cli(["apply", policyFile, "-r", resource, "--userinfo", userinfo]).status).toBe(0);
  });
});

describe("values.schema.json", { timeout: 30_000 }, () => {
  it("rejects a key the chart does not have, naming it", () => {
    const path = join(work, "typo.yaml");
    writeFileSync(path, "validationFailureActon: Enforce\n");
    expect(renderError(CHART, { valuesFiles: [path] })).toContain(
      "additional properties 'validationFailureActon' not allowed",
    );
  });

  it("rejects an unknown failure action and an unknown policy name, naming the field", () => {
    const action = renderError(CHART, { set: { validationFailureAction: "Block" } });
    expect(action).toContain("/validationFailureAction");
    expect(action).toContain("'Audit'");
    const policy = renderError(CHART, { set: { "includePolicies[0]": "require-everything" } });
    expect(policy).toContain("/includePolicies/0");
    expect(policy).toContain("'require-probes'");
    expect(
      renderError(CHART, { set: { "validationFailureActionByPolicy.require-everything": "Enforce" } }),
    ).toContain(
      "at '/validationFailureActionByPolicy': additional properties 'require-everything' not allowed",
    );
    expect(
      renderError(CHART, { set: { "policyExclude.no-such-rule.any[0].resources.namespaces[0]": "x" } }),
    ).toContain("at '/policyExclude': additional properties 'no-such-rule' not allowed");
  });

  it("refuses an empty critical namespace list (it would match every namespace)", () => {
    const path = join(work, "empty.yaml");
    writeFileSync(path, "criticalNamespaces: []\n");
    expect(renderError(CHART, { valuesFiles: [path] })).toContain("/criticalNamespaces");
  });
});

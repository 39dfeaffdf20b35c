/**
 * The chart's values contract: unknown keys and unsupported settings fail `helm install` with a
 * message naming them; accepted-but-not-effective values install and NOTES.txt names them; the
 * generated schema, tables and CRD templates are up to date; the release fits Helm's Secret.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CRD_SOURCE, CRD_TEMPLATES, renderCrdTemplates, staleTemplates } from "./kyverno-ts-crds.ts";
import { dryRunRelease, PROFILES, parseManifests, releaseSecretBytes, template } from "./kyverno-ts-helm.ts";
import { staleOutputs } from "./kyverno-ts-schema.ts";

type PodTemplateHolder = {
  template: { spec: { affinity?: unknown; terminationGracePeriodSeconds?: number } };
};

const scratch = mkdtempSync(join(tmpdir(), "kyverno-ts-chart-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
/** A values file holding `text`. */
const valuesFile = (name: string, text: string): string => {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
};

describe("values the chart does not support", { timeout: 60_000 }, () => {
  const rejected: Array<[string, string, RegExp]> = [
    [
      "unknown key",
      "admissionController:\n  replica: 3\n",
      /at '\/admissionController': additional properties 'replica' not allowed/,
    ],
    ["unknown top-level key", "kyverno:\n  enabled: true\n", /additional properties 'kyverno' not allowed/],
    [
      "feature kyverno-ts lacks",
      "features:\n  tuf:\n    enabled: true\n",
      /at '\/features\/tuf\/enabled': value must be false/,
    ],
    [
      "cert-manager",
      "admissionController:\n  certManager:\n    enabled: true\n",
      /at '\/admissionController\/certManager\/enabled': value must be false/,
    ],
    [
      "a flag the admission command does not have",
      "admissionController:\n  container:\n    extraArgs:\n      backgroundScanWorkers: 4\n",
      /at '\/admissionController\/container\/extraArgs': additional properties 'backgroundScanWorkers' not allowed/,
    ],
    [
      "a failure policy that is neither Fail nor Ignore",
      "admissionController:\n  failurePolicy: Sometimes\n",
      /at '\/admissionController\/failurePolicy'/,
    ],
    [
      "webhook timeout above 30 s",
      "admissionController:\n  webhookTimeout: 45\n",
      /at '\/admissionController\/webhookTimeout'/,
    ],
    [
      "match conditions",
      "config:\n  matchConditions:\n    - name: x\n      expression: 'true'\n",
      /at '\/config\/matchConditions'/,
    ],
    [
      "a scan interval that is no Go duration",
      "features:\n  backgroundScan:\n    backgroundScanInterval: 1 hour\n",
      /backgroundScanInterval/,
    ],
  ];
  for (const [what, text, message] of rejected)
    it(`fails on ${what}, naming the value`, () => {
      const run = template([valuesFile(`${what.replaceAll(" ", "-")}.yaml`, text)]);
      expect(run.status).not.toBe(0);
      expect(run.stderr).toMatch(message);
    });

  it("installs with accepted-but-not-effective values and NOTES.txt names them", () => {
    const file = valuesFile(
      "accepted.yaml",
      [
        "backgroundController:",
        "  replicas: 2",
        "features:",
        "  omitEvents:",
        "    eventTypes: [PolicyViolation]",
        "  reporting:",
        "    mutate: false",
        "    imageVerify: false",
        "config:",
        "  updateRequestThreshold: 500",
        "  generateSuccessEvents: true",
        "  webhookLabels:",
        "    team: platform",
      ].join("\n"),
    );
    const notes = (dryRunRelease([file]).info as { notes: string }).notes;
    expect(notes).toContain("- config.updateRequestThreshold: the admission controller keeps at most 10,000");
    // The background controller is deployed: its values are acted upon, not listed.
    expect(notes).not.toContain("- backgroundController");
    expect(notes).toContain("background controller: 2 replica(s)");
    // Acted upon: the background controller reads generateSuccessEvents from the ConfigMap.
    expect(notes).not.toContain("- config.generateSuccessEvents");
    // Acted upon: --omitEvents of the admission, reports and background controllers.
    expect(notes).not.toContain("- features.omitEvents");
    const rendered = dryRunRelease([file]).manifest as string;
    expect(rendered.match(/- --omitEvents=PolicyViolation\n/g)).toHaveLength(3);
    // Acted upon: --enableReporting of the same three, the rule types switched on.
    expect(notes).not.toContain("- features.reporting");
    expect(rendered.match(/- --enableReporting=validate,mutateExisting,generate\n/g)).toHaveLength(3);
    expect(notes).toContain("- config.webhookLabels:");
    const plain = (dryRunRelease().info as { notes: string }).notes;
    expect(plain).not.toContain("does not act on yet");
    expect(plain).toContain("kubectl -n kyverno rollout status deployment/kyverno-admission-controller");
  });

  it("forces failurePolicy Ignore from features.forceFailurePolicyIgnore or the short form, not by default", () => {
    const admissionArgs = (files: string[]): string[] => {
      const run = template(files);
      expect(run.status).toBe(0);
      const deployment = parseManifests(run.stdout).find(
        (o) => o.kind === "Deployment" && String(o.metadata?.name).endsWith("admission-controller"),
      ) as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } };
      return deployment.spec.template.spec.containers[0]?.args ?? [];
    };
    expect(admissionArgs([])).not.toContain("--forceFailurePolicyIgnore");
    const short = valuesFile("ignore-short.yaml", "admissionController:\n  failurePolicy: Ignore\n");
    expect(admissionArgs([short])).toContain("--forceFailurePolicyIgnore");
    const feature = valuesFile(
      "ignore-feature.yaml",
      "features:\n  forceFailurePolicyIgnore:\n    enabled: true\n",
    );
    expect(admissionArgs([feature])).toContain("--forceFailurePolicyIgnore");
  });

  it("uses the short forms over upstream's spellings", () => {
    const file = valuesFile(
      "short.yaml",
      [
        "admissionController:",
        "  webhookTimeout: 20",
        "  container:",
        "    extraArgs:",
        "      webhookTimeout: 12",
        "      clientRateLimitQPS: 50",
        "backgroundController:",
        "  backgroundScanInterval: 30m",
      ].join("\n"),
    );
    const out = template([file]).stdout;
    expect(out).toContain("- --webhookTimeout=20");
    expect(out).not.toContain("--webhookTimeout=12");
    expect(out).toContain("- --clientRateLimitQPS=50");
    expect(out).toContain("- --backgroundScanInterval=30m");
  });

  it("takes the affinity short form and the grace period for every controller", () => {
    const controllers = [
      "admissionController",
      "backgroundController",
      "cleanupController",
      "reportsController",
    ];
    const file = valuesFile(
      "affinity.yaml",
      controllers
        .flatMap((c, i) => [
          `${c}:`,
          `  terminationGracePeriodSeconds: ${41 + i}`,
          "  affinity:",
          "    nodeAffinity:",
          "      requiredDuringSchedulingIgnoredDuringExecution:",
          `        nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [${c}]}]}]`,
        ])
        .join("\n"),
    );
    const run = template([file]);
    expect(run.stderr).toBe("");
    const deployments = parseManifests(run.stdout).filter((o) => o.kind === "Deployment");
    expect(deployments).toHaveLength(4);
    for (const [i, c] of controllers.entries()) {
      const name = `kyverno-${c.replace("Controller", "-controller")}`;
      const found = deployments.find((d) => d.metadata.name === name);
      if (found === undefined) throw new Error(`no Deployment ${name}`);
      const pod = (found.spec as PodTemplateHolder).template.spec;
      expect(pod.affinity, name).toEqual({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "pool", operator: "In", values: [c] }] }],
          },
        },
      });
      expect(pod.terminationGracePeriodSeconds, name).toBe(41 + i);
    }
  });
});

describe("Policy Reporter as a dependency (policyReporter.enabled)", { timeout: 60_000 }, () => {
  const reporterObjects = (set: readonly string[]) =>
    parseManifests(template([], set).stdout).filter((o) =>
      String(o.metadata.name).startsWith("policy-reporter"),
    );

  it("installs nothing of Policy Reporter by default", () => {
    expect(reporterObjects([])).toEqual([]);
  });

  it("installs the policy-reporter chart with the release when enabled, configured under policyReporter", () => {
    const run = template([], ["policyReporter.enabled=true", "policyReporter.replicaCount=2"]);
    expect(run.stderr).toBe("");
    const objects = parseManifests(run.stdout);
    const deployment = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "policy-reporter");
    if (deployment === undefined) throw new Error("no Policy Reporter Deployment");
    expect(deployment.metadata.namespace).toBe("kyverno");
    const spec = deployment.spec as {
      replicas: number;
      template: { spec: { containers: Array<{ image: string; args: string[] }> } };
    };
    expect(spec.replicas).toBe(2);
    expect(spec.template.spec.containers[0]?.args[0]).toBe("reporter");
    expect(spec.template.spec.containers[0]?.image).toBe("kyverno-ts:0.1.0");
    expect(objects.filter((o) => o.kind === "Deployment").map((o) => o.metadata.name)).toContain(
      "kyverno-admission-controller",
    );
  });

  it("checks the values against Policy Reporter's schema, naming a key it does not have", () => {
    const run = template([], ["policyReporter.enabled=true", "policyReporter.ui.bogus=1"]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("additional properties 'bogus' not allowed");
  });
});

describe("generated files", { timeout: 60_000 }, () => {
  it("values.schema.json, the README's tables and _accepted-values.tpl match values.yaml and kyverno-ts-values-spec.ts", () => {
    expect(staleOutputs(), "run: node scripts/charts/kyverno-ts-schema.ts").toEqual([]);
  });

  it.skipIf(!existsSync(CRD_SOURCE))(
    "the CRD templates match ../shared/reference/kyverno-crds (skipped when that folder is absent)",
    () => {
      expect(
        staleTemplates(renderCrdTemplates(), CRD_TEMPLATES),
        "run: node scripts/charts/kyverno-ts-crds.ts",
      ).toEqual([]);
    },
  );
});

describe("Helm release Secret", { timeout: 60_000 }, () => {
  it("stays under Kubernetes' 1 MiB limit with every CRD installed (production values)", () => {
    const bytes = releaseSecretBytes(dryRunRelease(PROFILES.production));
    expect(bytes).toBeLessThan(1024 * 1024);
  });

  it("stays under it with Policy Reporter installed as a dependency too", () => {
    const bytes = releaseSecretBytes(dryRunRelease(PROFILES.production, ["policyReporter.enabled=true"]));
    expect(bytes).toBeLessThan(1024 * 1024);
  });
});

/**
 * The kyverno-ts-crds chart (the `policies.kyverno.io` CRDs, a release of its own): it renders
 * upstream's CRDs with every served version, its switches leave CRDs out, unknown values fail,
 * its templates are up to date, and both releases (it and kyverno-ts) fit Helm's 1 MiB Secret with
 * room to spare.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  CEL_CRDS,
  CEL_SERVED,
  CRD_SOURCE,
  renderCrdTemplates,
  staleTemplates,
} from "../../../scripts/charts/kyverno-ts-crds.ts";
import {
  dryRunRelease,
  helm,
  type Obj,
  PROFILES,
  parseManifests,
  releaseSecretBytes,
  render as renderKyvernoTs,
} from "../../../scripts/charts/kyverno-ts-helm.ts";

const CHART = fileURLToPath(new URL("../", import.meta.url));
const MIB = 1024 * 1024;

const values = (set: readonly string[]): string[] => set.flatMap((s) => ["--set", s]);
const render = (set: readonly string[] = []): Obj[] => {
  const run = helm(["template", "kyverno-ts-crds", CHART, ...values(set)]);
  if (run.status !== 0) throw new Error(`helm template failed: ${run.stderr}`);
  return parseManifests(run.stdout);
};
const crdNames = (objects: readonly Obj[]): string[] =>
  objects
    .filter((o) => o.kind === "CustomResourceDefinition")
    .map((o) => o.metadata.name as string)
    .sort();

describe("kyverno-ts-crds", { timeout: 60_000 }, () => {
  const objects = render();

  it("passes helm lint --strict", () => {
    const run = helm(["lint", "--strict", CHART]);
    expect(run.stderr + run.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    expect(run.status).toBe(0);
  });

  it("installs every policies.kyverno.io CRD upstream ships, and nothing else", () => {
    expect(crdNames(objects)).toEqual(
      CEL_SERVED.map((s) => `${s.plural}.policies.kyverno.io`).sort((a, b) => a.localeCompare(b)),
    );
    expect(objects.filter((o) => o.kind !== "CustomResourceDefinition")).toEqual([]);
    expect(crdNames(objects)).toHaveLength(11);
  });

  it.skipIf(!existsSync(CRD_SOURCE))(
    "renders each CRD identical to upstream's, every served version, besides the chart's labels (skipped without ../shared/reference/kyverno-crds)",
    () => {
      for (const served of CEL_SERVED) {
        const upstream = parse(readFileSync(join(CRD_SOURCE, served.source), "utf8")) as Obj;
        const name = upstream.metadata.name as string;
        const rendered = structuredClone(objects.find((o) => o.metadata.name === name) as Obj);
        expect(rendered.metadata.labels, name).toMatchObject({
          "app.kubernetes.io/instance": "kyverno-ts-crds",
          "app.kubernetes.io/part-of": "kyverno",
        });
        delete rendered.metadata.labels;
        expect(rendered, name).toEqual(upstream);
      }
      const vpol = objects.find((o) => o.metadata.name === "validatingpolicies.policies.kyverno.io") as Obj;
      const versions = (vpol.spec as { versions: Array<{ name: string; served: boolean; storage: boolean }> })
        .versions;
      expect(versions.map((v) => [v.name, v.served, v.storage])).toEqual([
        ["v1", true, false],
        ["v1alpha1", true, false],
        ["v1beta1", true, true],
      ]);
    },
  );

  it("leaves out a CRD whose groups.policies switch is false, and adds annotations and labels", () => {
    const some = render([
      "groups.policies.mutatingpolicies=false",
      "groups.policies.namespacedmutatingpolicies=false",
      "annotations.helm\\.sh/resource-policy=keep",
      "customLabels.team=platform",
    ]);
    const names = crdNames(some);
    expect(names).not.toContain("mutatingpolicies.policies.kyverno.io");
    expect(names).not.toContain("namespacedmutatingpolicies.policies.kyverno.io");
    expect(names).toContain("validatingpolicies.policies.kyverno.io");
    expect(names).toHaveLength(9);
    for (const crd of some) {
      expect(crd.metadata.annotations).toMatchObject({ "helm.sh/resource-policy": "keep" });
      expect(crd.metadata.labels).toMatchObject({ team: "platform" });
    }
  });

  it("fails helm install naming an unknown value", () => {
    const run = helm([
      "template",
      "kyverno-ts-crds",
      CHART,
      ...values(["groups.policies.validatingpolicy=true"]),
    ]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(
      /at '\/groups\/policies': additional properties 'validatingpolicy' not allowed/,
    );
  });

  it.skipIf(!existsSync(CRD_SOURCE))(
    "its templates match ../shared/reference/kyverno-crds (run: node scripts/charts/kyverno-ts-crds.ts)",
    () => {
      expect(staleTemplates(renderCrdTemplates(CRD_SOURCE, CEL_CRDS), CEL_CRDS.dir)).toEqual([]);
    },
  );
});

describe("two releases, each under Helm's 1 MiB Secret", { timeout: 60_000 }, () => {
  it("kyverno-ts-crds' release Secret takes less than half of 1 MiB (a CEL CRD version can still be added)", () => {
    const run = helm(["install", "kyverno-ts-crds", CHART, "--dry-run=client", "-o", "json"]);
    expect(run.status, run.stderr).toBe(0);
    const bytes = releaseSecretBytes(JSON.parse(run.stdout) as Record<string, unknown>);
    expect(bytes).toBeLessThan(0.5 * MIB);
  });

  it("kyverno-ts renders no policies.kyverno.io CRD, and its release Secret takes less than three quarters of 1 MiB", () => {
    const crds = renderKyvernoTs(PROFILES.default).filter((o) => o.kind === "CustomResourceDefinition");
    expect(crds.length).toBeGreaterThan(0);
    expect(crds.filter((o) => (o.metadata.name as string).endsWith(".policies.kyverno.io"))).toEqual([]);
    // The default values: what a plain `helm install` stores (974 KiB before sub-schemas were shared).
    expect(releaseSecretBytes(dryRunRelease(PROFILES.default))).toBeLessThan(0.75 * MIB);
  });
});

/**
 * The CRD path of docs/install-in-a-cluster.md for teams that manage CRDs themselves, run as written
 * against the sandbox: the chart's CRDs (`helm template … --show-only 'templates/crds/*\/*.yaml'`) and
 * the kyverno-ts-crds chart's, applied with `kubectl apply --server-side --force-conflicts`; then the
 * release with `crds.install=false` (it owns no CRD), a ClusterPolicy Ready in `kubectl get cpol -o wide`
 * with upstream's printer columns, the CRDs applied again server-side (the upgrade's first step) and
 * `helm upgrade --reuse-values`. Any 403 in a component's output fails.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  clusterUnavailable,
  errorsOf,
  eventually,
  REPO_ROOT,
  startTestCluster,
  type TestCluster,
} from "./cluster/cluster.ts";

const unavailable = await clusterUnavailable();
if (unavailable !== undefined) console.warn(`CRD server-side apply e2e skipped: ${unavailable}`);

const chart = (name: string) => `${REPO_ROOT}charts/${name}`;

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team-label}
spec:
  validationFailureAction: Audit
  background: false
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: the label team is required
      pattern: {metadata: {labels: {team: "?*"}}}
`;

// In CI a missing tool fails the suite (with the reason) instead of skipping it.
describe.skipIf(unavailable !== undefined && process.env.CI !== "true")(
  "CRDs applied server-side before the release (crds.install=false), as the install guide's upgrade path",
  { timeout: 300000 },
  () => {
    let cluster: TestCluster;
    beforeAll(async () => {
      if (unavailable !== undefined) throw new Error(unavailable);
      cluster = await startTestCluster();
    }, 60000);
    afterAll(async () => {
      await cluster?.stop();
    }, 120000);
    afterEach(async (context) => {
      if (context.task.result?.state === "fail") console.error(await cluster.diagnostics());
    });

    /** `helm template <release> <chart> [args]` piped into `kubectl apply --server-side --force-conflicts -f -`. */
    const applyCrds = async (release: string, name: string, args: string[]): Promise<string[]> => {
      const rendered = await cluster.helm(["template", release, chart(name), ...args]);
      expect(errorsOf(rendered.stderr)).toBe("");
      expect(rendered.code).toBe(0);
      const applied = await cluster.kubectl(
        ["apply", "--server-side", "--force-conflicts", "-f", "-"],
        rendered.stdout,
      );
      expect(errorsOf(applied.stderr), applied.stdout).toBe("");
      expect(applied.code).toBe(0);
      return applied.stdout.split("\n").filter((l) => l !== "");
    };

    it("applies the chart's CRDs and the CEL policy CRDs server-side", async () => {
      const kyverno = await applyCrds("kyverno", "kyverno-ts", ["--show-only", "templates/crds/*/*.yaml"]);
      expect(kyverno).toHaveLength(11);
      for (const line of kyverno)
        expect(line).toMatch(/^customresourcedefinition\.apiextensions\.k8s\.io\/\S+ serverside-applied$/);
      expect(kyverno).toContain(
        "customresourcedefinition.apiextensions.k8s.io/clusterpolicies.kyverno.io serverside-applied",
      );
      const cel = await applyCrds("kyverno-ts-crds", "kyverno-ts-crds", []);
      expect(cel).toHaveLength(11);
      expect(cel).toContain(
        "customresourcedefinition.apiextensions.k8s.io/validatingpolicies.policies.kyverno.io serverside-applied",
      );
    });

    it("installs the release with crds.install=false: it owns no CRD, and a ClusterPolicy becomes Ready", async () => {
      const install = await cluster.helm([
        "install",
        "kyverno",
        chart("kyverno-ts"),
        "-n",
        "kyverno",
        "--create-namespace",
        "--set",
        "crds.install=false",
        "--wait",
        "--timeout",
        "4m",
      ]);
      expect(errorsOf(install.stderr)).toBe("");
      expect(install.code).toBe(0);
      const manifest = await cluster.helm(["get", "manifest", "kyverno", "-n", "kyverno"]);
      expect(manifest.stdout).toContain("kind: Deployment");
      expect(manifest.stdout).not.toContain("CustomResourceDefinition");

      const applied = await eventually("the ClusterPolicy accepted", async () => {
        const r = await cluster.kubectl(["apply", "-f", "-"], POLICY);
        return r.code === 0 ? r : undefined;
      });
      expect(applied.stdout).toContain("clusterpolicy.kyverno.io/require-team-label created");
      const table = await eventually("the policy Ready in kubectl get cpol -o wide", async () => {
        const r = await cluster.kubectl(["get", "cpol", "-o", "wide"]);
        return /require-team-label\s+true\s+false\s+True\b/.test(r.stdout) ? r.stdout : undefined;
      });
      expect(table.split("\n")[0]).toMatch(
        /^NAME\s+ADMISSION\s+BACKGROUND\s+READY\s+AGE\s+FAILURE POLICY\s+VALIDATE\s+MUTATE\s+GENERATE\s+VERIFY IMAGES\s+MESSAGE/,
      );
      expect(cluster.forbiddenLines()).toEqual([]);
    });

    it("upgrades: the CRDs applied server-side again, then helm upgrade --reuse-values", async () => {
      const again = await applyCrds("kyverno", "kyverno-ts", ["--show-only", "templates/crds/*/*.yaml"]);
      expect(again).toHaveLength(11);
      const upgrade = await cluster.helm([
        "upgrade",
        "kyverno",
        chart("kyverno-ts"),
        "-n",
        "kyverno",
        "--reuse-values",
        "--set",
        "admissionController.podAnnotations.rolled=yes",
        "--wait",
        "--timeout",
        "4m",
      ]);
      expect(errorsOf(upgrade.stderr)).toBe("");
      expect(upgrade.code).toBe(0);
      const values = await cluster.helm(["get", "values", "kyverno", "-n", "kyverno", "-o", "json"]);
      expect(JSON.parse(values.stdout)).toMatchObject({ crds: { install: false } });
      const crds = await cluster.kubectl(["get", "crd", "clusterpolicies.kyverno.io", "-o", "name"]);
      expect(crds.stdout.trim()).toBe(
        "customresourcedefinition.apiextensions.k8s.io/clusterpolicies.kyverno.io",
      );
      const policy = await cluster.kubectl(["get", "cpol", "require-team-label", "-o", "name"]);
      expect(policy.stdout.trim()).toBe("clusterpolicy.kyverno.io/require-team-label");
      expect(cluster.forbiddenLines()).toEqual([]);
    });
  },
);

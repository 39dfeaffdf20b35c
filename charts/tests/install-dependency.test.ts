/**
 * kyverno-ts with Policy Reporter as its dependency (`policyReporter.enabled=true`: the policy-reporter
 * chart through the symbolic link charts/kyverno-ts/charts/policy-reporter), installed into the
 * sandbox as one release and run by the test kubelet (process mode): Policy Reporter runs in the
 * release's namespace, answers through its Service and serves the PolicyReport of a non-compliant
 * workload; the uninstall removes it with the release. Any 403 in a component's output fails.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  clusterUnavailable,
  errorsOf,
  eventually,
  REPO_ROOT,
  refusedDuringUninstall,
  startTestCluster,
  type TestCluster,
} from "./cluster/cluster.ts";

const unavailable = await clusterUnavailable();
if (unavailable !== undefined) console.warn(`chart dependency install e2e skipped: ${unavailable}`);

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: disallow-latest-tag}
spec:
  validationFailureAction: Audit
  background: true
  rules:
  - name: validate-image-tag
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: Using a mutable image tag e.g. 'latest' is not allowed.
      pattern: {spec: {containers: [{image: "!*:latest"}]}}
`;

// In CI a missing tool fails the suite (with the reason) instead of skipping it.
describe.skipIf(unavailable !== undefined && process.env.CI !== "true")(
  "kyverno-ts with Policy Reporter as a dependency, installed into the sandbox as one release",
  { timeout: 300000 },
  () => {
    let cluster: TestCluster;
    const numbers: Record<string, number> = {};
    beforeAll(async () => {
      if (unavailable !== undefined) throw new Error(unavailable);
      cluster = await startTestCluster();
    }, 60000);
    afterAll(async () => {
      await cluster?.stop();
      console.log(`chart dependency install e2e numbers: ${JSON.stringify(numbers)}`);
    }, 120000);
    afterEach(async (context) => {
      if (context.task.result?.state === "fail") console.error(await cluster.diagnostics());
    });

    it("installs kyverno-ts and Policy Reporter in one release (policyReporter.enabled)", async () => {
      const install = await cluster.helm([
        "install",
        "kyverno",
        `${REPO_ROOT}charts/kyverno-ts`,
        "-n",
        "kyverno",
        "--create-namespace",
        "--set",
        "policyReporter.enabled=true",
        "--wait",
        "--timeout",
        "4m",
      ]);
      expect(errorsOf(install.stderr)).toBe("");
      expect(install.code).toBe(0);
      numbers.installMs = install.ms;
      const manifest = await cluster.helm(["get", "manifest", "kyverno", "-n", "kyverno"]);
      expect(manifest.stdout).toMatch(
        /kind: Deployment\nmetadata:\n {2}name: policy-reporter\n {2}namespace: kyverno/,
      );
      const ready = await cluster.kubectl([
        "get",
        "deployment",
        "-n",
        "kyverno",
        "policy-reporter",
        "-o",
        "jsonpath={.status.readyReplicas}",
      ]);
      expect(ready.stdout).toBe("1");
      expect(cluster.forbiddenLines()).toEqual([]);
    });

    it("Policy Reporter answers through its Service with the results of the release's reports controller", async () => {
      expect((await cluster.kubectl(["create", "namespace", "team-a"])).code).toBe(0);
      const deploy = await cluster.kubectl([
        "create",
        "deployment",
        "legacy",
        "-n",
        "team-a",
        "--image=nginx:latest",
      ]);
      expect(deploy.code, deploy.stderr).toBe(0);
      const policy = await eventually("the ClusterPolicy accepted", async () => {
        const r = await cluster.kubectl(["apply", "-f", "-"], POLICY);
        return r.code === 0 ? r : undefined;
      });
      expect(policy.code).toBe(0);
      const answered = await eventually(
        "Policy Reporter's results for team-a",
        async () => {
          const address = cluster.kubelet.serviceAddress("kyverno", "policy-reporter", 8080);
          if (address === undefined) return undefined;
          const res = await fetch(
            `http://${address.host}:${address.port}/v2/policies?namespaces=team-a`,
          ).catch(() => undefined);
          if (res?.status !== 200) return undefined;
          const body = (await res.json()) as Array<{ policy: string; results: { fail: number } }>;
          return body.find((p) => p.policy === "disallow-latest-tag" && p.results.fail > 0);
        },
        120000,
      );
      expect(answered.results.fail).toBeGreaterThan(0);
      expect(cluster.forbiddenLines()).toEqual([]);
    });

    it("uninstalls Policy Reporter with the release", async () => {
      const before = new Set(cluster.forbiddenLines());
      const uninstall = await cluster.helm([
        "uninstall",
        "kyverno",
        "-n",
        "kyverno",
        "--wait",
        "--timeout",
        "4m",
      ]);
      expect(errorsOf(uninstall.stderr)).toBe("");
      expect(uninstall.code).toBe(0);
      const left = await cluster.kubectl(["get", "deployments,services,clusterroles", "-A", "-o", "name"]);
      expect(left.stdout).not.toContain("policy-reporter");
      // The 403s the uninstall causes by design (refusedDuringUninstall), and no other.
      expect(cluster.forbiddenLines().filter((l) => !before.has(l) && !refusedDuringUninstall(l))).toEqual(
        [],
      );
    });
  },
);

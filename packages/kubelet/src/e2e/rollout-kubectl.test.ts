/**
 * Deployments as `kubectl` drives them on a real cluster, against the sandbox with the test kubelet
 * playing kube-controller-manager and the node: `kubectl scale`, `kubectl rollout status`,
 * `kubectl rollout restart`, `kubectl rollout history` and `kubectl rollout undo`.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKubelet, createPodNetwork, type Kubelet, type PodNetwork } from "../index.js";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const kubectlPath = spawnSync("sh", ["-c", "command -v kubectl"]).stdout?.toString().trim() ?? "";
const unavailable =
  process.getuid?.() !== 0
    ? "needs root (network namespaces, bind mounts)"
    : spawnSync("ip", ["-V"]).status !== 0
      ? "ip (iproute2) is not installed"
      : kubectlPath === ""
        ? "kubectl is not installed (packages/sandbox/scripts/ensure-kubectl.sh)"
        : undefined;
if (unavailable !== undefined) console.warn(`rollout e2e skipped: ${unavailable}`);

// The containers are the machine's `sleep` under the kubectl image (any command replaces its entrypoint).
const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: ${replicas}
  revisionHistoryLimit: 5
  selector: {matchLabels: {app: web}}
  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - {name: app, image: registry.k8s.io/kubectl:v1.32.4, command: [sleep, "3600"]}
`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe.skipIf(unavailable !== undefined)(
  "Deployment rollouts through kubectl",
  { timeout: 240_000 },
  () => {
    let network: PodNetwork;
    let sandbox: Sandbox;
    let kubelet: Kubelet;
    let home: string;
    const errors: string[] = [];
    const kubectl = (args: string[], stdin?: string): Promise<Run> =>
      new Promise((resolve) => {
        const child = execFile(
          "kubectl",
          args,
          {
            env: {
              ...process.env,
              HOME: home,
              KUBECONFIG: sandbox.kubeconfigPath,
              KUBECACHEDIR: join(home, "c"),
            },
            timeout: 150_000,
          },
          (error, stdout, stderr) =>
            resolve({
              code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
              stdout,
              stderr,
            }),
        );
        if (stdin !== undefined) child.stdin?.end(stdin);
      });
    const rolledOut = async (): Promise<void> => {
      const status = await kubectl(["rollout", "status", "deployment/web", "--timeout=40s"]);
      if (status.code !== 0) {
        const state = await kubectl(["get", "deploy,rs,pods", "-o", "yaml"]);
        const logs = kubelet.logs().map((l) => `${l.pod}/${l.container}: ${l.text.slice(-400)}`);
        console.error(state.stdout, logs.join("\n"), errors.join("\n"));
      }
      expect(status.stderr).toBe("");
      expect(status.stdout).toContain('deployment "web" successfully rolled out');
    };
    const jsonpath = async (kind: string, path: string): Promise<string> =>
      (await kubectl(["get", kind, "-o", `jsonpath=${path}`])).stdout;

    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), "rollout-e2e-"));
      network = await createPodNetwork();
      sandbox = await startSandbox({ listenHost: network.gateway });
      kubelet = createKubelet({
        apiServer: {
          url: sandbox.url,
          caCertPem: sandbox.caCertPem,
          token: sandbox.users["kubernetes-admin"] ?? "",
        },
        network,
        repoRoot: REPO_ROOT,
        kubectl: kubectlPath,
        shutdownGracePeriodSeconds: 2,
        onError: (message) => errors.push(message),
      });
      await kubelet.start();
    });
    afterAll(async () => {
      await kubelet?.stop();
      await sandbox?.stop();
      await network?.stop();
      if (home !== undefined) rmSync(home, { recursive: true, force: true });
    });

    it("rolls a Deployment out and scales it (status read by kubectl rollout status)", async () => {
      expect((await kubectl(["apply", "-f", "-"], deployment(1))).stderr).toBe("");
      await rolledOut();
      const scaled = await kubectl(["scale", "deployment/web", "--replicas=3"]);
      expect(scaled.stdout).toBe("deployment.apps/web scaled\n");
      await rolledOut();
      expect(
        await jsonpath(
          "deployment/web",
          "{.spec.replicas}/{.status.replicas}/{.status.readyReplicas}/{.status.availableReplicas}/{.status.updatedReplicas}",
        ),
      ).toBe("3/3/3/3/3");
      expect((await jsonpath("pods", "{.items[*].status.phase}")).split(" ")).toEqual([
        "Running",
        "Running",
        "Running",
      ]);
      const precondition = await kubectl(["scale", "deployment/web", "--current-replicas=5", "--replicas=1"]);
      expect(precondition.code).not.toBe(0);
      expect(precondition.stderr).toContain("Expected replicas to be 5, was 3");
    });

    it("restarts a rollout, lists its history and undoes it to the previous template", async () => {
      const restarted = await kubectl(["rollout", "restart", "deployment/web"]);
      expect(restarted.stdout).toBe("deployment.apps/web restarted\n");
      await rolledOut();
      const restartedAt = await jsonpath(
        "deployment/web",
        "{.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}",
      );
      expect(restartedAt).not.toBe("");
      const history = await kubectl(["rollout", "history", "deployment/web"]);
      expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/);

      const undone = await kubectl(["rollout", "undo", "deployment/web"]);
      expect(undone.stdout).toBe("deployment.apps/web rolled back\n");
      await rolledOut();
      expect(
        await jsonpath(
          "deployment/web",
          "{.spec.template.metadata.annotations}{.metadata.annotations.deployment\\.kubernetes\\.io/revision}",
        ),
      ).toBe("3");
      // The first template's ReplicaSet is the newest revision again and owns every Pod.
      const sets = JSON.parse((await kubectl(["get", "rs", "-o", "json"])).stdout) as {
        items: Array<{ metadata: { annotations: Record<string, string> }; spec: { replicas: number } }>;
      };
      const byRevision = Object.fromEntries(
        sets.items.map((rs) => [
          rs.metadata.annotations["deployment.kubernetes.io/revision"],
          rs.spec.replicas,
        ]),
      );
      expect(byRevision).toEqual({ "2": 0, "3": 3 });
    });
  },
);

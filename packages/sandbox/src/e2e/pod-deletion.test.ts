import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";

const HAS_KUBECTL = kubectlAvailable();
if (!HAS_KUBECTL) console.warn(`pod deletion e2e skipped: ${NO_KUBECTL}`);

describe.skipIf(!HAS_KUBECTL)("graceful deletion of Pods bound to a node", () => {
  let sandbox: Sandbox;
  let kubectl: ReturnType<typeof kubectlFor>;
  beforeAll(async () => {
    sandbox = await startSandbox();
    kubectl = kubectlFor(sandbox.kubeconfigPath);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });
  const pod = (name: string, nodeName?: string) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: "default" },
      spec: {
        ...(nodeName === undefined ? {} : { nodeName }),
        terminationGracePeriodSeconds: 45,
        containers: [{ name: "c", image: "kyverno-ts:0.1.0" }],
      },
    });

  it("keeps a bound Pod Terminating until it is deleted with grace 0; an unbound one goes at once", async () => {
    await kubectl(["create", "-f", "-"], pod("bound", "node-1"));
    await kubectl(["create", "-f", "-"], pod("unbound"));
    expect((await kubectl(["delete", "pod", "unbound", "--wait=false"])).code).toBe(0);
    expect((await kubectl(["get", "pod", "unbound"])).stderr).toContain('pods "unbound" not found');

    expect((await kubectl(["delete", "pod", "bound", "--wait=false"])).code).toBe(0);
    const terminating = JSON.parse((await kubectl(["get", "pod", "bound", "-o", "json"])).stdout);
    expect(terminating.metadata.deletionGracePeriodSeconds).toBe(45);
    expect(terminating.metadata.deletionTimestamp).toBeTruthy();
    expect((await kubectl(["get", "pod", "bound"])).stdout).toContain("Terminating");

    // What a kubelet does once the containers stopped (kubectl's --force --grace-period=0 too).
    expect((await kubectl(["delete", "pod", "bound", "--grace-period=0", "--force"])).code).toBe(0);
    expect((await kubectl(["get", "pod", "bound"])).stderr).toContain('pods "bound" not found');
  }, 60000);
});

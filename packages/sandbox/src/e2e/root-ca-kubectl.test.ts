import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn(`skipping kubectl kube-root-ca.crt e2e tests: ${NO_KUBECTL}`);

interface ConfigMap {
  metadata: { name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

describe.skipIf(!hasKubectl)("kube-root-ca.crt in every namespace (root CA publisher)", () => {
  let sandbox: Sandbox;
  let kubectl: ReturnType<typeof kubectlFor>;
  const rootCa = async (namespace: string): Promise<ConfigMap | undefined> => {
    const got = await kubectl(["get", "configmap", "kube-root-ca.crt", "-n", namespace, "-o", "json"]);
    return got.code === 0 ? (JSON.parse(got.stdout) as ConfigMap) : undefined;
  };

  beforeAll(async () => {
    sandbox = await startSandbox();
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    await sandbox.settled();
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("publishes the API server's CA in the bootstrap namespaces", async () => {
    for (const namespace of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
      const cm = await rootCa(namespace);
      expect(cm?.data).toEqual({ "ca.crt": sandbox.caCertPem });
      expect(cm?.metadata.annotations?.["kubernetes.io/description"]).toMatch(/^Contains a CA bundle/);
    }
  });

  it("publishes it in a new namespace, recreates it when deleted and restores changed data", async () => {
    expect((await kubectl(["create", "namespace", "team-a"])).code).toBe(0);
    await sandbox.settled();
    expect((await rootCa("team-a"))?.data).toEqual({ "ca.crt": sandbox.caCertPem });

    expect((await kubectl(["delete", "configmap", "kube-root-ca.crt", "-n", "team-a"])).code).toBe(0);
    await sandbox.settled();
    expect((await rootCa("team-a"))?.data).toEqual({ "ca.crt": sandbox.caCertPem });

    const patch = JSON.stringify({ data: { "ca.crt": "forged", extra: "x" } });
    const patched = await kubectl(["patch", "configmap", "kube-root-ca.crt", "-n", "team-a", "-p", patch]);
    expect(patched.code).toBe(0);
    await sandbox.settled();
    expect((await rootCa("team-a"))?.data).toEqual({ "ca.crt": sandbox.caCertPem });
  });

  it("does not recreate it in a namespace being deleted", async () => {
    expect((await kubectl(["create", "namespace", "going"])).code).toBe(0);
    await sandbox.settled();
    expect(await rootCa("going")).toBeDefined();
    expect((await kubectl(["delete", "namespace", "going", "--wait=false"])).code).toBe(0);
    await sandbox.settled();
    expect(await rootCa("going")).toBeUndefined();
    expect((await kubectl(["get", "namespace", "going"])).code).not.toBe(0);
  });
});

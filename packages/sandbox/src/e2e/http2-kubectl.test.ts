import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn(`skipping kubectl HTTP/2 e2e tests: ${NO_KUBECTL}`);

// kubectl (client-go) speaks HTTP/2 whenever the server offers it, as kube-apiserver does.
describe.skipIf(!hasKubectl)("the sandbox over HTTP/2 (http2: true) with kubectl", () => {
  let sandbox: Sandbox;
  let kubectl: ReturnType<typeof kubectlFor>;

  beforeAll(async () => {
    sandbox = await startSandbox({ http2: true });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    await sandbox.settled();
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("creates, reads and lists objects", async () => {
    expect((await kubectl(["create", "namespace", "h2"])).code).toBe(0);
    expect((await kubectl(["create", "configmap", "c", "-n", "h2", "--from-literal=a=b"])).code).toBe(0);
    const got = await kubectl(["get", "configmap", "c", "-n", "h2", "-o", "jsonpath={.data.a}"]);
    expect(got.stdout).toBe("b");
    expect((await kubectl(["get", "namespaces", "-o", "name"])).stdout).toContain("namespace/h2\n");
  });

  it("impersonates (--as, --as-group), reading repeated headers of an HTTP/2 request", async () => {
    expect(
      (await kubectl(["auth", "whoami", "--as", "alice", "--as-group", "qa", "--as-group", "ops"])).stdout,
    ).toMatch(/Username\s+alice\nGroups\s+\[qa ops system:authenticated\]/);
  });
});

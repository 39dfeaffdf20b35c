import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";
import type { PodLogRequest } from "../verbs/pod-log.js";

const HAS_KUBECTL = kubectlAvailable();
if (!HAS_KUBECTL) console.warn(`pod-log e2e skipped: ${NO_KUBECTL}`);

describe.skipIf(!HAS_KUBECTL)("pods/log and EndpointSlices through kubectl", { timeout: 60000 }, () => {
  let sandbox: Sandbox;
  let kubectl: ReturnType<typeof kubectlFor>;
  const asked: PodLogRequest[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({
      extraSans: ["kubernetes.default.svc"],
      podLogs: (request) => {
        asked.push(request);
        if (request.pod === "pending") return undefined;
        return `${request.container} line 1\n${request.container} line 2\n${request.container} line 3\n`;
      },
    });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    const pod = (name: string, labels: Record<string, string>, containers: string[]) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: "default", labels },
      spec: { containers: containers.map((c) => ({ name: c, image: "kyverno-ts:0.1.0" })) },
    });
    const objects = [
      pod("web-1", { app: "web" }, ["server"]),
      pod("web-2", { app: "web" }, ["server"]),
      pod("pending", { app: "other" }, ["server"]),
      pod("two", { app: "two" }, ["a", "b"]),
    ];
    const created = await kubectl(["create", "-f", "-"], objects.map((o) => JSON.stringify(o)).join("\n"));
    expect(created.stderr).toBe("");
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("serves a container's output to kubectl logs, by name and by label, with --tail", async () => {
    expect((await kubectl(["logs", "web-1"])).stdout).toBe("server line 1\nserver line 2\nserver line 3\n");
    const byLabel = await kubectl(["logs", "-l", "app=web", "--prefix", "--tail", "1"]);
    expect(
      byLabel.stdout
        .split("\n")
        .filter((l) => l !== "")
        .sort(),
    ).toEqual(["[pod/web-1/server] server line 3", "[pod/web-2/server] server line 3"]);
    expect((await kubectl(["logs", "two", "-c", "b"])).stdout).toContain("b line 1");
    expect(asked.some((r) => r.pod === "two" && r.container === "b" && !r.previous)).toBe(true);
  });

  it("answers as kube-apiserver when the container is unknown, ambiguous or not started", async () => {
    expect((await kubectl(["logs", "pending"])).stderr).toContain(
      'container "server" in pod "pending" is waiting to start: ContainerCreating',
    );
    expect((await kubectl(["logs", "two", "-c", "c"])).stderr).toContain(
      "container c is not valid for pod two",
    );
    expect((await kubectl(["logs", "nope"])).stderr).toContain('pods "nope" not found');
  });

  it("stores EndpointSlices (discovery.k8s.io/v1)", async () => {
    const slice = {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "web-abc", namespace: "default", labels: { "kubernetes.io/service-name": "web" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.244.0.2"], conditions: { ready: true } }],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    };
    expect((await kubectl(["create", "-f", "-"], JSON.stringify(slice))).stderr).toBe("");
    const got = await kubectl([
      "get",
      "endpointslices",
      "-l",
      "kubernetes.io/service-name=web",
      "-o",
      "json",
    ]);
    expect(JSON.parse(got.stdout).items[0].endpoints[0].addresses).toEqual(["10.244.0.2"]);
  });
});

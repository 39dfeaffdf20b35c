/**
 * Subresource policies enforced on the subresource request (issue #18), end to end: the admission
 * controller (cluster mode) in process against the sandbox, driven by kubectl. An Enforce policy on
 * `StatefulSet/scale` answers `kubectl scale`, one on `Pod/eviction` answers the eviction `kubectl drain`
 * sends (posted with `kubectl create --raw`, and through `kubectl drain`), one on `Pod/exec` answers
 * `kubectl exec`; the webhooks register the subresources and the objects they see are the
 * subresources' kinds (Scale, Eviction, PodExecOptions), as kube-apiserver sends them.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policyReady, read, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the subresource policies e2e suite: kubectl is not installed");

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: limit-statefulset-scale}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
  - name: at-most-three
    match: {any: [{resources: {kinds: [StatefulSet/scale], namespaces: [sub]}}]}
    validate:
      message: "StatefulSets in sub run at most 3 replicas, not {{ request.object.spec.replicas }}"
      deny:
        conditions:
          any:
          - {key: "{{ request.object.spec.replicas }}", operator: GreaterThan, value: 3}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-eviction}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
  - name: keep-pinned
    match: {any: [{resources: {kinds: [Pod/eviction], namespaces: [sub]}}]}
    validate:
      message: "{{ request.object.kind }} of {{ request.name }} refused: Pods in sub are pinned"
      deny: {}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-exec}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
  # As upstream's block-pod-exec-by-namespace sample: a PodExecOptions carries no namespace, so the
  # rule reads the request's.
  - name: no-shell
    match: {any: [{resources: {kinds: [Pod/exec], operations: [CONNECT]}}]}
    validate:
      message: "exec into {{ request.name }} is not allowed ({{ request.object.kind }})"
      deny:
        conditions:
          any:
          - {key: "{{ request.namespace }}", operator: Equals, value: sub}
`;

const STATEFULSET = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: sub}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - {name: db, image: "postgres:17"}
`;

const pod = (namespace: string) => `apiVersion: v1
kind: Pod
metadata: {name: worker, namespace: ${namespace}}
spec:
  containers:
  - {name: worker, image: "busybox:1.36"}
`;

const eviction = (namespace: string) =>
  JSON.stringify({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "worker", namespace } });

describe.skipIf(!hasKubectl)("subresource policies, through kubectl", { timeout: 60_000 }, () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];

  beforeAll(async () => {
    cluster = await startE2eCluster({
      namespaces: ["kyverno", "sub", "free"],
      inProcess: {},
    });
    ({ client, kubectl } = cluster);
    const applied = await kubectl(["apply", "-f", "-"], POLICIES);
    expect(applied.stderr).toBe("");
    for (const name of ["limit-statefulset-scale", "no-eviction", "no-exec"]) await policyReady(client, name);
    // The webhooks carry the subresources the policies name.
    await cluster.webhooks("ValidatingWebhookConfiguration", "kyverno-resource-validating-webhook-cfg", [
      "statefulsets/scale",
      "pods/eviction",
      "pods/exec",
    ]);
    for (const doc of [STATEFULSET, pod("sub"), pod("free")])
      expect((await kubectl(["apply", "-f", "-"], doc)).stderr).toBe("");
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("answers kubectl scale of a StatefulSet with the StatefulSet/scale policy", async () => {
    const denied = await kubectl(["scale", "statefulset", "db", "-n", "sub", "--replicas=5"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("limit-statefulset-scale");
    expect(denied.stderr).toContain("StatefulSets in sub run at most 3 replicas, not 5");
    const replicas = async () =>
      (await read(client, { apiVersion: "apps/v1", kind: "StatefulSet", namespace: "sub", name: "db" }))
        ?.spec as { replicas?: number } | undefined;
    expect((await replicas())?.replicas).toBe(1);
    const allowed = await kubectl(["scale", "statefulset", "db", "-n", "sub", "--replicas=3"]);
    expect(allowed.stderr).toBe("");
    expect((await replicas())?.replicas).toBe(3);
  });

  it("answers an eviction (what kubectl drain sends) with the Pod/eviction policy", async () => {
    const path = (namespace: string) => `/api/v1/namespaces/${namespace}/pods/worker/eviction`;
    const denied = await kubectl(["create", "--raw", path("sub"), "-f", "-"], eviction("sub"));
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("no-eviction");
    expect(denied.stderr).toContain("Eviction of worker refused: Pods in sub are pinned");
    const kept = await read(client, { apiVersion: "v1", kind: "Pod", namespace: "sub", name: "worker" });
    expect(kept?.metadata?.deletionTimestamp).toBeUndefined();
    // Where no policy matches, the eviction deletes the Pod, answered with a 201 Success Status.
    const evicted = await kubectl(["create", "--raw", path("free"), "-f", "-"], eviction("free"));
    expect(evicted.stderr).toBe("");
    expect(JSON.parse(evicted.stdout)).toMatchObject({ kind: "Status", status: "Success", code: 201 });
    await until(
      async () =>
        (await read(client, { apiVersion: "v1", kind: "Pod", namespace: "free", name: "worker" })) ===
        undefined,
      10_000,
      "the evicted Pod deleted",
    );
  });

  it("answers kubectl drain: the Pod/eviction policy keeps its Pod, the node's others are evicted", async () => {
    const bound = (name: string, namespace: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  nodeName: drained
  containers:
  - {name: app, image: "busybox:1.36"}
`;
    const created = await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: v1\nkind: Node\nmetadata: {name: drained}\n---\n${bound("pinned", "sub")}---\n${bound("movable", "free")}`,
    );
    expect(created.stderr).toBe("");
    // Bare Pods need --force; a denied eviction (not a 429 of a disruption budget) fails the drain.
    const drain = await kubectl(["drain", "drained", "--force", "--grace-period=0", "--timeout=8s"]);
    expect(drain.code).toBe(1);
    expect(drain.stdout).toContain("node/drained cordoned");
    expect(drain.stderr).toContain('error when evicting pods/"pinned" -n "sub"');
    expect(drain.stderr).toContain("Eviction of pinned refused: Pods in sub are pinned");
    const get = (namespace: string, name: string) =>
      read(client, { apiVersion: "v1", kind: "Pod", namespace, name });
    expect((await get("sub", "pinned"))?.metadata?.deletionTimestamp).toBeUndefined();
    expect(await get("free", "movable")).toBeUndefined();
    const node = await read(client, { apiVersion: "v1", kind: "Node", name: "drained" });
    expect((node?.spec as { unschedulable?: boolean } | undefined)?.unschedulable).toBe(true);
  });

  it("answers kubectl exec with the Pod/exec policy", async () => {
    const denied = await kubectl(["exec", "worker", "-n", "sub", "--", "ls"]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain("no-exec");
    expect(denied.stderr).toContain("exec into worker is not allowed (PodExecOptions)");
  });
});

/**
 * Kubernetes Events of every kind of policy, end to end: `kyverno-ts admission` and `kyverno-ts
 * background` as their own processes against the sandbox with `--omitEvents=` (every Event type) and
 * the kyverno ConfigMap's `generateSuccessEvents: "true"`, driven by the real kubectl. `kubectl get
 * events` shows a ValidatingPolicy's violation, a mutate rule's PolicyApplied and a generate rule's
 * PolicyApplied from the background controller; the Events are written through events.k8s.io/v1 and
 * read here through both APIs.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the events-of-every-kind e2e suite: kubectl is not installed");

const crd = (path: string) =>
  fileURLToPath(new URL(`../../../../../shared/reference/kyverno-crds/${path}`, import.meta.url));

const RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kyverno:background-controller}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kyverno:background-controller}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kyverno:background-controller}
subjects:
- {kind: ServiceAccount, name: kyverno-background-controller, namespace: kyverno}
`;

const POLICIES = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: require-team}
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: team-a}}
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: the label team is required
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-owner}
spec:
  rules:
  - name: owner
    match: {any: [{resources: {kinds: [Pod], namespaces: [team-a]}}]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            owner: platform
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: namespace-settings}
spec:
  rules:
  - name: settings
    match: {any: [{resources: {kinds: [Namespace], names: ["gen-*"]}}]}
    generate:
      apiVersion: v1
      kind: ConfigMap
      name: settings
      namespace: "{{request.object.metadata.name}}"
      data:
        data: {owner: platform}
`;

describe.skipIf(!hasKubectl)("Events of CEL, mutate and generate policies, through kubectl", () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];

  /** Events through core/v1, as kubectl reads them. */
  const events = async (namespace: string): Promise<KubeObject[]> => {
    const listed = await client.list({ apiVersion: "v1", kind: "Event", namespace });
    if (!listed.ok) throw new Error(listed.message);
    return listed.value.items;
  };
  const eventually = (namespace: string, what: string, found: (e: KubeObject) => boolean) =>
    until(async () => (await events(namespace)).some(found), 20_000, what);
  const regarding = (e: KubeObject) => e.involvedObject as { kind?: string; name?: string };

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: [
        crd("kyverno/kyverno.io_updaterequests.yaml"),
        crd("policies.kyverno.io/policies.kyverno.io_validatingpolicies.yaml"),
      ],
      namespaces: ["kyverno", "team-a"],
      objects: [
        // Upstream's key: the background controller's success Events.
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "kyverno", namespace: "kyverno" },
          data: { generateSuccessEvents: "true" },
        },
      ],
      admission: { args: ["--omitEvents="] },
      background: { args: ["--omitEvents="] },
    });
    ({ client, kubectl } = cluster);
    expect((await kubectl(["apply", "-f", "-"], RBAC)).code).toBe(0);
    const applied = await kubectl(["apply", "-f", "-"], POLICIES);
    expect(applied.stderr).toBe("");
    const ready = await kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=30s",
      "clusterpolicy/add-owner",
      "clusterpolicy/namespace-settings",
      "validatingpolicy/require-team",
    ]);
    expect(ready.stderr + ready.stdout).toContain("condition met");
    // The webhooks cover Pods (mutate and vpol) and Namespaces (generate) once the policies are in.
    await cluster.webhooks(
      "ValidatingWebhookConfiguration",
      "kyverno-resource-validating-webhook-cfg",
      ["namespaces"],
      30_000,
    );
    await cluster.webhooks(
      "MutatingWebhookConfiguration",
      "kyverno-resource-mutating-webhook-cfg",
      ["pods"],
      30_000,
    );
  }, 240_000);
  afterAll(() => cluster?.stop(), 30_000);

  it("a Pod without the team label: the ValidatingPolicy's PolicyViolation and the mutate rule's PolicyApplied", async () => {
    const created = await kubectl(["run", "web", "-n", "team-a", "--image=nginx:1.27"]);
    expect(created.stderr).toBe("");
    await eventually(
      "team-a",
      "the Pod's PolicyViolation",
      (e) => e.reason === "PolicyViolation" && regarding(e).name === "web",
    );
    await eventually(
      "default",
      "the ValidatingPolicy's Event",
      (e) => regarding(e).kind === "ValidatingPolicy",
    );
    await eventually("default", "the mutate PolicyApplied", (e) => regarding(e).name === "add-owner");

    const onPod = await kubectl(["get", "events", "-n", "team-a"]);
    expect(onPod.stderr).toBe("");
    expect(onPod.stdout).toMatch(
      /Warning\s+PolicyViolation\s+pod\/web\s+policy require-team\/\S* fail: the label team is required/,
    );
    const cluster = await kubectl(["get", "events", "-n", "default"]);
    expect(cluster.stdout).toMatch(
      /Warning\s+PolicyViolation\s+validatingpolicy\/require-team\s+Pod team-a\/web: \[\S*\] fail; the label team is required/,
    );
    expect(cluster.stdout).toMatch(
      /Normal\s+PolicyApplied\s+clusterpolicy\/add-owner\s+Pod team-a\/web is successfully mutated/,
    );
    const [mutated] = (await events("default")).filter((e) => regarding(e).name === "add-owner");
    expect(mutated).toMatchObject({
      action: "Resource Mutated",
      reportingComponent: "kyverno-admission",
      related: { kind: "Pod", namespace: "team-a", name: "web" },
    });
    // The ValidatingPolicy's own Events, as kubectl describe lists them (by the policy's uid).
    const policy = await kubectl(["describe", "validatingpolicy", "require-team"]);
    expect(policy.stdout.slice(policy.stdout.indexOf("Events:"))).toMatch(
      /Warning\s+PolicyViolation\s+\S+\s+kyverno-admission\s+Pod team-a\/web: \[\S*\] fail; the label team is required/,
    );
    const described = await kubectl(["describe", "pod", "web", "-n", "team-a"]);
    expect(described.stdout.slice(described.stdout.indexOf("Events:"))).toMatch(
      /Warning\s+PolicyViolation\s+\S+\s+kyverno-admission\s+policy require-team/,
    );
  });

  it("a generated ConfigMap: the background controller's PolicyApplied from kyverno-generate", async () => {
    const created = await kubectl(["create", "namespace", "gen-a"]);
    expect(created.stderr).toBe("");
    await until(
      async () =>
        (await read(client, {
          apiVersion: "v1",
          kind: "ConfigMap",
          namespace: "gen-a",
          name: "settings",
        })) !== undefined,
      20_000,
      "the generated ConfigMap",
    );
    await eventually(
      "default",
      "the generate PolicyApplied",
      (e) => regarding(e).name === "namespace-settings",
    );
    const listed = await kubectl([
      "get",
      "events",
      "-n",
      "default",
      "--field-selector",
      "reason=PolicyApplied,involvedObject.name=namespace-settings",
    ]);
    expect(listed.stderr).toBe("");
    expect(listed.stdout).toMatch(
      /Normal\s+PolicyApplied\s+clusterpolicy\/namespace-settings\s+resource generated/,
    );
    // Written through events.k8s.io/v1: the same Event there, with upstream's field names.
    const v1 = await client.list<KubeObject>({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      namespace: "default",
    });
    if (!v1.ok) throw new Error(v1.message);
    expect(
      v1.value.items.find((e) => (e.regarding as { name?: string }).name === "namespace-settings"),
    ).toMatchObject({
      reportingController: "kyverno-generate",
      reportingInstance: "kyverno-generate-kyverno-background-0",
      action: "Resource Generated",
      note: "resource generated",
      related: { apiVersion: "v1", kind: "ConfigMap", namespace: "gen-a", name: "settings" },
    });
  });
});

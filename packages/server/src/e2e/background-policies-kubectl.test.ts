/**
 * End to end: the generate and mutate-existing features of ClusterPolicies and Policies that
 * `background-kubectl.test.ts` leaves out, with `kyverno-ts admission` and `kyverno-ts background` as
 * their own processes against the sandbox API server and the real kubectl: `generateExisting`,
 * `cloneList`, `foreach`, a namespaced Policy generating only in its namespace (a Failed UpdateRequest,
 * retried, then given up, and a PolicyError Event), mutate-existing targets with their own context and
 * preconditions, `mutateExistingOnPolicyUpdate`, what deleting a policy does to its downstream
 * (deleted when synchronized, kept with `orphanDownstreamOnPolicyDelete`), and a standby replica taking
 * the `kyverno-background-controller` Lease when the leader shuts down gracefully.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import { createInformer, type KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackgroundProcess } from "../testing/background.js";
import { read, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the background policies e2e suite: kubectl is not installed");

const UR_CRD = fileURLToPath(
  new URL(
    "../../../../../shared/reference/kyverno-crds/kyverno/kyverno.io_updaterequests.yaml",
    import.meta.url,
  ),
);

const RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kyverno:background-controller}
rules:
- apiGroups: [""]
  resources: [namespaces, configmaps, secrets]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kyverno:background-controller}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kyverno:background-controller}
subjects:
- {kind: ServiceAccount, name: kyverno-background-controller, namespace: kyverno}
`;

/** Created after a labelled Namespace exists: reaches it through generateExisting. */
const GENERATE_EXISTING = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: existing-defaults}
spec:
  rules:
  - name: settings
    match: {any: [{resources: {kinds: [Namespace], selector: {matchLabels: {defaults: "yes"}}}}]}
    generate:
      generateExisting: true
      synchronize: true
      apiVersion: v1
      kind: ConfigMap
      name: settings
      namespace: "{{request.object.metadata.name}}"
      data:
        data: {owner: "{{request.object.metadata.name}}"}
`;

const CLONE_LIST = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: copy-secrets}
spec:
  rules:
  - name: copy-labelled
    match: {any: [{resources: {kinds: [Namespace], names: ["list-*"]}}]}
    generate:
      synchronize: true
      orphanDownstreamOnPolicyDelete: true
      namespace: "{{request.object.metadata.name}}"
      cloneList:
        namespace: shared
        kinds: [v1/Secret]
        selector: {matchLabels: {copy: "yes"}}
  - name: marker
    match: {any: [{resources: {kinds: [Namespace], names: ["list-*"]}}]}
    generate:
      synchronize: true
      apiVersion: v1
      kind: ConfigMap
      name: marker
      namespace: "{{request.object.metadata.name}}"
      data:
        data: {a: b}
`;

const FOREACH = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: per-team}
spec:
  rules:
  - name: team-configmaps
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [apps], names: [teams]}}]}
    generate:
      foreach:
      - list: "split(request.object.data.names, ',')"
        apiVersion: v1
        kind: ConfigMap
        name: "team-{{element}}"
        namespace: apps
        data:
          data: {team: "{{element}}"}
`;

/** Where it generates comes from the trigger: only its own namespace is allowed. */
const NAMESPACED = `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: local-copy, namespace: apps}
spec:
  rules:
  - name: copy
    match: {any: [{resources: {kinds: [ConfigMap], names: ["where-*"]}}]}
    generate:
      apiVersion: v1
      kind: ConfigMap
      name: "out-{{request.object.metadata.name}}"
      namespace: "{{request.object.data.ns}}"
      data:
        data: {from: "{{request.object.metadata.name}}"}
`;

/** Targets with their own context (a ConfigMap) and preconditions (on the target). */
const MUTATE_TARGETS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: stamp-secrets}
spec:
  rules:
  - name: stamp
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [apps], names: ["stamp-*"]}}]}
    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
        namespace: apps
        name: "m-*"
        context:
        - name: settings
          configMap: {name: stamp-settings, namespace: apps}
        preconditions:
          all:
          - key: "{{ target.metadata.labels.mutable || '' }}"
            operator: Equals
            value: "yes"
      patchStrategicMerge:
        metadata:
          labels:
            stamped-by: "{{request.object.metadata.name}}"
            stamp: "{{settings.data.stamp}}"
`;

/** Created after its trigger exists: reaches it through mutateExistingOnPolicyUpdate. */
const MUTATE_ON_UPDATE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: stamp-on-update}
spec:
  rules:
  - name: stamp
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [apps], names: [late-trigger]}}]}
    mutate:
      mutateExistingOnPolicyUpdate: true
      targets:
      - {apiVersion: v1, kind: Secret, namespace: apps, name: late-target}
      patchStrategicMerge:
        metadata:
          labels: {late: "{{request.object.data.value}}"}
`;

describe.skipIf(!hasKubectl)("generate and mutate-existing policies in a cluster, through kubectl", () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let background: BackgroundProcess;
  let kubectl: E2eCluster["kubectl"];
  const get = (kind: string, namespace: string, name: string) => cluster.get(kind, namespace, name);
  const apply = async (yaml: string) => {
    const applied = await kubectl(["apply", "-f", "-"], yaml);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
  };
  const ready = async (...policies: string[]) => {
    const waited = await kubectl(["wait", "--for=condition=Ready", "--timeout=20s", ...policies]);
    expect(waited.stderr + waited.stdout).toContain("condition met");
  };
  const secret = (namespace: string, name: string, labels: Record<string, string> = {}): KubeObject => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace, labels },
    data: { token: Buffer.from(name).toString("base64") },
  });

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: [UR_CRD],
      namespaces: ["kyverno", "shared", "apps"],
      objects: [
        secret("shared", "copy-a", { copy: "yes" }),
        secret("shared", "copy-b", { copy: "yes" }),
        secret("shared", "not-copied", { copy: "no" }),
        secret("apps", "m-yes", { mutable: "yes" }),
        secret("apps", "m-no", { mutable: "no" }),
        secret("apps", "late-target"),
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "stamp-settings", namespace: "apps" },
          data: { stamp: "blue" },
        },
      ],
    });
    ({ client, kubectl } = cluster);
    background = await cluster.startBackground({ args: ["--genWorkers", "2"], fastLeaderElection: false });
    await apply(RBAC);
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 30_000);

  /** Waits until the admission webhook covers a resource (its configuration names it). */
  const webhookCovers = (resource: string) =>
    cluster.webhooks("ValidatingWebhookConfiguration", "kyverno-resource-validating-webhook-cfg", [
      `"${resource}"`,
    ]);

  it("generateExisting: a policy created later generates for the Namespaces that already match; deleted, it takes its synchronized downstream along", async () => {
    expect((await kubectl(["create", "namespace", "old-1"])).code).toBe(0);
    expect((await kubectl(["label", "namespace", "old-1", "defaults=yes"])).code).toBe(0);
    await apply(GENERATE_EXISTING);
    await until(
      async () => (await get("ConfigMap", "old-1", "settings")) !== undefined,
      20_000,
      `ConfigMap in old-1\n${background.output().slice(-3000)}`,
    );
    expect((await get("ConfigMap", "old-1", "settings"))?.data).toEqual({ owner: "old-1" });
    expect((await kubectl(["delete", "clusterpolicy", "existing-defaults"])).code).toBe(0);
    await until(
      async () => (await get("ConfigMap", "old-1", "settings")) === undefined,
      20_000,
      "the deleted policy's downstream deleted",
    );
  }, 60_000);

  it("cloneList copies the selected Secrets; with orphanDownstreamOnPolicyDelete they stay when the policy goes", async () => {
    await apply(CLONE_LIST);
    await ready("clusterpolicy/copy-secrets");
    await webhookCovers("namespaces");
    expect((await kubectl(["create", "namespace", "list-a"])).code).toBe(0);
    await until(
      async () =>
        (await get("Secret", "list-a", "copy-a")) !== undefined &&
        (await get("Secret", "list-a", "copy-b")) !== undefined &&
        (await get("ConfigMap", "list-a", "marker")) !== undefined,
      20_000,
      `cloned Secrets in list-a\n${background.output().slice(-3000)}`,
    );
    expect(await get("Secret", "list-a", "not-copied")).toBeUndefined();
    const copy = await get("Secret", "list-a", "copy-a");
    expect(copy?.data).toEqual({ token: Buffer.from("copy-a").toString("base64") });
    expect(copy?.metadata?.labels).toMatchObject({
      "generate.kyverno.io/policy-name": "copy-secrets",
      "generate.kyverno.io/rule-name": "copy-labelled",
      "generate.kyverno.io/source-namespace": "shared",
      "generate.kyverno.io/source-name": "copy-a",
    });
    expect(await get("ConfigMap", "list-a", "marker")).toBeDefined();
    expect((await kubectl(["delete", "clusterpolicy", "copy-secrets"])).code).toBe(0);
    // The synchronized rule without the flag loses its downstream: the deletion was handled.
    await until(
      async () => (await get("ConfigMap", "list-a", "marker")) === undefined,
      20_000,
      "the marker ConfigMap deleted with its policy",
    );
    expect(await get("Secret", "list-a", "copy-a")).toBeDefined();
    expect(await get("Secret", "list-a", "copy-b")).toBeDefined();
  }, 60_000);

  it("foreach generates one ConfigMap per element of the list", async () => {
    await apply(FOREACH);
    await ready("clusterpolicy/per-team");
    await webhookCovers("configmaps");
    expect(
      (await kubectl(["create", "configmap", "-n", "apps", "teams", "--from-literal=names=red,green"])).code,
    ).toBe(0);
    await until(
      async () =>
        (await get("ConfigMap", "apps", "team-red")) !== undefined &&
        (await get("ConfigMap", "apps", "team-green")) !== undefined,
      20_000,
      `foreach ConfigMaps\n${background.output().slice(-3000)}`,
    );
    expect((await get("ConfigMap", "apps", "team-green"))?.data).toEqual({ team: "green" });
  }, 60_000);

  it("an UpdateRequest written without a state (another writer) is set Pending, then processed", async () => {
    expect((await kubectl(["delete", "configmap", "-n", "apps", "team-red"])).code).toBe(0);
    // The states the UpdateRequest goes through, as a watch sees them.
    const states: string[] = [];
    const watch = createInformer<KubeObject>({
      client,
      apiVersion: "kyverno.io/v2",
      kind: "UpdateRequest",
      namespace: "kyverno",
    });
    watch.on("update", (ur) => {
      if (ur.metadata?.name === "by-hand")
        states.push(String((ur.status as { state?: string } | undefined)?.state));
    });
    await watch.start();
    const created = await kubectl(
      ["create", "-f", "-"],
      JSON.stringify({
        apiVersion: "kyverno.io/v2",
        kind: "UpdateRequest",
        metadata: { name: "by-hand", namespace: "kyverno" },
        spec: {
          requestType: "generate",
          policy: "per-team",
          rule: "team-configmaps",
          resource: { apiVersion: "v1", kind: "ConfigMap", namespace: "apps", name: "teams" },
          deleteDownstream: false,
          context: { userInfo: {}, admissionRequestInfo: {} },
        },
      }),
    );
    expect(created.stderr).toBe("");
    await until(
      async () => (await get("ConfigMap", "apps", "team-red")) !== undefined,
      20_000,
      `team-red generated again\n${background.output().slice(-3000)}`,
    );
    await until(
      async () => (await kubectl(["get", "updaterequest", "-n", "kyverno", "by-hand"])).code !== 0,
      20_000,
      "the UpdateRequest deleted once completed",
    );
    await watch.stop();
    expect(states[0]).toBe("Pending");
  }, 60_000);

  it("a namespaced Policy generates in its namespace; elsewhere the UpdateRequest fails, is retried, given up and reported", async () => {
    await apply(NAMESPACED);
    await ready("policy/local-copy", "-n", "apps");
    await webhookCovers("configmaps");
    expect(
      (await kubectl(["create", "configmap", "-n", "apps", "where-in", "--from-literal=ns=apps"])).code,
    ).toBe(0);
    await until(
      async () => (await get("ConfigMap", "apps", "out-where-in")) !== undefined,
      20_000,
      "generated in the policy's namespace",
    );
    expect(
      (await kubectl(["create", "configmap", "-n", "apps", "where-out", "--from-literal=ns=shared"])).code,
    ).toBe(0);
    // The UpdateRequest shows Failed with the reason (kubectl get ur), then is given up after its retries.
    let failed: KubeObject | undefined;
    await until(
      async () => {
        const listed = await kubectl(["get", "updaterequests", "-n", "kyverno", "-o", "json"]);
        const items = (JSON.parse(listed.stdout || '{"items":[]}') as { items: KubeObject[] }).items;
        failed = items.find(
          (ur) =>
            (ur.spec as { resource?: { name?: string } }).resource?.name === "where-out" &&
            (ur.status as { state?: string } | undefined)?.state === "Failed",
        );
        return failed !== undefined;
      },
      20_000,
      "a Failed UpdateRequest",
    );
    expect(failed?.status).toMatchObject({
      state: "Failed",
      message: expect.stringContaining("a namespaced Policy generates only in its namespace apps"),
    });
    expect((failed?.status as { retryCount?: number } | undefined)?.retryCount).toBeGreaterThanOrEqual(1);
    await until(
      async () =>
        !(await kubectl(["get", "updaterequests", "-n", "kyverno", "-o", "json"])).stdout.includes(
          '"where-out"',
        ),
      40_000,
      "the failing UpdateRequest given up",
    );
    expect(await get("ConfigMap", "shared", "out-where-out")).toBeUndefined();
    const events = await kubectl([
      "get",
      "events",
      "-n",
      "apps",
      "--field-selector",
      "reason=PolicyError,involvedObject.name=local-copy",
      "-o",
      "json",
    ]);
    expect(events.stdout).toContain("a namespaced Policy generates only in its namespace apps");
  }, 90_000);

  it("mutate-existing targets: the target's context and preconditions decide which targets are patched", async () => {
    await apply(MUTATE_TARGETS);
    await ready("clusterpolicy/stamp-secrets");
    await webhookCovers("configmaps");
    expect((await kubectl(["create", "configmap", "-n", "apps", "stamp-1", "--from-literal=a=b"])).code).toBe(
      0,
    );
    await until(
      async () => (await get("Secret", "apps", "m-yes"))?.metadata?.labels?.["stamped-by"] === "stamp-1",
      20_000,
      `m-yes stamped\n${background.output().slice(-3000)}`,
    );
    expect((await get("Secret", "apps", "m-yes"))?.metadata?.labels).toMatchObject({
      mutable: "yes",
      "stamped-by": "stamp-1",
      stamp: "blue",
    });
    expect((await get("Secret", "apps", "m-no"))?.metadata?.labels).toEqual({ mutable: "no" });
  }, 60_000);

  it("a second replica stands by; when the leader shuts down gracefully it takes the Lease and does the work", async () => {
    const holder = async () =>
      (
        (
          await read(client, {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            namespace: "kyverno",
            name: "kyverno-background-controller",
          })
        )?.spec as { holderIdentity?: string } | undefined
      )?.holderIdentity;
    const standby = await cluster.startBackground({
      identity: "kyverno-background-1",
      args: ["--genWorkers", "2"],
    });
    try {
      expect(await holder()).toBe("kyverno-background-0");
      // SIGTERM: the leader finishes its work, releases the Lease and exits 0.
      expect(await background.stop()).toBe(0);
      await until(async () => (await holder()) === "kyverno-background-1", 20_000, "the standby leads");
      expect(
        (await kubectl(["create", "configmap", "-n", "apps", "stamp-2", "--from-literal=a=b"])).code,
      ).toBe(0);
      await until(
        async () => (await get("Secret", "apps", "m-yes"))?.metadata?.labels?.["stamped-by"] === "stamp-2",
        20_000,
        `the new leader processed the UpdateRequest\n${standby.output().slice(-3000)}`,
      );
    } finally {
      background = standby;
    }
  }, 60_000);

  it("mutateExistingOnPolicyUpdate: a policy created after its trigger patches the target", async () => {
    expect(
      (await kubectl(["create", "configmap", "-n", "apps", "late-trigger", "--from-literal=value=v1"])).code,
    ).toBe(0);
    await apply(MUTATE_ON_UPDATE);
    await until(
      async () => (await get("Secret", "apps", "late-target"))?.metadata?.labels?.late === "v1",
      20_000,
      `late-target patched\n${background.output().slice(-3000)}`,
    );
  }, 60_000);
});

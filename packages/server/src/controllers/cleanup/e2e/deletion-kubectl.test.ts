/**
 * End to end: what a cleanup deletes and what it leaves, with `kyverno-ts cleanup` (in process)
 * against the sandbox API server and policies applied with the real kubectl. A resource a
 * ClusterCleanupPolicy matches but its `exclude` names survives the runs that delete its neighbours;
 * `deletionPropagationPolicy` reaches the API server's garbage collector: each policy deletes a
 * ReplicaSet owning two Pods (ownerReferences written by the test, one Pod held by a finalizer) —
 * `Orphan` keeps the Pods and drops their references, `Background` removes the ReplicaSet at once and
 * its Pods after it, `Foreground` keeps the ReplicaSet (`foregroundDeletion`) until its Pods are gone.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read, until } from "../../../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../../../testing/e2e-cluster.js";

const CRD_DIR = new URL("../../../../../../../shared/reference/kyverno-crds/kyverno/", import.meta.url);
const CRDS = [
  "kyverno.io_cleanuppolicies.yaml",
  "kyverno.io_clustercleanuppolicies.yaml",
  "../policies.kyverno.io/policies.kyverno.io_deletingpolicies.yaml",
  "../policies.kyverno.io/policies.kyverno.io_namespaceddeletingpolicies.yaml",
].map((f) => fileURLToPath(new URL(f, CRD_DIR)));
const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the cleanup deletion e2e suite: kubectl is not installed");

const HOLD = "example.com/hold";
type Propagation = "Orphan" | "Background" | "Foreground";

/** The policy deleting the ReplicaSet labelled `gc-case: <id>` every 2 s with `propagation`. */
function policyFor(kind: string, id: string, propagation: Propagation): object {
  if (kind === "DeletingPolicy")
    return {
      apiVersion: "policies.kyverno.io/v1beta1",
      kind,
      metadata: { name: id },
      spec: {
        schedule: "@every 2s",
        deletionPropagationPolicy: propagation,
        matchConstraints: {
          resourceRules: [
            { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["*"], resources: ["replicasets"] },
          ],
        },
        conditions: [
          {
            name: "case",
            expression: `has(object.metadata.labels) && object.metadata.labels[?'gc-case'].orValue('') == '${id}'`,
          },
        ],
      },
    };
  return {
    apiVersion: "kyverno.io/v2",
    kind,
    metadata: { name: id, ...(kind === "CleanupPolicy" ? { namespace: "gc" } : {}) },
    spec: {
      schedule: "@every 2s",
      deletionPropagationPolicy: propagation,
      match: {
        any: [{ resources: { kinds: ["ReplicaSet"], selector: { matchLabels: { "gc-case": id } } } }],
      },
    },
  };
}

describe.skipIf(!hasKubectl)(
  "kyverno-ts cleanup: exclude and deletionPropagationPolicy, through kubectl",
  () => {
    let cluster: E2eCluster;
    let client: KubeClient;
    let kubectl: E2eCluster["kubectl"];

    beforeAll(async () => {
      cluster = await startE2eCluster({
        crds: CRDS,
        kyvernoCrds: false,
        namespaces: ["kyverno", "ex", "gc"],
        admission: false,
        cleanup: true,
      });
      ({ client, kubectl } = cluster);
    }, 60_000);
    afterAll(async () => {
      await cluster?.stop();
      expect(await cluster?.cleanup?.exited).toBe(0);
    }, 30_000);

    const obj = (kind: string, namespace: string, name: string, apiVersion = "v1") =>
      read(client, { apiVersion, kind, namespace, name });
    const create = async (o: KubeObject): Promise<KubeObject> => {
      const created = await client.create(o);
      if (!created.ok) throw new Error(`${o.kind} ${o.metadata?.name}: ${created.message}`);
      return created.value;
    };
    const applyPolicy = async (policy: object) => {
      const applied = await kubectl(["apply", "-f", "-"], JSON.stringify(policy));
      expect(applied.stderr).toBe("");
    };

    it("a resource the exclude block names survives the runs that delete the others it matches", async () => {
      const pod = (name: string) =>
        create({
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name, namespace: "ex", labels: { sweep: "true" } },
          spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
        });
      await pod("sweep-a");
      await pod("sweep-b");
      await pod("sweep-keep");
      await applyPolicy({
        apiVersion: "kyverno.io/v2",
        kind: "ClusterCleanupPolicy",
        metadata: { name: "sweep" },
        spec: {
          schedule: "@every 2s",
          match: { any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { sweep: "true" } } } }] },
          exclude: { any: [{ resources: { kinds: ["Pod"], names: ["sweep-keep"] } }] },
        },
      });
      await until(
        async () =>
          (await obj("Pod", "ex", "sweep-a")) === undefined &&
          (await obj("Pod", "ex", "sweep-b")) === undefined,
        20_000,
        "the matching Pods deleted",
      );
      // A later run than the one that deleted them still leaves the excluded Pod.
      const ran = async () =>
        (
          (await obj("ClusterCleanupPolicy", "", "sweep", "kyverno.io/v2"))?.status as
            | { lastExecutionTime?: string }
            | undefined
        )?.lastExecutionTime;
      const first = await ran();
      await until(async () => (await ran()) !== first, 10_000, "another run");
      expect(await obj("Pod", "ex", "sweep-keep")).toBeDefined();
      expect((await kubectl(["delete", "clustercleanuppolicy", "sweep"])).code).toBe(0);
    }, 40_000);

    /** A ReplicaSet labelled `gc-case: <id>` owning Pods `<id>-free` and `<id>-held` (the latter held by a finalizer). */
    const family = async (id: string) => {
      const rs = await create({
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: { name: id, namespace: "gc", labels: { "gc-case": id } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: id } },
          template: {
            metadata: { labels: { app: id } },
            spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
          },
        },
      });
      const owner = {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: id,
        uid: String(rs.metadata?.uid),
        controller: true,
        blockOwnerDeletion: true,
      };
      for (const [suffix, finalizers] of [
        ["free", []],
        ["held", [HOLD]],
      ] as const)
        await create({
          apiVersion: "v1",
          kind: "Pod",
          metadata: {
            name: `${id}-${suffix}`,
            namespace: "gc",
            labels: { app: id },
            ownerReferences: [owner],
            ...(finalizers.length > 0 ? { finalizers: [...finalizers] } : {}),
          },
          spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
        });
    };
    const release = async (name: string) =>
      expect(
        (
          await kubectl([
            "patch",
            "pod",
            "-n",
            "gc",
            name,
            "--type=merge",
            "-p",
            '{"metadata":{"finalizers":null}}',
          ])
        ).code,
      ).toBe(0);
    const removePolicy = async (kind: string, id: string) => {
      const args = kind === "CleanupPolicy" ? ["-n", "gc"] : [];
      expect((await kubectl(["delete", kind.toLowerCase(), id, ...args])).code).toBe(0);
    };

    const cases: Array<[string, Propagation]> = [
      ["ClusterCleanupPolicy", "Orphan"],
      ["CleanupPolicy", "Orphan"],
      ["DeletingPolicy", "Orphan"],
      ["ClusterCleanupPolicy", "Background"],
      ["ClusterCleanupPolicy", "Foreground"],
      ["CleanupPolicy", "Foreground"],
      ["DeletingPolicy", "Foreground"],
    ];
    it.each(cases)(
      "a %s with deletionPropagationPolicy %s",
      async (kind, propagation) => {
        const id = `${kind.toLowerCase()}-${propagation.toLowerCase()}`;
        await family(id);
        await applyPolicy(policyFor(kind, id, propagation));
        const rs = () => obj("ReplicaSet", "gc", id, "apps/v1");
        const pod = (suffix: string) => obj("Pod", "gc", `${id}-${suffix}`);
        if (propagation === "Orphan") {
          await until(async () => (await rs()) === undefined, 20_000, "the ReplicaSet deleted");
          await removePolicy(kind, id);
          // The dependents are kept, their references to the deleted owner removed.
          await until(
            async () => (await pod("free"))?.metadata?.ownerReferences === undefined,
            10_000,
            "ownerReferences removed",
          );
          for (const suffix of ["free", "held"]) {
            const kept = await pod(suffix);
            expect(kept?.metadata?.deletionTimestamp).toBeUndefined();
            expect(kept?.metadata?.ownerReferences).toBeUndefined();
          }
          await release(`${id}-held`);
          return;
        }
        if (propagation === "Background") {
          // The owner goes at once; its dependents after it (the held one waits for its finalizer).
          await until(async () => (await rs()) === undefined, 20_000, "the ReplicaSet deleted");
          await removePolicy(kind, id);
          await until(async () => (await pod("free")) === undefined, 10_000, "the free Pod deleted");
          await until(
            async () => typeof (await pod("held"))?.metadata?.deletionTimestamp === "string",
            10_000,
            "the held Pod being deleted",
          );
        } else {
          // Foreground: the owner waits, marked, until its dependents are gone.
          await until(async () => (await pod("free")) === undefined, 20_000, "the free Pod deleted");
          await removePolicy(kind, id);
          const owner = await rs();
          expect(typeof owner?.metadata?.deletionTimestamp).toBe("string");
          expect(owner?.metadata?.finalizers).toContain("foregroundDeletion");
          expect(typeof (await pod("held"))?.metadata?.deletionTimestamp).toBe("string");
        }
        await release(`${id}-held`);
        await until(async () => (await pod("held")) === undefined, 10_000, "the held Pod deleted");
        await until(async () => (await rs()) === undefined, 10_000, "the ReplicaSet deleted");
      },
      40_000,
    );
  },
);

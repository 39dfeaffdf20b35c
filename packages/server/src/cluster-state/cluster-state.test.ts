/**
 * The shared cluster state watches what a controller opted into, and nothing else: without a policy
 * cache (the cleanup controller) only Namespaces; with a CEL policy store and `celKinds` (the
 * background controller) only those `policies.kyverno.io` kinds, whose policies then reach the store
 * and the subscribers as `celPolicy` changes without any policy cache.
 */
import { fileURLToPath } from "node:url";
import { createCelEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../logger.js";
import { createCelPolicyStore } from "../policycache/cel-policy-store.js";
import { KYVERNO_CRDS, until } from "../testing/cluster.js";
import type { ClusterChange } from "./changes.js";
import { createClusterState } from "./cluster-state.js";

const CRD_DIR = new URL("../../../../../shared/reference/kyverno-crds/policies.kyverno.io/", import.meta.url);
const CEL_CRDS = ["generatingpolicies", "validatingpolicies"].map((plural) =>
  fileURLToPath(new URL(`policies.kyverno.io_${plural}.yaml`, CRD_DIR)),
);

const GENERATING = {
  apiVersion: "policies.kyverno.io/v1",
  kind: "GeneratingPolicy",
  metadata: { name: "team-defaults" },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] },
      ],
    },
    generate: [{ expression: "generator.Apply(object.metadata.name, [])" }],
  },
};

/** A client that records the kinds it lists (an informer lists before it watches). */
function recordingLists(client: KubeClient): { client: KubeClient; listed: Set<string> } {
  const listed = new Set<string>();
  const recording = new Proxy(client, {
    get(target, property, receiver) {
      if (property === "list")
        return (query: { apiVersion: string; kind: string }, ...rest: unknown[]) => {
          listed.add(`${query.apiVersion} ${query.kind}`);
          return (target.list as (...args: unknown[]) => unknown)(query, ...rest);
        };
      return Reflect.get(target, property, receiver);
    },
  });
  return { client: recording, listed };
}

describe("createClusterState", () => {
  let sandbox: Sandbox;
  let client: KubeClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: [...KYVERNO_CRDS, ...CEL_CRDS] });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    await client.create({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "team-a", labels: { t: "a" } },
    });
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  it("without a policy cache watches Namespaces only (the cleanup controller)", async () => {
    const { client: recording, listed } = recordingLists(client);
    const state = createClusterState({ client: recording, logger: silentLogger(), exceptionNamespaces: [] });
    await state.start();
    try {
      expect(state.synced()).toBe(true);
      expect([...listed]).toEqual(["v1 Namespace"]);
      expect(state.namespaceLabels("team-a")).toMatchObject({ t: "a" });
      expect(state.policyKeys()).toEqual([]);
      expect(state.policyObject("anything")).toBeUndefined();
    } finally {
      await state.stop();
    }
  });

  it("with a CEL store and celKinds watches those kinds only, and announces their policies", async () => {
    const { client: recording, listed } = recordingLists(client);
    const store = createCelPolicyStore({ engine: createCelEngine({}) });
    const state = createClusterState({
      client: recording,
      logger: silentLogger(),
      exceptionNamespaces: [],
      celPolicies: store,
      celKinds: ["GeneratingPolicy", "MutatingPolicy"],
    });
    const changes: ClusterChange[] = [];
    state.subscribe((change) => changes.push(change));
    await state.start();
    try {
      // MutatingPolicy's CRD is not installed: asked about, not watched; ValidatingPolicy not even asked.
      expect([...listed].sort()).toEqual(["policies.kyverno.io/v1 GeneratingPolicy", "v1 Namespace"]);
      await client.create(GENERATING);
      const key = "GeneratingPolicy/team-defaults";
      await until(
        () => changes.some((c) => c.type === "celPolicy" && c.key === key),
        10_000,
        "celPolicy change",
      );
      expect(store.get(key)?.compiled.name).toBe("team-defaults");
      expect(state.policyKeys()).toEqual([key]);
      expect(state.policyObject(key)?.metadata?.name).toBe("team-defaults");
    } finally {
      await state.stop();
    }
  });
});

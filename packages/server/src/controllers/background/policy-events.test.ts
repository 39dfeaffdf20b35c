/**
 * A deleted policy's synchronized downstream, against the sandbox API server: what the policy
 * generated is deleted, and only that. A ClusterPolicy and a Policy may share a name and a rule name;
 * the `generate.kyverno.io/policy-namespace` label tells their downstream apart.
 */
import { type KubeObject, loadPolicy, type Policy } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../logger.js";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import { read } from "../../testing/cluster.js";
import { createPolicyEvents } from "./policy-events.js";

const defaults = (namespace?: string) => ({
  apiVersion: "kyverno.io/v1",
  kind: namespace ? "Policy" : "ClusterPolicy",
  metadata: { name: "defaults", ...(namespace ? { namespace } : {}) },
  spec: {
    rules: [
      {
        name: "settings",
        match: { any: [{ resources: { kinds: ["ConfigMap"], names: ["trigger"] } }] },
        generate: {
          synchronize: true,
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "settings",
          namespace: namespace ?? "{{request.object.metadata.namespace}}",
          data: { data: { a: "b" } },
        },
      },
    ],
  },
});

describe("a deleted policy's downstream", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  beforeAll(async () => {
    sandbox = await startSandbox({});
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    for (const name of ["one", "team"])
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  }, 30_000);
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  /** A ConfigMap as the background controller generates it for a policy (its generate labels). */
  const generated = (namespace: string, policyNamespace: string) =>
    client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "settings",
        namespace,
        labels: {
          "app.kubernetes.io/managed-by": "kyverno",
          "generate.kyverno.io/policy-name": "defaults",
          "generate.kyverno.io/policy-namespace": policyNamespace,
          "generate.kyverno.io/rule-name": "settings",
        },
      },
      data: { a: "b" },
    });

  it("deleting the ClusterPolicy keeps what the Policy of the same name generated, and the other way round", async () => {
    await generated("one", "");
    await generated("team", "team");
    const engine = createEngine({});
    const cache = createPolicyCache({ engine });
    for (const p of [defaults(), defaults("team")]) {
      const loaded = loadPolicy(p, { file: `${p.kind}.yaml` });
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
      expect(cache.set(loaded.value as Policy).ready).toBe(true);
    }
    const events = createPolicyEvents({
      client,
      cache,
      engine,
      logger: silentLogger(),
      intents: { add: () => true },
      isLeader: () => true,
      exists: () => false,
    });
    const configMap = (namespace: string) =>
      read(client, { apiVersion: "v1", kind: "ConfigMap", namespace, name: "settings" }) as Promise<
        KubeObject | undefined
      >;
    const cluster = cache.get("defaults");
    const namespaced = cache.get("team/defaults");
    expect(cluster && namespaced).toBeDefined();
    await events.changed("defaults", cluster, undefined);
    expect(await configMap("one")).toBeUndefined();
    expect(await configMap("team")).toBeDefined();
    await generated("one", "");
    await events.changed("team/defaults", namespaced, undefined);
    expect(await configMap("team")).toBeUndefined();
    expect(await configMap("one")).toBeDefined();
  });
});

import type { CelPolicy, KubeObject } from "@kyverno-ts/api";
import { createCelEngine, createEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import type { ScanContext } from "../../external-data/scan-context.js";
import { silentLogger } from "../../logger.js";
import { createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { createPolicyCache } from "../../policycache/policy-cache.js";
import { celMutateIntent, processCelMutate } from "./cel-mutate.js";
import {
  asUpdateRequest,
  celRequestPolicyKey,
  type UpdateRequest,
  updateRequestFor,
} from "./update-request.js";

const secret = (name: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace: "app", uid: `uid-${name}` },
});
const configMap = (name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "app", labels, resourceVersion: "1" },
});

const policy = (kind = "MutatingPolicy", namespace?: string): CelPolicy =>
  ({
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "stamp", ...(namespace ? { namespace } : {}) },
    spec: {
      evaluation: { mutateExisting: { enabled: true } },
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["secrets"] },
        ],
      },
      matchConditions: [{ name: "triggers", expression: "object.metadata.name.startsWith('trigger-')" }],
      variables: [{ name: "trigger", expression: "request.object.metadata.name" }],
      targetMatchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["configmaps"] },
        ],
      },
      targetMatchConditions: [
        { name: "web", expression: "object.metadata.?labels['team'].orValue('') == 'web'" },
      ],
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: {
            expression: "Object{metadata: Object.metadata{labels: {'triggered-by': variables.trigger}}}",
          },
        },
      ],
    },
  }) as unknown as CelPolicy;

/** A cluster of one trigger Secret and ConfigMaps; the first `conflicts` updates answer 409. */
function fakeCluster(configMaps: KubeObject[], conflicts = 0) {
  const objects = new Map(configMaps.map((o) => [o.metadata?.name ?? "", o]));
  const updates: KubeObject[] = [];
  let refused = 0;
  const client = {
    async get(ref: { kind: string; name: string }) {
      if (ref.kind === "Secret" && ref.name.startsWith("trigger-"))
        return { ok: true, status: 200, value: secret(ref.name) };
      const o = ref.kind === "ConfigMap" ? objects.get(ref.name) : undefined;
      return o
        ? { ok: true, status: 200, value: o }
        : { ok: false, status: 404, reason: "NotFound", message: "" };
    },
    async list(ref: { kind: string }) {
      return {
        ok: true,
        status: 200,
        value: { items: ref.kind === "ConfigMap" ? [...objects.values()] : [] },
      };
    },
    async update(o: KubeObject) {
      if (refused < conflicts) {
        refused++;
        // Someone else wrote the target meanwhile: a newer resourceVersion.
        const name = o.metadata?.name ?? "";
        const current = objects.get(name) as KubeObject;
        objects.set(name, {
          ...current,
          metadata: { ...current.metadata, resourceVersion: `${refused + 1}` },
        });
        return { ok: false, status: 409, reason: "Conflict", message: "the object has been modified" };
      }
      updates.push(o);
      objects.set(o.metadata?.name ?? "", o);
      return { ok: true, status: 200, value: o };
    },
  };
  return { client: client as unknown as KubeClient, objects, updates };
}

const scan = {
  loader: {},
  evaluate: <T>(fn: () => T) => Promise.resolve(fn()),
  clear: () => undefined,
} as unknown as ScanContext;

function setup(cluster: ReturnType<typeof fakeCluster>, p: CelPolicy = policy()) {
  const celEngine = createCelEngine();
  const celPolicies = createCelPolicyStore({ engine: celEngine });
  expect(celPolicies.set(p).ready).toBe(true);
  const engine = createEngine();
  const deps = {
    client: cluster.client,
    cache: createPolicyCache({ engine }),
    engine,
    scan,
    logger: silentLogger(),
    namespaceLabels: () => undefined,
    user: "system:serviceaccount:kyverno:kyverno-background-controller",
    celEngine,
    celPolicies,
  };
  return { deps, celEngine, celPolicies };
}

const urFor = (policyRef: string, trigger = "trigger-1"): UpdateRequest =>
  updateRequestFor(
    {
      requestType: "cel-mutate",
      policy: policyRef,
      rules: ["stamp"],
      deleteDownstream: false,
      operation: "CREATE",
      trigger: { apiVersion: "v1", kind: "Secret", namespace: "app", name: trigger, uid: `uid-${trigger}` },
    },
    "kyverno",
  );

describe("cel-mutate UpdateRequests", () => {
  it("are upstream's request type, naming the policy by name or namespace/name", () => {
    const ur = urFor("stamp");
    expect(asUpdateRequest(ur as unknown as KubeObject)?.spec.requestType).toBe("cel-mutate");
    expect(celRequestPolicyKey("cel-mutate", "stamp")).toBe("MutatingPolicy/stamp");
    expect(celRequestPolicyKey("cel-mutate", "app/stamp")).toBe("NamespacedMutatingPolicy/app/stamp");
    expect(celRequestPolicyKey("cel-generate", "app/g")).toBe("NamespacedGeneratingPolicy/app/g");
  });

  it("are asked for a trigger the policy matches, not for others", () => {
    const { celEngine, celPolicies } = setup(fakeCluster([]));
    const cached = celPolicies.get("MutatingPolicy/stamp");
    if (cached === undefined) throw new Error("not compiled");
    const ref = { apiVersion: "v1", kind: "Secret", namespace: "app", name: "", uid: "" };
    const matched = celMutateIntent(
      celEngine,
      cached,
      { resource: secret("trigger-1"), operation: "CREATE" },
      { ...ref, name: "trigger-1" },
      { operation: "CREATE" },
    );
    expect(matched).toMatchObject({ requestType: "cel-mutate", policy: "stamp", rules: ["stamp"] });
    const other = celMutateIntent(
      celEngine,
      cached,
      { resource: secret("plain"), operation: "CREATE" },
      { ...ref, name: "plain" },
      {},
    );
    expect(other).toBeUndefined();
  });

  it("patch the targets the conditions select, with the trigger's variables, and leave the others", async () => {
    const cluster = fakeCluster([configMap("settings", { team: "web" }), configMap("other", { team: "db" })]);
    const { deps } = setup(cluster);
    const outcome = await processCelMutate(deps, urFor("stamp"), new AbortController().signal);
    expect(outcome).toMatchObject({ state: "Completed", message: "1 target(s) mutated" });
    expect(cluster.updates.map((u) => [u.metadata?.name, u.metadata?.labels])).toEqual([
      ["settings", { team: "web", "triggered-by": "trigger-1" }],
    ]);
  });

  it("evaluate again when a target changed meanwhile (409), and give up after five conflicts", async () => {
    const retried = fakeCluster([configMap("settings", { team: "web" })], 2);
    const first = await processCelMutate(setup(retried).deps, urFor("stamp"), new AbortController().signal);
    expect(first.state).toBe("Completed");
    expect(retried.updates[0]?.metadata?.resourceVersion).toBe("3");
    const busy = fakeCluster([configMap("settings", { team: "web" })], 99);
    const given = await processCelMutate(setup(busy).deps, urFor("stamp"), new AbortController().signal);
    expect(given).toMatchObject({ state: "Failed", message: expect.stringContaining("5 attempts") });
  });

  it("fail a NamespacedMutatingPolicy whose targets reach outside its namespace, writing nothing", async () => {
    const outside = {
      ...configMap("shared", { team: "web" }),
      metadata: { name: "shared", namespace: "ops" },
    };
    const cluster = fakeCluster([outside]);
    const namespaced = policy("NamespacedMutatingPolicy", "app");
    const spec = namespaced.spec as unknown as Record<string, unknown>;
    spec.targetMatchConstraints = { expression: 'resource.Get("v1", "configmaps", "ops", "shared")' };
    delete spec.targetMatchConditions;
    const outcome = await processCelMutate(
      setup(cluster, namespaced).deps,
      urFor("app/stamp"),
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({
      state: "Failed",
      message: expect.stringContaining("mutates only in its namespace app, not ConfigMap ops/shared"),
    });
    expect(cluster.updates).toEqual([]);
  });

  it("skip when the policy is gone or the trigger no longer matches", async () => {
    const cluster = fakeCluster([configMap("settings", { team: "web" })]);
    const { deps } = setup(cluster);
    expect((await processCelMutate(deps, urFor("gone"), new AbortController().signal)).state).toBe("Skip");
    // A NamespacedMutatingPolicy of another namespace does not apply to a trigger in `app`.
    const elsewhere = setup(cluster, policy("NamespacedMutatingPolicy", "ops")).deps;
    const skipped = await processCelMutate(elsewhere, urFor("ops/stamp"), new AbortController().signal);
    expect(skipped.state).toBe("Skip");
    expect(cluster.updates).toEqual([]);
  });
});

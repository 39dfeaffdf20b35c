import type { KubeObject } from "@kyverno-ts/api";
import { type ApiFailure, createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyDownstream, downstreamLabels, inSync } from "./downstream.js";

const desired: KubeObject = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "regcred", namespace: "team-a", labels: { "generate.kyverno.io/rule-name": "r" } },
  data: { token: "b25l" },
};

describe("downstream", () => {
  it("tells drift from server defaults: added Secret keys and changed values are drift, defaults are not", () => {
    const fromServer = {
      ...desired,
      type: "Opaque",
      metadata: { ...desired.metadata, uid: "u", resourceVersion: "3" },
    };
    expect(inSync(fromServer as KubeObject, desired)).toBe(true);
    expect(inSync({ ...fromServer, data: { token: "dHdv" } } as KubeObject, desired)).toBe(false);
    expect(inSync({ ...fromServer, data: { token: "b25l", extra: "eA==" } } as KubeObject, desired)).toBe(
      false,
    );
    const noLabel = { ...fromServer, metadata: { ...fromServer.metadata, labels: {} } };
    expect(inSync(noLabel as KubeObject, desired)).toBe(false);
  });

  it("labels a clone with upstream's source labels and the trigger's name (label values only)", () => {
    const labels = downstreamLabels(
      {
        object: desired,
        labels: {
          "generate.kyverno.io/policy-name": "p",
          "generate.kyverno.io/clone-source": "shared/regcred",
        },
      },
      "team-a",
    );
    expect(labels).toEqual({
      "generate.kyverno.io/policy-name": "p",
      "generate.kyverno.io/trigger-name": "team-a",
      "generate.kyverno.io/source-namespace": "shared",
      "generate.kyverno.io/source-name": "regcred",
      "generate.kyverno.io/source-kind": "Secret",
      "generate.kyverno.io/source-group": "",
      "generate.kyverno.io/source-version": "v1",
    });
    const long = downstreamLabels({ object: desired, labels: {} }, "x".repeat(64));
    expect(long["generate.kyverno.io/trigger-name"]).toBeUndefined();
  });
});

describe("applyDownstream's calls", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let calls: string[] = [];
  const signal = new AbortController().signal;
  beforeAll(async () => {
    sandbox = await startSandbox({});
    client = createKubeClient({
      kubeconfigPath: sandbox.kubeconfigPath,
      qps: 0,
      onQuery: (e) => calls.push(`${e.operation} ${e.status}`),
    });
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "gen" } });
  }, 30_000);
  afterAll(async () => {
    client?.close();
    await sandbox?.stop();
  });

  const ours = (name: string, value: string): KubeObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace: "gen",
      labels: { "generate.kyverno.io/policy-name": "p", "generate.kyverno.io/rule-name": "r" },
    },
    data: { owner: value },
  });
  const stored = async (name: string) =>
    (await client.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "gen", name })) as {
      ok: boolean;
      value?: KubeObject;
    };
  const apply = async (
    ...args: Parameters<typeof applyDownstream> extends [unknown, ...infer R] ? R : never
  ) => {
    calls = [];
    const result = await applyDownstream(client, ...args);
    return { result, calls: [...calls] };
  };

  it("creates a missing object of a rule without synchronize in one call, and leaves an existing one", async () => {
    expect(await apply(ours("plain", "a"), false, signal)).toEqual({
      result: { ok: true, outcome: "created" },
      calls: ["create 201"],
    });
    // Someone changed it: without synchronize it stays as it is (AlreadyExists answers, no read).
    expect(await apply(ours("plain", "b"), false, signal)).toEqual({
      result: { ok: true, outcome: "unchanged" },
      calls: ["create 409"],
    });
    expect((await stored("plain")).value?.data).toEqual({ owner: "a" });
  });

  it("reads first when a synchronized object may exist, and creates at once when the informer lacks it", async () => {
    expect(await apply(ours("synced", "a"), true, signal, "unknown")).toEqual({
      result: { ok: true, outcome: "created" },
      calls: ["get 404", "create 201"],
    });
    expect(await apply(ours("synced", "b"), true, signal, "present")).toEqual({
      result: { ok: true, outcome: "updated" },
      calls: ["get 200", "update 200"],
    });
    expect(await apply(ours("fresh", "a"), true, signal, "absent")).toEqual({
      result: { ok: true, outcome: "created" },
      calls: ["create 201"],
    });
  });

  it("still synchronizes an object the informer wrongly thought absent (it lags)", async () => {
    expect(await apply(ours("synced", "c"), true, signal, "absent")).toEqual({
      result: { ok: true, outcome: "updated" },
      calls: ["create 409", "get 200", "update 200"],
    });
    expect((await stored("synced")).value?.data).toEqual({ owner: "c" });
    // And an object gone although the informer still has it is created again.
    await client.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "gen", name: "synced" });
    expect(await apply(ours("synced", "d"), true, signal, "present")).toEqual({
      result: { ok: true, outcome: "created" },
      calls: ["get 404", "create 201"],
    });
  });

  it("never takes over an object it did not generate, whatever the informer says", async () => {
    await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "theirs", namespace: "gen" },
      data: { owner: "them" },
    });
    expect((await apply(ours("theirs", "a"), true, signal, "absent")).result).toEqual({
      ok: true,
      outcome: "skipped",
    });
    expect((await stored("theirs")).value?.data).toEqual({ owner: "them" });
  });
});

describe("applyDownstream without the create permission", () => {
  it("finds an existing object by reading it, as upstream's read-first would, and fails only when it is missing", async () => {
    const calls: string[] = [];
    const existing: KubeObject = { ...desired, metadata: { ...desired.metadata, resourceVersion: "7" } };
    let stored: KubeObject | undefined = existing;
    const forbidden = { ok: false, status: 403, reason: "Forbidden", message: "cannot create secrets" };
    const client = {
      async create() {
        calls.push("create");
        return forbidden;
      },
      async get() {
        calls.push("get");
        return stored
          ? { ok: true, status: 200, value: stored }
          : { ok: false, status: 404, reason: "NotFound", message: "not found" };
      },
    } as unknown as KubeClient;
    const signal = new AbortController().signal;
    expect(await applyDownstream(client, desired, false, signal)).toEqual({ ok: true, outcome: "unchanged" });
    expect(calls).toEqual(["create", "get"]);
    stored = undefined;
    const missing = (await applyDownstream(client, desired, false, signal)) as {
      ok: boolean;
      failure?: ApiFailure;
    };
    expect(missing.ok).toBe(false);
    expect(missing.failure).toMatchObject({ reason: "Forbidden" });
  });
});

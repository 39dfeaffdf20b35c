import { KYVERNO_CRDS } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";
import { raw } from "./raw.js";

interface Obj {
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    generation?: number;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  status?: Record<string, unknown>;
  spec?: Record<string, unknown>;
  items?: Obj[];
}

describe("object semantics", () => {
  let sandbox: Sandbox;
  const call = async (method: string, path: string, body?: unknown, contentType = "application/json") => {
    const options: { token: string; body?: string; contentType: string } = {
      token: sandbox.users["kubernetes-admin"] ?? "",
      contentType,
    };
    if (body !== undefined) options.body = JSON.stringify(body);
    const res = await raw(sandbox, method, path, options);
    return { status: res.status, body: JSON.parse(res.body) as Obj & Record<string, unknown> };
  };
  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: [`${KYVERNO_CRDS}kyverno/kyverno.io_clusterpolicies.yaml`],
    });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("keeps status and spec apart with the status subresource of a custom resource", async () => {
    const base = "/apis/kyverno.io/v1/clusterpolicies";
    const created = await call("POST", base, {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "p" },
      spec: { rules: [] },
      status: { ready: true },
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBeUndefined();
    expect(created.body.metadata.generation).toBe(1);
    const statusPut = await call("PUT", `${base}/p/status`, {
      ...created.body,
      spec: { rules: [], background: false },
      status: { ready: true },
    });
    expect(statusPut.body.status).toMatchObject({ ready: true });
    expect(statusPut.body.spec?.background).toBe(true);
    expect(statusPut.body.metadata.generation).toBe(1);
    const mainPut = await call("PUT", `${base}/p`, {
      ...statusPut.body,
      spec: { ...statusPut.body.spec, background: false },
      status: { ready: false },
    });
    expect(mainPut.body.status).toMatchObject({ ready: true });
    expect(mainPut.body.metadata.generation).toBe(2);
    const noRv = await call("PUT", `${base}/p`, { ...mainPut.body, metadata: { name: "p" } });
    expect(noRv.status).toBe(422);
    expect(noRv.body.message).toContain(
      "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update",
    );
  });

  it("deletes with Foreground (dependents first) and Orphan (references dropped) propagation", async () => {
    const ns = "/api/v1/namespaces/default";
    const owner = await call("POST", `${ns}/configmaps`, { metadata: { name: "fg-owner" } });
    const ref = {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "fg-owner",
      uid: owner.body.metadata.uid,
      blockOwnerDeletion: true,
    };
    await call("POST", `${ns}/secrets`, { metadata: { name: "fg-dep", ownerReferences: [ref] } });
    const del = await call("DELETE", `${ns}/configmaps/fg-owner`, { propagationPolicy: "Foreground" });
    expect(del.status).toBe(200);
    expect(del.body.metadata.finalizers).toEqual(["foregroundDeletion"]);
    expect(del.body.metadata.deletionTimestamp).toBeDefined();
    await sandbox.settled();
    expect((await call("GET", `${ns}/secrets/fg-dep`)).status).toBe(404);
    expect((await call("GET", `${ns}/configmaps/fg-owner`)).status).toBe(404);

    const orphanOwner = await call("POST", `${ns}/configmaps`, { metadata: { name: "or-owner" } });
    const oref = {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "or-owner",
      uid: orphanOwner.body.metadata.uid,
    };
    await call("POST", `${ns}/secrets`, { metadata: { name: "or-dep", ownerReferences: [oref] } });
    await call("DELETE", `${ns}/configmaps/or-owner?propagationPolicy=Orphan`);
    await sandbox.settled();
    const orphan = await call("GET", `${ns}/secrets/or-dep`);
    expect(orphan.status).toBe(200);
    expect((orphan.body.metadata as { ownerReferences?: unknown }).ownerReferences).toBeUndefined();
    expect((await call("GET", `${ns}/configmaps/or-owner`)).status).toBe(404);
  });

  it("turns selection changes into ADDED/DELETED watch events and supports sendInitialEvents", async () => {
    const ns = "/api/v1/namespaces/default";
    await call("POST", `${ns}/configmaps`, { metadata: { name: "w1", labels: { watch: "yes" } } });
    const rv = (await call("GET", `${ns}/configmaps`)).body.metadata.resourceVersion;
    const watching = raw(
      sandbox,
      "GET",
      `${ns}/configmaps?watch=true&labelSelector=watch%3Dyes&resourceVersion=${rv}&timeoutSeconds=1`,
      { token: sandbox.users["kubernetes-admin"] ?? "" },
    );
    await new Promise((r) => setTimeout(r, 50));
    await call(
      "PATCH",
      `${ns}/configmaps/w1`,
      { metadata: { labels: { watch: "no" } } },
      "application/merge-patch+json",
    );
    await call(
      "PATCH",
      `${ns}/configmaps/w1`,
      { metadata: { labels: { watch: "yes" } } },
      "application/merge-patch+json",
    );
    await call("PATCH", `${ns}/configmaps/w1`, { data: { a: "b" } }, "application/merge-patch+json");
    const events = (await watching).body
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(events.map((e) => e.type)).toEqual(["DELETED", "ADDED", "MODIFIED"]);

    const initial = await raw(
      sandbox,
      "GET",
      `${ns}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dw1`,
      {
        token: sandbox.users["kubernetes-admin"] ?? "",
      },
    );
    const types = initial.body
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as { type: string; object: { metadata: { annotations?: Record<string, string> } } },
      );
    expect(types[0]?.type).toBe("ADDED");
    expect(types[1]).toMatchObject({
      type: "BOOKMARK",
      object: { metadata: { annotations: { "k8s.io/initial-events-end": "true" } } },
    });
  });

  it("lists at an exact older resourceVersion and stops serving a CRD's objects when it is deleted", async () => {
    const ns = "/api/v1/namespaces/default";
    const before = (await call("GET", `${ns}/configmaps`)).body;
    await call("POST", `${ns}/configmaps`, { metadata: { name: "later" } });
    const exact = await call(
      "GET",
      `${ns}/configmaps?resourceVersion=${before.metadata.resourceVersion}&resourceVersionMatch=Exact`,
    );
    expect(exact.body.items?.map((i) => i.metadata.name)).toEqual(before.items?.map((i) => i.metadata.name));
    const del = await call(
      "DELETE",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterpolicies.kyverno.io",
    );
    expect(del.status).toBe(200);
    expect((await call("GET", "/apis/kyverno.io/v1/clusterpolicies")).status).toBe(404);
  });
});

import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";

const until = async (check: () => boolean, ms = 3000): Promise<void> => {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
};

const pod = (name: string, labels: Record<string, string> = {}): k8s.V1Pod => ({
  metadata: { name, labels },
  spec: { containers: [{ name: "c", image: "nginx" }] },
});

interface ApiError {
  code?: number;
  body?: string;
}
const statusOf = async (p: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> => {
  try {
    await p;
  } catch (e) {
    const err = e as ApiError;
    return { code: err.code ?? 0, body: JSON.parse(err.body ?? "{}") as Record<string, unknown> };
  }
  throw new Error("expected the request to fail");
};

describe("@kubernetes/client-node against the sandbox", () => {
  let sandbox: Sandbox;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;

  beforeAll(async () => {
    sandbox = await startSandbox({
      watchHistorySize: 20,
      users: [{ username: "system:serviceaccount:argocd:controller", clusterRoles: ["view"] }],
    });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(sandbox.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("does CRUD with resourceVersion, generation and 404/409 Status errors", async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "crud" }, data: { a: "1" } },
    });
    const rv = Number(created.metadata?.resourceVersion);
    expect(rv).toBeGreaterThan(0);
    const read = await core.readNamespacedConfigMap({ namespace: "default", name: "crud" });
    expect(read.data).toEqual({ a: "1" });
    const updated = await core.replaceNamespacedConfigMap({
      namespace: "default",
      name: "crud",
      body: { ...read, data: { a: "2" } },
    });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(rv);
    const stale = await statusOf(
      core.replaceNamespacedConfigMap({
        namespace: "default",
        name: "crud",
        body: { ...read, data: { a: "3" } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.body).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Conflict",
      details: { name: "crud", kind: "configmaps" },
    });
    const dup = await statusOf(
      core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "crud" } } }),
    );
    expect(dup.body).toMatchObject({
      reason: "AlreadyExists",
      code: 409,
      message: 'configmaps "crud" already exists',
    });
    await core.deleteNamespacedConfigMap({ namespace: "default", name: "crud" });
    const gone = await statusOf(core.readNamespacedConfigMap({ namespace: "default", name: "crud" }));
    expect(gone.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps "crud" not found',
      reason: "NotFound",
      details: { name: "crud", kind: "configmaps" },
      code: 404,
    });
    const d = await apps.createNamespacedDeployment({
      namespace: "default",
      body: {
        metadata: { name: "gen" },
        spec: {
          selector: { matchLabels: { a: "b" } },
          template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } },
        },
      },
    });
    expect(d.metadata?.generation).toBe(1);
    const scaled = await apps.patchNamespacedDeployment(
      { namespace: "default", name: "gen", body: { spec: { replicas: 5 } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    expect(scaled.metadata?.generation).toBe(2);
    const relabeled = await apps.patchNamespacedDeployment(
      { namespace: "default", name: "gen", body: { metadata: { labels: { x: "y" } } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    expect(relabeled.metadata?.generation).toBe(2);
  });

  it("filters lists with label and field selectors and pages with limit/continue on a snapshot", async () => {
    for (const [name, tier] of [
      ["s1", "web"],
      ["s2", "db"],
      ["s3", "web"],
      ["s4", "cache"],
    ] as const)
      await core.createNamespacedPod({ namespace: "default", body: pod(name, { tier, sel: "yes" }) });
    const names = async (labelSelector?: string, fieldSelector?: string): Promise<string[]> => {
      const opts: { namespace: string; labelSelector?: string; fieldSelector?: string } = {
        namespace: "default",
      };
      if (labelSelector !== undefined) opts.labelSelector = labelSelector;
      if (fieldSelector !== undefined) opts.fieldSelector = fieldSelector;
      return (await core.listNamespacedPod(opts)).items.map((p) => p.metadata?.name ?? "");
    };
    expect(await names("tier=web")).toEqual(["s1", "s3"]);
    expect(await names("sel,tier!=web")).toEqual(["s2", "s4"]);
    expect(await names("tier in (db,cache)")).toEqual(["s2", "s4"]);
    expect(await names("sel,tier notin (web)")).toEqual(["s2", "s4"]);
    expect(await names("!sel")).toEqual([]);
    expect(await names(undefined, "metadata.name=s2")).toEqual(["s2"]);
    expect(await names("sel", "metadata.name!=s2")).toEqual(["s1", "s3", "s4"]);
    const bad = await statusOf(
      core.listNamespacedPod({ namespace: "default", fieldSelector: "spec.bogus=1" }),
    );
    expect(bad.body).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: "field label not supported: spec.bogus",
    });

    const first = await core.listNamespacedPod({ namespace: "default", labelSelector: "sel", limit: 3 });
    expect(first.items.map((p) => p.metadata?.name)).toEqual(["s1", "s2", "s3"]);
    await core.createNamespacedPod({ namespace: "default", body: pod("s0", { sel: "yes" }) });
    const second = await core.listNamespacedPod({
      namespace: "default",
      labelSelector: "sel",
      limit: 3,
      _continue: first.metadata?._continue ?? "",
    });
    expect(second.items.map((p) => p.metadata?.name)).toEqual(["s4"]);
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect(second.metadata?._continue).toBeUndefined();
  });

  it("feeds an informer add/update/delete, resumes after a dropped connection and relists after 410", async () => {
    await core.createNamespace({ body: { metadata: { name: "inf" } } });
    const events: string[] = [];
    let lists = 0;
    const informer = k8s.makeInformer(kc, "/api/v1/namespaces/inf/pods", () => {
      lists++;
      return core.listNamespacedPod({ namespace: "inf" });
    });
    informer.on("add", (o) => events.push(`add ${o.metadata?.name}`));
    informer.on("update", (o) => events.push(`update ${o.metadata?.name}`));
    informer.on("delete", (o) => events.push(`delete ${o.metadata?.name}`));
    let running = true;
    informer.on("error", () => {
      if (!running) return;
      events.push("error");
      setTimeout(() => void informer.start(), 10);
    });
    await core.createNamespacedPod({ namespace: "inf", body: pod("before") });
    await informer.start();
    await until(() => events.includes("add before"));
    await core.createNamespacedPod({ namespace: "inf", body: pod("p1") });
    await core.patchNamespacedPod(
      { namespace: "inf", name: "p1", body: { metadata: { labels: { v: "2" } } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedPod({ namespace: "inf", name: "before" });
    await until(() => events.includes("delete before"));
    expect(events).toEqual(["add before", "add p1", "update p1", "delete before"]);
    expect(lists).toBe(1);

    sandbox.dropWatchConnections();
    await core.createNamespacedPod({ namespace: "inf", body: pod("while-down") });
    await until(() => events.includes("add while-down"));
    expect(events).toContain("error");
    expect(lists).toBe(1);

    running = false;
    await informer.stop();
    for (let i = 0; i < 25; i++)
      await core.createNamespacedConfigMap({ namespace: "inf", body: { metadata: { name: `churn-${i}` } } });
    await core.deleteNamespacedPod({ namespace: "inf", name: "p1" });
    running = true;
    await informer.start();
    await until(() => events.includes("delete p1"));
    expect(lists).toBe(2);
    running = false;
    await informer.stop();
  });

  it("sends BOOKMARKs, honours timeoutSeconds and reports 410 Gone as an ERROR event", async () => {
    const watch = new k8s.Watch(kc);
    const seen: Array<{ type: string; rv: string }> = [];
    const list = await core.listNamespacedConfigMap({ namespace: "default" });
    const done = new Promise<void>((resolve) => {
      void watch.watch(
        "/api/v1/namespaces/default/configmaps",
        {
          resourceVersion: list.metadata?.resourceVersion ?? "",
          allowWatchBookmarks: true,
          timeoutSeconds: 1,
        },
        (type: string, obj: k8s.V1ConfigMap) => seen.push({ type, rv: obj.metadata?.resourceVersion ?? "" }),
        () => resolve(),
      );
    });
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "watched" } } });
    await done;
    expect(seen.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
    const errors: Array<{ type: string; code: unknown }> = [];
    await new Promise<void>((resolve) => {
      void watch.watch(
        "/api/v1/namespaces/default/configmaps",
        { resourceVersion: "1" },
        (type: string, obj: { code?: number }) => errors.push({ type, code: obj.code }),
        () => resolve(),
      );
    });
    expect(errors).toEqual([{ type: "ERROR", code: 410 }]);
  });

  it("collects dependents of a deleted owner and empties deleted namespaces", async () => {
    const owner = await core.createNamespacedConfigMap({
      namespace: "default",
      body: { metadata: { name: "owner" } },
    });
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata?.uid ?? "" };
    await core.createNamespacedSecret({
      namespace: "default",
      body: { metadata: { name: "dependent", ownerReferences: [ref] } },
    });
    await core.deleteNamespacedConfigMap({ namespace: "default", name: "owner" });
    await sandbox.settled();
    expect(
      (await statusOf(core.readNamespacedSecret({ namespace: "default", name: "dependent" }))).code,
    ).toBe(404);

    await core.createNamespace({ body: { metadata: { name: "cascade" } } });
    await core.createNamespacedConfigMap({
      namespace: "cascade",
      body: { metadata: { name: "c", finalizers: ["example.com/hold"] } },
    });
    await core.deleteNamespace({ name: "cascade" });
    await sandbox.settled();
    const terminating = await core.readNamespace({ name: "cascade" });
    expect(terminating.status?.phase).toBe("Terminating");
    const forbidden = await statusOf(
      core.createNamespacedConfigMap({ namespace: "cascade", body: { metadata: { name: "late" } } }),
    );
    expect(forbidden.body).toMatchObject({ code: 403, reason: "Forbidden" });
    await core.patchNamespacedConfigMap(
      { namespace: "cascade", name: "c", body: { metadata: { finalizers: null } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    await sandbox.settled();
    expect((await statusOf(core.readNamespace({ name: "cascade" }))).code).toBe(404);
  });

  it("authenticates service accounts by token and rejects unknown tokens with 401", async () => {
    const sa = new k8s.KubeConfig();
    sa.loadFromFile(sandbox.kubeconfigPath);
    sa.setCurrentContext("system:serviceaccount:argocd:controller");
    const list = await sa.makeApiClient(k8s.CoreV1Api).listNamespace();
    expect(list.items.length).toBeGreaterThan(0);
    const res = await fetch(`${sandbox.url}/api/v1/namespaces`, {
      headers: { authorization: "Bearer nope" },
    }).catch((e: unknown) => e);
    expect(res).toBeInstanceOf(Error);
  });
});

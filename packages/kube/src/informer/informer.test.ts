import type { KubeObject } from "@kyverno-ts/api";
import { type Sandbox, type SandboxOptions, startSandbox } from "@kyverno-ts/sandbox";
import { afterEach, describe, expect, it } from "vitest";
import { createKubeClient, type KubeClient } from "../client/client.js";
import { queryLog, until, WIDGET_CRD } from "../testing/sandbox.js";
import { createInformer, type Informer, type InformerError, type InformerOptions } from "./informer.js";

const configMap = (name: string, namespace = "default", data: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace },
  data,
});

interface Recorded {
  log: string[];
  errors: InformerError[];
}

const record = (informer: Informer<KubeObject>): Recorded => {
  const recorded: Recorded = { log: [], errors: [] };
  const id = (o: KubeObject) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
  informer.on("add", (o) => recorded.log.push(`add ${id(o)}`));
  informer.on("update", (o, old) =>
    recorded.log.push(`update ${id(o)} ${JSON.stringify(old.data ?? {})}→${JSON.stringify(o.data ?? {})}`),
  );
  informer.on("delete", (o) => recorded.log.push(`delete ${id(o)}`));
  informer.on("synced", () => recorded.log.push("synced"));
  informer.on("error", (e) => recorded.errors.push(e));
  return recorded;
};

describe("informer against the sandbox", () => {
  let sandbox: Sandbox | undefined;
  let client: KubeClient | undefined;
  let informer: Informer<KubeObject> | undefined;
  const queries = queryLog();

  const setup = async (sandboxOptions: SandboxOptions, informerOptions: Partial<InformerOptions> = {}) => {
    sandbox = await startSandbox(sandboxOptions);
    queries.events.length = 0;
    client = createKubeClient({
      kubeconfigPath: sandbox.kubeconfigPath,
      qps: 1000,
      burst: 1000,
      onQuery: queries.onQuery,
    });
    informer = createInformer<KubeObject>({
      client,
      apiVersion: "v1",
      kind: "ConfigMap",
      delay: () => 20,
      ...informerOptions,
    });
    return { sandbox, client, informer };
  };

  afterEach(async () => {
    await informer?.stop();
    client?.close();
    await sandbox?.stop();
    informer = undefined;
    client = undefined;
    sandbox = undefined;
  });

  it("lists, then reports adds, updates and deletes and keeps the cache in step", async () => {
    const { client, informer } = await setup({});
    await client.create(configMap("before", "default", { v: "0" }));
    const recorded = record(informer);
    expect(informer.hasSynced()).toBe(false);
    await informer.start();
    expect(informer.hasSynced()).toBe(true);
    expect(recorded.log).toContain("add default/before");
    expect(recorded.log.at(-1)).toBe("synced");
    const listedCount = recorded.log.length;

    await client.create(configMap("live", "default", { v: "1" }));
    await client.patch(
      { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "live" },
      { type: "merge", patch: { data: { v: "2" } } },
    );
    await client.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "before" });
    await until(() => recorded.log.length >= listedCount + 3, 3000, "three events");
    expect(recorded.log.slice(listedCount)).toEqual([
      "add default/live",
      'update default/live {"v":"1"}→{"v":"2"}',
      "delete default/before",
    ]);
    expect(informer.get("default", "live")?.data).toEqual({ v: "2" });
    expect(informer.get("default", "before")).toBeUndefined();
    expect(informer.list("default").map((o) => o.metadata?.name)).toContain("live");
    expect(informer.list().length).toBeGreaterThanOrEqual(informer.list("default").length);
    expect(recorded.errors).toEqual([]);
  });

  it("watches one namespace with a label selector, and custom resources", async () => {
    const { client } = await setup({ crds: [WIDGET_CRD] });
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } });
    const widgets = createInformer<KubeObject>({
      client,
      apiVersion: "example.kyverno-ts.io/v1",
      kind: "Widget",
      namespace: "team",
      labelSelector: "tier=gold",
    });
    informer = widgets;
    const recorded = record(widgets);
    await widgets.start();
    const widget = (name: string, namespace: string, tier: string) => ({
      apiVersion: "example.kyverno-ts.io/v1",
      kind: "Widget",
      metadata: { name, namespace, labels: { tier } },
    });
    await client.create(widget("gold", "team", "gold"));
    await client.create(widget("silver", "team", "silver"));
    await client.create(widget("elsewhere", "default", "gold"));
    await until(() => recorded.log.includes("add team/gold"));
    // relabelling out of the selection is a delete
    await client.patch(
      { apiVersion: "example.kyverno-ts.io/v1", kind: "Widget", namespace: "team", name: "gold" },
      { type: "merge", patch: { metadata: { labels: { tier: "bronze" } } } },
    );
    await until(() => recorded.log.includes("delete team/gold"));
    expect(recorded.log).toEqual(["synced", "add team/gold", "delete team/gold"]);
    expect(widgets.list()).toEqual([]);
  });

  it("resumes from the last resourceVersion after the connection drops, without relisting", async () => {
    const { sandbox, client, informer } = await setup({});
    const recorded = record(informer);
    await informer.start();
    await client.create(configMap("one"));
    await until(() => recorded.log.includes("add default/one"));
    expect(queries.count("list")).toBe(1);
    expect(queries.count("watch")).toBe(1);

    sandbox.dropWatchConnections();
    await client.create(configMap("two"));
    await client.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "one" });
    await until(() => recorded.log.includes("delete default/one"), 3000, "events after the drop");
    expect(queries.count("list")).toBe(1);
    expect(queries.count("watch")).toBeGreaterThanOrEqual(2);
    expect(recorded.log.filter((l) => l.endsWith("/two"))).toEqual(["add default/two"]);
    expect(recorded.errors.every((e) => e.source === "watch")).toBe(true);
    expect(informer.list().map((o) => o.metadata?.name)).toContain("two");
    expect(informer.get("default", "one")).toBeUndefined();
  });

  it("relists on 410 Gone and reports what changed while it was away", async () => {
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { sandbox, client, informer } = await setup({ watchHistorySize: 5 }, { delay: () => 0 });
    await client.create(configMap("stays", "default", { v: "1" }));
    await client.create(configMap("goes"));
    const recorded = record(informer);
    // hold the informer's reconnection until the server has forgotten its resourceVersion
    const { watch } = client;
    let held = false;
    client.watch = async (query, onEvent) => {
      if (held) await blocked;
      return watch(query, onEvent);
    };
    await informer.start();
    await until(() => queries.count("watch") === 1, 3000, "the watch");
    const rvBefore = informer.lastResourceVersion();
    held = true;
    sandbox.dropWatchConnections();
    await client.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "goes" });
    await client.patch(
      { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "stays" },
      { type: "merge", patch: { data: { v: "2" } } },
    );
    await client.create(configMap("new"));
    for (let i = 0; i < 10; i++) await client.create(configMap(`other-${i}`, "kube-system"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await until(() => queries.count("list") === 2, 3000, "a relist");
    await until(() => recorded.log.includes("delete default/goes"), 3000, "the relist's events");
    expect(recorded.log).toContain("add default/new");
    expect(recorded.log).toContain('update default/stays {"v":"1"}→{"v":"2"}');
    expect(Number(informer.lastResourceVersion())).toBeGreaterThan(Number(rvBefore));
    const server = await client.list({ apiVersion: "v1", kind: "ConfigMap" });
    if (!server.ok) throw new Error("list failed");
    const names = (objects: KubeObject[]) =>
      objects.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();
    expect(names(informer.list())).toEqual(names(server.value.items));
    expect(recorded.log.filter((l) => l === "synced")).toHaveLength(1);
  });

  it("moves its resourceVersion forward on BOOKMARKs, so a quiet watch survives compaction", async () => {
    const { sandbox, client, informer } = await setup(
      { watchHistorySize: 5, bookmarkIntervalMs: 50 },
      { namespace: "default", labelSelector: "quiet=yes" },
    );
    await informer.start();
    const rvAtStart = Number(informer.lastResourceVersion());
    for (let i = 0; i < 20; i++) await client.create(configMap(`noise-${i}`, "kube-system"));
    await until(() => Number(informer.lastResourceVersion()) > rvAtStart + 10, 3000, "a bookmark");
    expect(queries.count("watch")).toBe(1);
    sandbox.dropWatchConnections();
    await client.create({
      ...configMap("quiet"),
      metadata: { name: "quiet", namespace: "default", labels: { quiet: "yes" } },
    });
    await until(() => informer.get("default", "quiet") !== undefined, 3000, "the event after the drop");
    // It watched again from the bookmarked resourceVersion (a busy machine may take a second attempt)
    // and never had to list again: the point of the bookmarks.
    expect(queries.count("watch")).toBeGreaterThanOrEqual(2);
    expect(queries.count("list")).toBe(1);
  });

  it("keeps what its transform makes of each listed page and watch event, and relists by it", async () => {
    interface Slim {
      metadata: { name?: string; namespace?: string; resourceVersion?: string };
      v: string;
    }
    const { sandbox, client } = await setup({ watchHistorySize: 5 });
    const labelled = (i: number) => {
      const cm = configMap(`listed-${i}`, "default", { v: `${i}` });
      return { ...cm, metadata: { ...cm.metadata, labels: { set: "listed" } } };
    };
    for (let i = 0; i < 5; i++) await client.create(labelled(i));
    const seen: KubeObject[] = [];
    const slim = createInformer<Slim, KubeObject>({
      client,
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "default",
      labelSelector: "set=listed",
      pageSize: 2,
      delay: () => 0,
      transform: (o) => {
        seen.push(o);
        const { name, namespace, resourceVersion } = o.metadata ?? {};
        const rv = typeof resourceVersion === "string" ? resourceVersion : undefined;
        const v = String((o.data as { v?: string } | undefined)?.v);
        return { metadata: { name, namespace, resourceVersion: rv }, v };
      },
    });
    informer = undefined;
    const log: string[] = [];
    slim.on("add", (o) => log.push(`add ${o.metadata.name} ${o.v}`));
    slim.on("update", (o, old) => log.push(`update ${o.metadata.name} ${old.v}→${o.v}`));
    slim.on("delete", (o) => log.push(`delete ${o.metadata.name} ${o.v}`));
    try {
      await slim.start();
      // Three pages, each object transformed once, and the cache holds only what the transform made.
      expect(queries.count("list")).toBe(3);
      expect(seen.map((o) => o.metadata?.name)).toEqual([0, 1, 2, 3, 4].map((i) => `listed-${i}`));
      expect(slim.get("default", "listed-3")).toEqual({
        metadata: { name: "listed-3", namespace: "default", resourceVersion: expect.any(String) },
        v: "3",
      });
      await client.patch(
        { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "listed-1" },
        { type: "merge", patch: { data: { v: "one" } } },
      );
      await until(() => slim.get("default", "listed-1")?.v === "one", 3000, "the watched update");
      expect(log.slice(5)).toEqual(["update listed-1 1→one"]);

      // A relist (the server forgot the watch's resourceVersion) tells changes by the transformed
      // objects' resourceVersions: only what changed meanwhile is an event.
      const { watch } = client;
      let release: () => void = () => undefined;
      const blocked = new Promise<void>((resolve) => {
        release = resolve;
      });
      client.watch = async (query, onEvent) => {
        await blocked;
        return watch(query, onEvent);
      };
      sandbox.dropWatchConnections();
      await client.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "listed-4" });
      await client.patch(
        { apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "listed-2" },
        { type: "merge", patch: { data: { v: "two" } } },
      );
      for (let i = 0; i < 10; i++) await client.create(configMap(`other-${i}`, "kube-system"));
      release();
      await until(() => log.includes("delete listed-4 4"), 3000, "the relist's events");
      expect(log.slice(6).sort()).toEqual(["delete listed-4 4", "update listed-2 2→two"]);
      expect(
        slim
          .list()
          .map((o) => `${o.metadata.name}=${o.v}`)
          .sort(),
      ).toEqual(["listed-0=0", "listed-1=one", "listed-2=two", "listed-3=3"]);
    } finally {
      await slim.stop();
    }
  });

  it("retries a failing list with the injected delay and reports each failure", async () => {
    const attempts: number[] = [];
    const { client } = await setup({});
    const missing = createInformer<KubeObject>({
      client,
      apiVersion: "example.kyverno-ts.io/v1",
      kind: "Widget",
      delay: (attempt) => {
        attempts.push(attempt);
        return 5;
      },
    });
    informer = missing;
    const errors: InformerError[] = [];
    missing.on("error", (e) => errors.push(e));
    const started = missing.start();
    await until(() => errors.length >= 3);
    expect(attempts.slice(0, 3)).toEqual([1, 2, 3]);
    expect(errors[0]).toMatchObject({
      source: "list",
      attempt: 1,
      retryInMs: 5,
      failure: { status: 404, reason: "UnknownKind" },
    });
    await missing.stop();
    await started; // start() settles when stopped before syncing
    expect(missing.hasSynced()).toBe(false);
  });

  it("keeps going when a handler throws, reporting it as an error", async () => {
    const { client, informer } = await setup({});
    const errors: InformerError[] = [];
    informer.on("add", (o) => {
      if (o.metadata?.name === "bad") throw new Error("handler failed");
    });
    informer.on("error", (e) => errors.push(e));
    await informer.start();
    await client.create(configMap("bad"));
    await client.create(configMap("good"));
    await until(() => informer.get("default", "good") !== undefined);
    expect(errors).toEqual([{ source: "handler", event: "add", error: new Error("handler failed") }]);
  });
});

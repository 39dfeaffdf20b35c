import { describe, expect, it } from "vitest";
import { createStore } from "./store.js";

const cm = (name: string, data = "1") => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns" },
  data: { v: data },
});

describe("object store", () => {
  it("hands out a global increasing resourceVersion and freezes stored objects", () => {
    const store = createStore();
    const a = store.create("configmaps", cm("a"));
    const b = store.create("secrets", { metadata: { name: "b", namespace: "ns" } });
    const a2 = store.update("configmaps", { ...a, data: { v: "2" } });
    expect([a, b, a2].map((o) => (o.metadata as { resourceVersion: string }).resourceVersion)).toEqual([
      "1",
      "2",
      "3",
    ]);
    expect(Object.isFrozen(a2.data)).toBe(true);
    const removed = store.remove("configmaps", "ns", "a");
    expect(removed?.metadata).toMatchObject({ resourceVersion: "4" });
    expect(store.get("configmaps", "ns", "a")).toBeUndefined();
    expect(store.currentRv()).toBe(4);
  });

  it("lists sorted by namespace and name, per namespace", () => {
    const store = createStore();
    for (const [ns, name] of [
      ["b", "x"],
      ["a", "z"],
      ["a", "y"],
    ] as const)
      store.create("configmaps", { metadata: { name, namespace: ns } });
    expect(store.list("configmaps").map((o) => (o.metadata as { name: string }).name)).toEqual([
      "y",
      "z",
      "x",
    ]);
    expect(store.list("configmaps", "b")).toHaveLength(1);
  });

  it("replays events since a version and reports versions older than the history as gone", () => {
    const store = createStore({ historySize: 3 });
    store.create("configmaps", cm("a"));
    store.create("configmaps", cm("b"));
    store.update("configmaps", { ...cm("a", "2"), metadata: { name: "a", namespace: "ns" } });
    store.remove("configmaps", "ns", "b");
    expect(store.eventsSince(2)?.map((e) => `${e.type}@${e.rv}`)).toEqual(["MODIFIED@3", "DELETED@4"]);
    expect(store.eventsSince(0)).toBeUndefined();
    expect(store.compactedRv()).toBe(1);
  });

  it("rebuilds the list at an earlier version from the history", () => {
    const store = createStore();
    store.create("configmaps", cm("a"));
    store.create("configmaps", cm("b"));
    store.update("configmaps", { ...cm("a", "changed") });
    store.remove("configmaps", "ns", "b");
    store.create("configmaps", cm("c"));
    const at2 = store.listAt("configmaps", 2) ?? [];
    expect(at2.map((o) => [(o.metadata as { name: string }).name, (o.data as { v: string }).v])).toEqual([
      ["a", "1"],
      ["b", "1"],
    ]);
  });

  it("finds objects by uid and notifies listeners synchronously", () => {
    const store = createStore();
    const seen: string[] = [];
    const stop = store.subscribe((e) => seen.push(`${e.type} ${e.key}`));
    store.create("configmaps", { metadata: { name: "u", namespace: "ns", uid: "uid-1" } });
    expect(store.byUid("uid-1")?.storageKey).toBe("configmaps");
    stop();
    store.remove("configmaps", "ns", "u");
    expect(seen).toEqual(["ADDED ns/u"]);
    expect(store.byUid("uid-1")).toBeUndefined();
  });
});

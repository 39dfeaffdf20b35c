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
    const at2 = [...(store.scan("configmaps", { at: 2 })?.items ?? [])];
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

describe("scan: chunked lists at one version", () => {
  it("pages through a version while writes go on, in one namespace or all", () => {
    const store = createStore();
    for (const name of ["a", "b", "c", "d"]) store.create("configmaps", cm(name));
    store.create("configmaps", { metadata: { name: "z", namespace: "other" }, data: { v: "1" } });
    const at = store.currentRv();
    const names = (objects: Iterable<Record<string, unknown>>) =>
      [...objects].map((o) => `${(o.metadata as { name: string }).name}=${(o.data as { v: string }).v}`);
    const first = store.scan("configmaps", { at, namespace: "ns" });
    expect(first?.total).toBe(4);
    // Writes after the version: none of them shows in later pages read at that version.
    store.update("configmaps", cm("c", "changed"));
    store.remove("configmaps", "ns", "d");
    store.create("configmaps", cm("bb"));
    const second = store.scan("configmaps", { at, namespace: "ns", start: "ns/b\u0000" });
    expect(second?.total).toBe(2);
    expect(names(second?.items ?? [])).toEqual(["c=1", "d=1"]);
    store.update("configmaps", cm("a", "again"));
    expect(names(store.scan("configmaps", { at })?.items ?? [])).toEqual(["a=1", "b=1", "c=1", "d=1", "z=1"]);
    // Now: the writes show, and a namespace's range ends before the next namespace.
    expect(names(store.scan("configmaps", { namespace: "ns" })?.items ?? [])).toEqual([
      "a=again",
      "b=1",
      "bb=1",
      "c=changed",
    ]);
    expect(names(store.list("configmaps", "other"))).toEqual(["z=1"]);
  });

  it("is undefined once the history no longer reaches the version", () => {
    const store = createStore({ historySize: 2 });
    store.create("configmaps", cm("a"));
    const at = store.currentRv();
    for (const v of ["2", "3", "4"]) store.update("configmaps", cm("a", v));
    expect(store.scan("configmaps", { at })).toBeUndefined();
  });
});

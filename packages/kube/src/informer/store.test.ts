import { describe, expect, it } from "vitest";
import { createObjectStore } from "./store.js";

const obj = (namespace: string, name: string, rv: string) => ({
  metadata: { namespace, name, resourceVersion: rv },
});

describe("object store", () => {
  it("keeps objects by namespace and name", () => {
    const store = createObjectStore<ReturnType<typeof obj>>();
    expect(store.put(obj("a", "x", "1"))).toBeUndefined();
    expect(store.put(obj("a", "x", "2"))).toEqual(obj("a", "x", "1"));
    store.put(obj("b", "x", "3"));
    store.put({ metadata: { namespace: "", name: "cluster", resourceVersion: "4" } });
    expect(store.size()).toBe(3);
    expect(store.get("a", "x")?.metadata.resourceVersion).toBe("2");
    expect(store.list("b")).toEqual([obj("b", "x", "3")]);
    expect(store.list()).toHaveLength(3);
    expect(store.remove(obj("a", "x", "9"))).toEqual(obj("a", "x", "2"));
    expect(store.remove(obj("a", "x", "9"))).toBeUndefined();
    expect(store.list("a")).toEqual([]);
    expect(store.size()).toBe(2);
  });

  it("replace reports additions, changes (by resourceVersion) and deletions", () => {
    const store = createObjectStore<ReturnType<typeof obj>>();
    for (const o of [obj("a", "same", "1"), obj("a", "changed", "1"), obj("a", "gone", "1")]) store.put(o);
    const diff = store.replace([obj("a", "same", "1"), obj("a", "changed", "2"), obj("b", "new", "3")]);
    expect(diff).toEqual({
      added: [obj("b", "new", "3")],
      updated: [{ object: obj("a", "changed", "2"), old: obj("a", "changed", "1") }],
      deleted: [obj("a", "gone", "1")],
    });
    expect(store.size()).toBe(3);
    expect(store.get("a", "gone")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { parseResourceKey, refOfObject, refOfScope, resourceKey, scopeOf } from "./resource-key.js";

const pod = { apiVersion: "v1", kind: "Pod", namespace: "prod", name: "web", uid: "u-1" };

describe("resource keys", () => {
  it("round-trip, uid included", () => {
    expect(resourceKey(pod)).toBe("v1|Pod|prod|web|u-1");
    expect(parseResourceKey(resourceKey(pod))).toEqual(pod);
    const ns = { apiVersion: "v1", kind: "Namespace", namespace: "", name: "prod", uid: "u-2" };
    expect(parseResourceKey(resourceKey(ns))).toEqual(ns);
  });
  it("reject keys that are not resource keys", () => {
    for (const bad of ["", "v1|Pod|prod|web", "v1|Pod|prod|web|", "|Pod|prod|web|u", "a|b|c|d|e|f"])
      expect(parseResourceKey(bad)).toBeUndefined();
  });
  it("come from API objects and report scopes, and give scopes back", () => {
    expect(refOfObject({ metadata: { name: "web", namespace: "prod", uid: "u-1" } }, "v1", "Pod")).toEqual(
      pod,
    );
    expect(refOfObject({ metadata: { name: "web" } }, "v1", "Pod")).toBeUndefined();
    expect(refOfScope(scopeOf(pod))).toEqual(pod);
    expect(scopeOf({ ...pod, namespace: "" })).not.toHaveProperty("namespace");
    expect(refOfScope({ kind: "Pod", name: "x" })).toBeUndefined();
  });
});

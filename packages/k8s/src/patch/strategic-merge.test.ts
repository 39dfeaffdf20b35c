import { describe, expect, it } from "vitest";
import { applyStrategicMergePatch } from "./strategic-merge.js";

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", finalizers: ["a"] },
  spec: {
    containers: [
      { name: "app", image: "nginx:1" },
      { name: "side", image: "busybox" },
    ],
  },
};

describe("applyStrategicMergePatch", () => {
  it("merges containers by name and finalizers as a set, as kubectl patch does", () => {
    const result = applyStrategicMergePatch(pod, {
      metadata: { finalizers: ["b"] },
      spec: { containers: [{ name: "side", image: "busybox:2" }] },
    });
    expect(result).toEqual({
      ok: true,
      value: {
        ...pod,
        metadata: { name: "p", finalizers: ["a", "b"] },
        spec: {
          containers: [
            { name: "app", image: "nginx:1" },
            { name: "side", image: "busybox:2" },
          ],
        },
      },
    });
  });

  it("knows no Kyverno anchors: a key in parentheses is an ordinary key", () => {
    const result = applyStrategicMergePatch(pod, { metadata: { annotations: { "(x)": "y", "+(z)": "w" } } });
    expect(result.ok && result.value).toMatchObject({
      metadata: { annotations: { "(x)": "y", "+(z)": "w" } },
    });
  });

  it("honours $patch: delete on a list element", () => {
    const result = applyStrategicMergePatch(pod, {
      spec: { containers: [{ name: "side", $patch: "delete" }] },
    });
    expect(result.ok && result.value).toMatchObject({
      spec: { containers: [{ name: "app", image: "nginx:1" }] },
    });
  });

  it("says why a patch cannot merge", () => {
    expect(applyStrategicMergePatch(pod, { spec: { containers: "x" } })).toEqual({
      ok: false,
      error: "failed to apply strategic merge patch: cannot merge a string into a list at /spec/containers",
    });
  });
});

describe("applyStrategicMergePatch ordering", () => {
  it("appends new containers after the existing ones, as kube-apiserver (kyaml, Kyverno's merge, prepends)", () => {
    const result = applyStrategicMergePatch(pod, { spec: { containers: [{ name: "new", image: "x" }] } });
    expect(result.ok && result.value).toMatchObject({
      spec: { containers: [{ name: "app" }, { name: "side" }, { name: "new" }] },
    });
  });
});

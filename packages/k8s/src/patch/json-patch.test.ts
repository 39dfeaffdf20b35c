import { describe, expect, it } from "vitest";
import { applyJsonPatch } from "./json-patch.js";

const pod = { metadata: { name: "p", labels: { app: "a" } }, spec: { containers: [{ name: "c" }] } };

describe("applyJsonPatch", () => {
  it("is strict by default, as kube-apiserver: removing a missing path fails", () => {
    const result = applyJsonPatch(pod, [{ op: "remove", path: "/metadata/annotations/x" }]);
    expect(result).toEqual({
      ok: false,
      error:
        "failed to apply JSON patch operation 0 (remove /metadata/annotations/x): remove operation does not apply: doc is missing path",
    });
  });

  it("is strict by default: adding under a missing parent fails", () => {
    const result = applyJsonPatch(pod, [{ op: "add", path: "/metadata/annotations/x", value: "y" }]);
    expect(result.ok).toBe(false);
  });

  it("with the leniencies Kyverno uses, both succeed", () => {
    const lenient = { allowMissingPathOnRemove: true, ensurePathExistsOnAdd: true };
    const result = applyJsonPatch(
      pod,
      [
        { op: "remove", path: "/metadata/annotations/x" },
        { op: "add", path: "/metadata/annotations/x", value: "y" },
      ],
      lenient,
    );
    expect(result).toEqual({
      ok: true,
      value: { ...pod, metadata: { ...pod.metadata, annotations: { x: "y" } } },
    });
  });

  it("applies add, replace, test, move and copy, with ~1 escapes and negative indices, without touching the input", () => {
    const before = structuredClone(pod);
    const result = applyJsonPatch(pod, [
      { op: "add", path: "/metadata/labels/app.kubernetes.io~1name", value: "n" },
      { op: "replace", path: "/spec/containers/-1/name", value: "d" },
      { op: "test", path: "/spec/containers/0/name", value: "d" },
      { op: "copy", from: "/metadata/name", path: "/metadata/generateName" },
      { op: "move", from: "/metadata/labels/app", path: "/metadata/labels/tier" },
    ]);
    expect(result).toEqual({
      ok: true,
      value: {
        metadata: { name: "p", generateName: "p", labels: { "app.kubernetes.io/name": "n", tier: "a" } },
        spec: { containers: [{ name: "d" }] },
      },
    });
    expect(pod).toEqual(before);
  });
});

import type { KubeObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { requestTarget } from "./request.js";

const pod: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" } };

describe("requestTarget", () => {
  it("is shared by request records about the same object with the same request fields", () => {
    const a = requestTarget({ resource: pod });
    expect(requestTarget({ resource: pod })).toBe(a);
    expect(a).toMatchObject({
      kind: "Pod",
      resource: "pods",
      namespace: "ns",
      name: "p",
      operation: "CREATE",
    });
  });

  it("is recomputed when a request field it depends on differs", () => {
    const plain = requestTarget({ resource: pod });
    const exec = requestTarget({ resource: pod, subresource: "exec" });
    expect(exec.subresource).toBe("exec");
    const update = requestTarget({ resource: pod, operation: "UPDATE" });
    expect(update.operation).toBe("UPDATE");
    const named = requestTarget({
      resource: { ...pod, metadata: {} },
      requestName: "q",
      requestNamespace: "other",
    });
    expect(named).toMatchObject({ name: "q", namespace: "other" });
    expect(requestTarget({ resource: pod })).toEqual(plain);
    expect(requestTarget({ resource: pod, operation: "DELETE", oldResource: pod }).operation).toBe("DELETE");
  });
});

import type { KubeObject } from "@kyverno-ts/api";
import { parseKindSelector } from "@kyverno-ts/engine";
import type { ApiResourceInfo, ApiResult, KubeClient, ObjectList } from "@kyverno-ts/kube";
import { describe, expect, it } from "vitest";
import { createKindResolver } from "./kinds.js";

describe("parseKindSelector", () => {
  it("reads every spelling the engine reads", () => {
    expect(parseKindSelector("Pod")).toEqual({ group: "*", version: "*", kind: "Pod", subresource: "" });
    expect(parseKindSelector("Pod/exec")).toEqual({
      group: "*",
      version: "*",
      kind: "Pod",
      subresource: "exec",
    });
    expect(parseKindSelector("Pod.status")).toEqual({
      group: "*",
      version: "*",
      kind: "Pod",
      subresource: "status",
    });
    expect(parseKindSelector("v1/Pod")).toEqual({ group: "*", version: "v1", kind: "Pod", subresource: "" });
    expect(parseKindSelector("apps/v1/Deployment")).toEqual({
      group: "apps",
      version: "v1",
      kind: "Deployment",
      subresource: "",
    });
    expect(parseKindSelector("apps/v1/Deployment/scale")?.subresource).toBe("scale");
    expect(parseKindSelector("v1/Pod/status")).toEqual({
      group: "*",
      version: "v1",
      kind: "Pod",
      subresource: "status",
    });
    expect(parseKindSelector("*/*")).toEqual({ group: "*", version: "*", kind: "*", subresource: "*" });
    expect(parseKindSelector("*/scale")).toEqual({
      group: "*",
      version: "*",
      kind: "*",
      subresource: "scale",
    });
    expect(parseKindSelector("a/b/c/d/e")).toBeUndefined();
  });
});

/**
 * A client answering discovery for a fixed set of kinds (`apiVersion/Kind` → plural; a plural ending in
 * `!get` is served without list and watch) and listing the given CRDs.
 */
function fakeClient(
  served: Record<string, string>,
  crds: KubeObject[] = [],
): KubeClient & { lists(): number } {
  const state = { lists: 0 };
  const client = {
    async resource(apiVersion: string, kind: string): Promise<ApiResult<ApiResourceInfo>> {
      const entry = served[`${apiVersion}/${kind}`];
      if (entry === "!unreachable")
        return { ok: false, status: 0, reason: "Unreachable", message: "connection refused" };
      const name = entry?.replace(/!get$/, "");
      const verbs = entry?.endsWith("!get") ? ["get"] : ["get", "list", "watch"];
      return name
        ? { ok: true, status: 200, value: { apiVersion, kind, name, namespaced: kind !== "Node", verbs } }
        : { ok: false, status: 404, reason: "UnknownKind", message: "unknown" };
    },
    cachedKind(apiVersion: string, resource: string): string | undefined {
      const found = Object.entries(served).find(
        ([key, plural]) => plural === resource && key.startsWith(`${apiVersion}/`),
      );
      return found?.[0].slice(apiVersion.length + 1);
    },
    async list(): Promise<ApiResult<ObjectList<KubeObject>>> {
      state.lists++;
      return {
        ok: true,
        status: 200,
        value: { apiVersion: "v1", kind: "List", metadata: { resourceVersion: "1" }, items: crds },
      };
    },
  };
  return Object.assign(client as unknown as KubeClient, { lists: () => state.lists });
}

describe("createKindResolver", () => {
  it("resolves built-in kinds, group/version spellings, subresources and wildcards", async () => {
    const client = fakeClient({ "v1/Pod": "pods", "apps/v1/Deployment": "deployments" });
    const kinds = createKindResolver({ client });
    expect(await kinds.resources("Pod")).toEqual({
      ok: true,
      resources: [{ group: "", version: "v1", resource: "pods" }],
    });
    expect(await kinds.resources("Pod/exec")).toEqual({
      ok: true,
      resources: [{ group: "", version: "v1", resource: "pods/exec" }],
    });
    expect(await kinds.resources("apps/v1/Deployment")).toEqual({
      ok: true,
      resources: [{ group: "apps", version: "v1", resource: "deployments" }],
    });
    expect(await kinds.resources("*")).toEqual({
      ok: true,
      resources: [{ group: "*", version: "*", resource: "*" }],
    });
    expect(await kinds.resources("*/*")).toEqual({
      ok: true,
      resources: [{ group: "*", version: "*", resource: "*/*" }],
    });
    expect(await kinds.resources("ReplicationController")).toEqual({
      ok: false,
      reason: "Unknown",
      message: "the server does not serve the kind ReplicationController",
    });
    expect(client.lists()).toBe(0);
  });

  it("tells a failed discovery request apart from a kind the server does not serve", async () => {
    const kinds = createKindResolver({ client: fakeClient({ "v1/Pod": "!unreachable" }) });
    expect(await kinds.resources("Pod")).toEqual({
      ok: false,
      reason: "ApiError",
      message: "connection refused",
    });
  });

  it("finds custom kinds among the CRDs, and a CRD installed later on the next attempt", async () => {
    const crd: KubeObject = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.io" },
      spec: {
        group: "example.io",
        names: { kind: "Widget" },
        versions: [
          { name: "v1beta1", served: true, storage: false },
          { name: "v1", served: true, storage: true },
        ],
      },
    };
    const before = createKindResolver({ client: fakeClient({}) });
    expect((await before.resources("Widget")).ok).toBe(false);
    const client = fakeClient({ "example.io/v1/Widget": "widgets", "example.io/v1beta1/Widget": "widgets" }, [
      crd,
    ]);
    const kinds = createKindResolver({ client });
    expect(await kinds.resources("Widget")).toEqual({
      ok: true,
      resources: [
        { group: "example.io", version: "v1", resource: "widgets" },
        { group: "example.io", version: "v1beta1", resource: "widgets" },
      ],
    });
    await kinds.resources("Widget");
    expect(client.lists()).toBe(1);
  });

  it("resolves kinds for informers: the preferred built-in version or the CRD's storage version", async () => {
    const widget: KubeObject = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.io" },
      spec: {
        group: "example.io",
        names: { kind: "Widget" },
        versions: [
          { name: "v1beta1", served: true, storage: false },
          { name: "v1", served: true, storage: true },
        ],
      },
    };
    const client = fakeClient(
      {
        "autoscaling/v2/HorizontalPodAutoscaler": "horizontalpodautoscalers",
        "v1/Node": "nodes",
        "example.io/v1/Widget": "widgets",
        "authorization.k8s.io/v1/SubjectAccessReview": "subjectaccessreviews!get",
      },
      [widget],
    );
    const kinds = createKindResolver({ client });
    expect(await kinds.watchable("HorizontalPodAutoscaler")).toEqual({
      ok: true,
      value: { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", namespaced: true },
    });
    expect(await kinds.watchable("Node")).toEqual({
      ok: true,
      value: { apiVersion: "v1", kind: "Node", namespaced: false },
    });
    expect(await kinds.watchable("Widget")).toEqual({
      ok: true,
      value: { apiVersion: "example.io/v1", kind: "Widget", namespaced: true },
    });
    expect(await kinds.watchable("SubjectAccessReview")).toMatchObject({ ok: false, reason: "NotWatchable" });
    expect(await kinds.watchable("Gadget")).toEqual({
      ok: false,
      reason: "Unknown",
      message: "no built-in kind or CRD named Gadget",
    });
    expect(await kinds.watchable("Pod")).toMatchObject({ ok: false, reason: "Unknown" });
  });

  it("maps an admission request's resource to its kind: built-in ones, then discovered ones", () => {
    const kinds = createKindResolver({ client: fakeClient({ "example.io/v1/Widget": "widgets" }) });
    expect(kinds.resourceKind("apps/v1", "deployments")).toBe("Deployment");
    expect(kinds.resourceKind("v1", "pods")).toBe("Pod");
    expect(kinds.resourceKind("example.io/v1", "widgets")).toBe("Widget");
    expect(kinds.resourceKind("example.io/v1", "gadgets")).toBeUndefined();
  });
});

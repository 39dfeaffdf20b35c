import { describe, expect, it } from "vitest";
import { parseApiPath } from "./api-path.js";

describe("parseApiPath", () => {
  it("reads core and group paths, namespaced or not, collections or objects, with selectors", () => {
    expect(parseApiPath("/api/v1/namespaces/prod/pods?labelSelector=app%3Dweb")).toEqual({
      apiVersion: "v1",
      resource: "pods",
      namespace: "prod",
      name: "",
      labelSelector: "app=web",
    });
    expect(parseApiPath("/apis/apps/v1/namespaces/prod/deployments/web")).toMatchObject({
      apiVersion: "apps/v1",
      resource: "deployments",
      namespace: "prod",
      name: "web",
    });
    expect(parseApiPath("/api/v1/namespaces")).toMatchObject({
      resource: "namespaces",
      namespace: "",
      name: "",
    });
    expect(parseApiPath("/api/v1/namespaces/prod")).toMatchObject({ resource: "namespaces", name: "prod" });
    expect(parseApiPath("/apis/rbac.authorization.k8s.io/v1/clusterroles")).toMatchObject({
      apiVersion: "rbac.authorization.k8s.io/v1",
      resource: "clusterroles",
    });
  });
  it("says why it cannot read other paths", () => {
    expect(parseApiPath("/version")).toMatch(/not a resource path/);
    expect(parseApiPath("/api/v1/namespaces/prod/pods/web/log")).toMatch(/subresources/);
  });
});

import { describe, expect, it } from "vitest";
import { requestAttributes } from "./request-info.js";
import { type PolicyRule, type RequestAttributes, ruleAllows } from "./rules.js";

const res = (verb: string, resource: string, extra: Partial<RequestAttributes> = {}): RequestAttributes =>
  ({
    kind: "resource",
    verb,
    group: "",
    version: "v1",
    resource,
    subresource: "",
    namespace: "prod",
    name: "",
    ...extra,
  }) as RequestAttributes;
const path = (verb: string, p: string): RequestAttributes => ({ kind: "nonResource", verb, path: p });

const podsRead: PolicyRule = { verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] };
const deployScale: PolicyRule = {
  verbs: ["get", "update"],
  apiGroups: ["apps"],
  resources: ["deployments/scale"],
};
const anySubStatus: PolicyRule = { verbs: ["update"], apiGroups: ["*"], resources: ["*/status"] };
const named: PolicyRule = {
  verbs: ["get"],
  apiGroups: [""],
  resources: ["configmaps"],
  resourceNames: ["settings"],
};
const all: PolicyRule = { verbs: ["*"], apiGroups: ["*"], resources: ["*"] };
const urls: PolicyRule = { verbs: ["get"], nonResourceURLs: ["/healthz", "/apis/*"] };

describe("ruleAllows (kube-apiserver's RuleAllows)", () => {
  const table: Array<[string, PolicyRule, RequestAttributes, boolean]> = [
    ["verb in the list", podsRead, res("list", "pods"), true],
    ["verb not in the list", podsRead, res("delete", "pods"), false],
    ["other API group", podsRead, res("get", "pods", { group: "apps" }), false],
    ["a subresource needs its own entry", podsRead, res("get", "pods", { subresource: "log" }), false],
    [
      "resource/subresource entry",
      deployScale,
      res("update", "deployments", { group: "apps", subresource: "scale" }),
      true,
    ],
    [
      "resource/subresource does not cover the resource",
      deployScale,
      res("get", "deployments", { group: "apps" }),
      false,
    ],
    [
      "*/subresource covers any resource's subresource",
      anySubStatus,
      res("update", "pods", { subresource: "status" }),
      true,
    ],
    ["*/subresource does not cover the resource", anySubStatus, res("update", "pods"), false],
    [
      "*/status does not cover another subresource",
      anySubStatus,
      res("update", "pods", { subresource: "exec" }),
      false,
    ],
    ["resourceNames match the name", named, res("get", "configmaps", { name: "settings" }), true],
    ["resourceNames exclude other names", named, res("get", "configmaps", { name: "other" }), false],
    [
      "resourceNames exclude unnamed requests (list)",
      { ...named, verbs: ["list"] },
      res("list", "configmaps"),
      false,
    ],
    [
      "* covers every verb, group, resource and subresource",
      all,
      res("deletecollection", "widgets", { group: "x.io", subresource: "scale" }),
      true,
    ],
    ["resource rules never cover paths", all, path("get", "/healthz"), false],
    ["exact non-resource URL", urls, path("get", "/healthz"), true],
    ["prefix* non-resource URL", urls, path("get", "/apis/apps/v1"), true],
    ["prefix* needs the prefix", urls, path("get", "/apisx"), false],
    ["non-resource verb must match", urls, path("post", "/healthz"), false],
    ["URL rules never cover resources", urls, res("get", "pods"), false],
    [
      "impersonate verb",
      { verbs: ["impersonate"], apiGroups: [""], resources: ["users"] },
      res("impersonate", "users", { namespace: "", name: "jane" }),
      true,
    ],
  ];
  it.each(table)("%s", (_name, rule, attributes, allowed) => {
    expect(ruleAllows(attributes, rule)).toBe(allowed);
  });
});

describe("requestAttributes (kube-apiserver's RequestInfoFactory)", () => {
  const at = (method: string, url: string) => requestAttributes(method, new URL(url, "https://x"));
  it.each([
    ["GET", "/api/v1/namespaces/prod/pods", { verb: "list", resource: "pods", namespace: "prod", name: "" }],
    ["GET", "/api/v1/pods?watch=true", { verb: "watch", resource: "pods", namespace: "" }],
    [
      "GET",
      "/api/v1/namespaces/prod/pods?watch=1&fieldSelector=metadata.name%3Dweb",
      { verb: "watch", name: "web" },
    ],
    ["GET", "/api/v1/namespaces/prod/pods/web", { verb: "get", name: "web" }],
    ["HEAD", "/api/v1/namespaces/prod/pods/web", { verb: "get" }],
    ["POST", "/api/v1/namespaces/prod/pods", { verb: "create" }],
    [
      "PUT",
      "/apis/apps/v1/namespaces/prod/deployments/web/scale",
      { verb: "update", group: "apps", resource: "deployments", subresource: "scale", name: "web" },
    ],
    ["PATCH", "/apis/apps/v1/namespaces/prod/deployments/web", { verb: "patch", group: "apps" }],
    ["DELETE", "/api/v1/namespaces/prod/pods/web", { verb: "delete", name: "web" }],
    ["DELETE", "/api/v1/namespaces/prod/pods", { verb: "deletecollection" }],
    ["POST", "/api/v1/namespaces/prod/pods/web/exec?command=ls", { verb: "create", subresource: "exec" }],
    ["GET", "/api/v1/namespaces/prod/pods/web/exec?command=ls", { verb: "get", subresource: "exec" }],
    [
      "GET",
      "/api/v1/namespaces/prod",
      { verb: "get", resource: "namespaces", namespace: "prod", name: "prod" },
    ],
    [
      "PUT",
      "/api/v1/namespaces/prod/finalize",
      { resource: "namespaces", subresource: "finalize", name: "prod" },
    ],
    [
      "GET",
      "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      { verb: "list", group: "rbac.authorization.k8s.io", namespace: "" },
    ],
  ])("%s %s", (method, url, expected) => {
    expect(at(method, url)).toMatchObject({ kind: "resource", ...expected });
  });
  it.each([
    ["GET", "/version"],
    ["GET", "/api"],
    ["GET", "/api/v1"],
    ["GET", "/apis/apps"],
    ["GET", "/apis/apps/v1"],
    ["GET", "/openapi/v3/apis/apps/v1"],
    ["POST", "/metrics"],
  ])("%s %s is a non-resource request", (method, url) => {
    expect(at(method, url)).toEqual({ kind: "nonResource", verb: method.toLowerCase(), path: url });
  });
});

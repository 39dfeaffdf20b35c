import type { KubeObject, MatchResources } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { resourceGvk } from "./kind.js";
import { matchesMatchResources, matchesRule } from "./match.js";
import type { MatchRequest } from "./request.js";
import { matchesResourceFilter } from "./resource-filter.js";

const pod: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "web-1",
    namespace: "prod",
    labels: { app: "web", tier: "frontend" },
    annotations: { "imageregistry.io/source": "https://hub.docker.com/" },
  },
};
const namespace: KubeObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "prod" } };
const clusterRole: KubeObject = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRole",
  metadata: { name: "view" },
};
const generated: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { generateName: "job-", namespace: "ci" },
};

const request = (resource: KubeObject, extra: Partial<MatchRequest> = {}): MatchRequest => ({
  resource,
  ...resourceGvk(resource),
  operation: "CREATE",
  namespaceLabels: { team: "shop", env: "production" },
  userInfo: { username: "alice", groups: ["devs"] },
  roles: ["prod:editor"],
  clusterRoles: ["view"],
  ...extra,
});

const anyOf = (...resources: NonNullable<MatchResources["resources"]>[]): MatchResources => ({
  any: resources.map((r) => ({ resources: r })),
});

describe("matchesMatchResources", () => {
  it.each<[string, MatchResources, MatchRequest, boolean]>([
    ["kind", anyOf({ kinds: ["Pod"] }), request(pod), true],
    ["other kind", anyOf({ kinds: ["Deployment"] }), request(pod), false],
    ["any: one filter suffices", anyOf({ kinds: ["Deployment"] }, { kinds: ["Pod"] }), request(pod), true],
    [
      "all: every filter must hold",
      { all: [{ resources: { kinds: ["Pod"] } }, { resources: { namespaces: ["dev"] } }] },
      request(pod),
      false,
    ],
    [
      "all: every filter holds",
      { all: [{ resources: { kinds: ["Pod"] } }, { resources: { namespaces: ["prod"] } }] },
      request(pod),
      true,
    ],
    ["legacy resources", { resources: { kinds: ["Pod"], names: ["web-*"] } }, request(pod), true],
    ["legacy subjects", { subjects: [{ kind: "User", name: "alice" }] }, request(pod), true],
    ["empty block matches nothing", {}, request(pod), false],
    ["empty any falls back to legacy", { any: [], resources: { kinds: ["Pod"] } }, request(pod), true],
    ["empty filter matches nothing", { any: [{}] }, request(pod), false],
    ["empty resources match nothing", { any: [{ resources: {} }] }, request(pod), false],
    ["names wildcard", anyOf({ kinds: ["Pod"], names: ["db-*", "web-?"] }), request(pod), true],
    ["names miss", anyOf({ kinds: ["Pod"], names: ["db-*"] }), request(pod), false],
    ["deprecated name", anyOf({ kinds: ["Pod"], name: "web*" }), request(pod), true],
    ["deprecated name miss", anyOf({ kinds: ["Pod"], name: "db" }), request(pod), false],
    ["generateName stands in for name", anyOf({ names: ["job-*"] }), request(generated), true],
    ["namespaces wildcard", anyOf({ kinds: ["Pod"], namespaces: ["pro*"] }), request(pod), true],
    ["namespaces miss", anyOf({ kinds: ["Pod"], namespaces: ["kube-system"] }), request(pod), false],
    [
      "Namespace matched on its own name",
      anyOf({ kinds: ["Namespace"], namespaces: ["prod"] }),
      request(namespace),
      true,
    ],
    [
      "cluster-scoped resource has no namespace",
      anyOf({ namespaces: ["prod"] }),
      request(clusterRole),
      false,
    ],
    ["cluster-scoped resource and namespaces *", anyOf({ namespaces: ["*"] }), request(clusterRole), true],
    [
      "annotations",
      anyOf({ annotations: { "imageregistry.io/source": "https://hub.docker.com/" } }),
      request(pod),
      true,
    ],
    [
      "annotations wildcard key and value",
      anyOf({ annotations: { "imageregistry.io/*": "https://*" } }),
      request(pod),
      true,
    ],
    [
      "annotations value miss",
      anyOf({ annotations: { "imageregistry.io/source": "quay.io" } }),
      request(pod),
      false,
    ],
    ["selector", anyOf({ kinds: ["Pod"], selector: { matchLabels: { app: "web" } } }), request(pod), true],
    ["selector wildcard", anyOf({ selector: { matchLabels: { app: "w*" } } }), request(pod), true],
    ["selector miss", anyOf({ selector: { matchLabels: { app: "db" } } }), request(pod), false],
    [
      "namespaceSelector",
      anyOf({ namespaceSelector: { matchLabels: { team: "shop" } } }),
      request(pod),
      true,
    ],
    [
      "namespaceSelector expressions",
      anyOf({
        namespaceSelector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["production"] }] },
      }),
      request(pod),
      false,
    ],
    [
      "namespaceSelector with unknown labels",
      anyOf({ namespaceSelector: { matchLabels: { team: "shop" } } }),
      request(pod, { namespaceLabels: undefined }),
      false,
    ],
    [
      "namespaceSelector NotIn with unknown labels",
      anyOf({ namespaceSelector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["x"] }] } }),
      request(pod, { namespaceLabels: undefined }),
      true,
    ],
    [
      "namespaceSelector never selects a Namespace",
      anyOf({ kinds: ["Namespace"], namespaceSelector: {} }),
      request(namespace),
      false,
    ],
    ["operations", anyOf({ kinds: ["Pod"], operations: ["CREATE"] }), request(pod), true],
    ["operations miss", anyOf({ kinds: ["Pod"], operations: ["UPDATE", "DELETE"] }), request(pod), false],
    ["no operations: DELETE matches", anyOf({ kinds: ["Pod"] }), request(pod, { operation: "DELETE" }), true],
    [
      "no operations: CONNECT matches",
      anyOf({ kinds: ["Pod"] }),
      request(pod, { operation: "CONNECT" }),
      true,
    ],
    ["subresource request", anyOf({ kinds: ["Pod"] }), request(pod, { subresource: "status" }), false],
    ["subresource selector", anyOf({ kinds: ["Pod/status"] }), request(pod, { subresource: "status" }), true],
    [
      "subjects",
      { any: [{ resources: { kinds: ["Pod"] }, subjects: [{ kind: "Group", name: "devs" }] }] },
      request(pod),
      true,
    ],
    [
      "subjects miss",
      { any: [{ resources: { kinds: ["Pod"] }, subjects: [{ kind: "User", name: "bob" }] }] },
      request(pod),
      false,
    ],
    [
      "subjects without user info",
      { any: [{ subjects: [{ kind: "User", name: "*" }] }] },
      request(pod, { userInfo: undefined }),
      false,
    ],
    ["roles", { any: [{ roles: ["prod:editor"] }] }, request(pod), true],
    ["roles miss", { any: [{ roles: ["prod:admin"] }] }, request(pod), false],
    ["clusterRoles", { any: [{ clusterRoles: ["view", "edit"] }] }, request(pod), true],
    ["clusterRoles miss", { any: [{ clusterRoles: ["cluster-admin"] }] }, request(pod), false],
    [
      "AND across resources and user info",
      {
        any: [
          {
            resources: { kinds: ["Pod"] },
            clusterRoles: ["view"],
            subjects: [{ kind: "User", name: "bob" }],
          },
        ],
      },
      request(pod),
      false,
    ],
  ])("%s", (_name, block, req, expected) => {
    expect(matchesMatchResources(block, req)).toBe(expected);
  });
});

describe("matchesRule", () => {
  const match = anyOf({ kinds: ["Pod"] });
  it.each<[string, MatchResources | undefined, MatchRequest, boolean]>([
    ["no exclude", undefined, request(pod), true],
    [
      "exclude any: one filter excludes",
      anyOf({ namespaces: ["kube-system"] }, { namespaces: ["prod"] }),
      request(pod),
      false,
    ],
    ["exclude any: no filter excludes", anyOf({ namespaces: ["kube-system"] }), request(pod), true],
    [
      "exclude all: every filter must hold",
      { all: [{ resources: { namespaces: ["prod"] } }, { resources: { names: ["db"] } }] },
      request(pod),
      true,
    ],
    [
      "exclude all: every filter holds",
      { all: [{ resources: { namespaces: ["prod"] } }, { resources: { names: ["web-*"] } }] },
      request(pod),
      false,
    ],
    [
      "exclude all with an empty filter never excludes",
      { all: [{ resources: { namespaces: ["prod"] } }, {}] },
      request(pod),
      true,
    ],
    ["legacy exclude", { resources: { namespaces: ["prod"] } }, request(pod), false],
    ["empty legacy exclude", { resources: {} }, request(pod), true],
    ["exclude by cluster role", { any: [{ clusterRoles: ["view"] }] }, request(pod), false],
    ["exclude by subject", { any: [{ subjects: [{ kind: "User", name: "alice" }] }] }, request(pod), false],
    [
      "exclude by subject without user info",
      { any: [{ subjects: [{ kind: "User", name: "alice" }] }] },
      request(pod, { userInfo: undefined }),
      true,
    ],
    [
      "exclude by annotation",
      anyOf({ annotations: { "imageregistry.io/source": "*docker*" } }),
      request(pod),
      false,
    ],
    ["namespaced policy in its namespace", undefined, request(pod, { policyNamespace: "prod" }), true],
    ["namespaced policy elsewhere", undefined, request(pod, { policyNamespace: "dev" }), false],
  ])("%s", (_name, exclude, req, expected) => {
    expect(matchesRule(match, exclude, req)).toBe(expected);
  });

  it("applies a namespaced policy to nothing cluster-scoped", () => {
    const all = anyOf({ kinds: ["*"] });
    expect(matchesRule(all, undefined, request(clusterRole))).toBe(true);
    expect(matchesRule(all, undefined, request(clusterRole, { policyNamespace: "prod" }))).toBe(false);
  });
});

describe("matchesResourceFilter", () => {
  it("is the building block of any/all blocks", () => {
    expect(matchesResourceFilter({ resources: { kinds: ["Pod"], namespaces: ["prod"] } }, request(pod))).toBe(
      true,
    );
    expect(matchesResourceFilter({}, request(pod))).toBe(false);
  });
});

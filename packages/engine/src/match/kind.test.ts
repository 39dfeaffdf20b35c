import { describe, expect, it } from "vitest";
import {
  containsKind,
  type KindListParser,
  matchKind,
  matchKinds,
  parseKindList,
  parseKindSelector,
  type RequestKind,
  resourceGvk,
} from "./kind.js";

const req = (group: string, version: string, kind: string, subresource = ""): RequestKind => ({
  group,
  version,
  kind,
  subresource,
});

const pod = req("", "v1", "Pod");
const podStatus = req("", "v1", "Pod", "status");
const podEphemeral = req("", "v1", "Pod", "ephemeralcontainers");
const deploy = req("apps", "v1", "Deployment");
const deployScale = req("apps", "v1", "Deployment", "scale");
const netpol = req("networking.k8s.io", "v1", "NetworkPolicy");
const antreaNetpol = req("crd.antrea.io", "v1alpha1", "NetworkPolicy");
const flowSchema = req("flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema");
const nodeStatus = req("", "v1", "Node", "status");

describe("parseKindSelector", () => {
  it.each([
    ["Pod", { group: "*", version: "*", kind: "Pod", subresource: "" }],
    ["Pod.status", { group: "*", version: "*", kind: "Pod", subresource: "status" }],
    ["Pod/status", { group: "*", version: "*", kind: "Pod", subresource: "status" }],
    ["v1/Pod", { group: "*", version: "v1", kind: "Pod", subresource: "" }],
    ["v1/Pod.eviction", { group: "*", version: "v1", kind: "Pod", subresource: "eviction" }],
    [
      "v2beta2/HorizontalPodAutoscaler",
      { group: "*", version: "v2beta2", kind: "HorizontalPodAutoscaler", subresource: "" },
    ],
    ["*/Pod", { group: "*", version: "*", kind: "Pod", subresource: "" }],
    ["*/scale", { group: "*", version: "*", kind: "*", subresource: "scale" }],
    ["*/*", { group: "*", version: "*", kind: "*", subresource: "*" }],
    ["v1/Pod/status", { group: "*", version: "v1", kind: "Pod", subresource: "status" }],
    ["*/Node/status", { group: "*", version: "*", kind: "Node", subresource: "status" }],
    ["apps/v1/Deployment", { group: "apps", version: "v1", kind: "Deployment", subresource: "" }],
    ["apps/v1/Deployment.scale", { group: "apps", version: "v1", kind: "Deployment", subresource: "scale" }],
    ["*/*/Deployment", { group: "*", version: "*", kind: "Deployment", subresource: "" }],
    [
      "policy/*/PodDisruptionBudget",
      { group: "policy", version: "*", kind: "PodDisruptionBudget", subresource: "" },
    ],
    ["apps/v1/Deployment/scale", { group: "apps", version: "v1", kind: "Deployment", subresource: "scale" }],
  ])("%s", (spec, expected) => {
    expect(parseKindSelector(spec)).toEqual(expected);
  });

  it("rejects more than four segments", () => {
    expect(parseKindSelector("a/b/c/d/e")).toBeUndefined();
  });
});

describe("matchKind", () => {
  it.each<[string, RequestKind, boolean]>([
    ["Pod", pod, true],
    ["Pod", deploy, false],
    ["Pod", podStatus, false],
    ["Pod", podEphemeral, true],
    ["Pod/status", podEphemeral, true],
    ["Pod/status", podStatus, true],
    ["Pod.status", podStatus, true],
    ["Pod/status", pod, false],
    ["v1/Pod", pod, true],
    ["v2/Pod", pod, false],
    ["v1/Deployment", deploy, true],
    ["apps/v1/Deployment", deploy, true],
    ["extensions/v1beta1/Deployment", deploy, false],
    ["Deployment/scale", deployScale, true],
    ["apps/v1/Deployment/scale", deployScale, true],
    ["Deployment", deployScale, false],
    ["*/scale", deployScale, true],
    ["*/scale", deploy, false],
    ["*", deploy, true],
    ["*", deployScale, false],
    ["*/*", deployScale, true],
    ["*/*", pod, true],
    ["*/Node/status", nodeStatus, true],
    ["networking.k8s.io/v1/NetworkPolicy", netpol, true],
    ["networking.k8s.io/v1/NetworkPolicy", antreaNetpol, false],
    ["crd.antrea.io/v1alpha1/NetworkPolicy", antreaNetpol, true],
    ["NetworkPolicy", antreaNetpol, true],
    ["flowcontrol.apiserver.k8s.io/*/FlowSchema", flowSchema, true],
    ["flowcontrol.apiserver.k8s.io/*/*", flowSchema, true],
    ["Flow*", flowSchema, true],
    ["pod", pod, false],
    ["a/b/c/d/e", pod, false],
  ])("%s selects %o → %s", (spec, request, expected) => {
    expect(matchKind(spec, request)).toBe(expected);
  });
});

describe("matchKinds", () => {
  it("matches when any selector of the list does", () => {
    expect(matchKinds(["Service", "v1/Pod"], pod)).toBe(true);
    expect(matchKinds(["Service", "a/b/c/d/e"], pod)).toBe(false);
    expect(matchKinds([], pod)).toBe(false);
  });

  it("reads the list through the parser it is given", () => {
    const lists: Array<readonly string[]> = [];
    const parse: KindListParser = (kinds) => {
      lists.push(kinds);
      return parseKindList(kinds);
    };
    const kinds = ["Deployment", "Pod"];
    expect(matchKinds(kinds, pod, parse)).toBe(true);
    expect(matchKinds(kinds, deployScale, parse)).toBe(false);
    expect(lists).toEqual([kinds, kinds]);
    expect(parseKindList(["Pod/status", "x/y/z/w/v"])).toEqual([
      { group: "*", version: "*", kind: "Pod", subresource: "status" },
      undefined,
    ]);
  });
});

describe("containsKind", () => {
  it.each<[string[], boolean]>([
    [["Pod"], true],
    [["v1/Pod"], true],
    [["Deployment", "Pod"], true],
    [["Pod/status"], false],
    [["Po*"], false],
    [["Deployment"], false],
    [[], false],
  ])("%o contains Pod → %s", (kinds, expected) => {
    expect(containsKind(kinds, "Pod")).toBe(expected);
  });
});

describe("resourceGvk", () => {
  it.each([
    [{ apiVersion: "v1", kind: "Pod" }, req("", "v1", "Pod")],
    [{ apiVersion: "apps/v1", kind: "Deployment" }, req("apps", "v1", "Deployment")],
    [{ apiVersion: "networking.k8s.io/v1", kind: "Ingress" }, req("networking.k8s.io", "v1", "Ingress")],
    [{}, req("", "", "")],
  ])("%o", (obj, expected) => {
    expect(resourceGvk(obj)).toEqual(expected);
  });
});

import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { validatePattern } from "./validate-pattern.js";

function pod(spec: JsonValue, labels: JsonValue = {}): JsonValue {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels }, spec };
}

describe("maps and scalars", () => {
  const pattern = { spec: { containers: [{ image: "!*:latest" }] } };

  it("passes when every field matches", () => {
    expect(validatePattern(pod({ containers: [{ image: "nginx:1.25" }] }), pattern)).toEqual({
      status: "pass",
    });
  });

  it("reports the first failing field with upstream's trailing-slash path", () => {
    const r = validatePattern(
      pod({ containers: [{ image: "a:1" }, { image: "b:latest" }, { image: "c:latest" }] }),
      pattern,
    );
    expect(r).toMatchObject({ status: "fail", path: "/spec/containers/1/image/" });
  });

  it("treats a missing field as null, so a string pattern fails at that field", () => {
    const r = validatePattern(pod({}), { metadata: { labels: { app: "?*" } } });
    expect(r).toMatchObject({ status: "fail", path: "/metadata/labels/app/" });
  });

  it("reports a missing `*` field at its parent path", () => {
    const r = validatePattern(pod({}), { metadata: { labels: { app: "*" } } });
    expect(r).toMatchObject({ status: "fail", path: "/metadata/labels/" });
  });

  it("accepts `*` for any non-null value, even a map", () => {
    expect(validatePattern({ spec: { x: { y: 1 } } }, { spec: { x: "*" } }).status).toBe("pass");
    expect(validatePattern({ spec: { x: null } }, { spec: { x: "*" } }).status).toBe("fail");
  });

  it("fails when a map is expected but the field is missing or scalar", () => {
    expect(
      validatePattern({ spec: {} }, { spec: { securityContext: { runAsNonRoot: true } } }),
    ).toMatchObject({
      status: "fail",
      path: "/spec/securityContext/",
    });
    expect(validatePattern({ spec: 3 }, { spec: { a: 1 } })).toMatchObject({
      status: "fail",
      path: "/spec/",
    });
  });

  it("lets a null pattern match a missing or zero value only", () => {
    expect(validatePattern({ spec: {} }, { spec: { hostPID: null } }).status).toBe("pass");
    expect(validatePattern({ spec: { hostPID: false } }, { spec: { hostPID: null } }).status).toBe("pass");
    expect(validatePattern({ spec: { hostPID: true } }, { spec: { hostPID: null } }).status).toBe("fail");
  });

  it("compares replicas with an operator (docs example)", () => {
    const p = { spec: { replicas: ">=2" } };
    expect(validatePattern({ spec: { replicas: 3 } }, p).status).toBe("pass");
    expect(validatePattern({ spec: { replicas: 1 } }, p)).toMatchObject({
      status: "fail",
      path: "/spec/replicas/",
    });
  });
});

describe("arrays", () => {
  it("applies a scalar pattern to every element of a list value", () => {
    const p = { spec: { securityContext: { supplementalGroups: "100-200 | 500-600" } } };
    expect(validatePattern({ spec: { securityContext: { supplementalGroups: [150, 550] } } }, p).status).toBe(
      "pass",
    );
    expect(
      validatePattern({ spec: { securityContext: { supplementalGroups: [150, 300] } } }, p),
    ).toMatchObject({
      status: "fail",
      path: "/spec/securityContext/supplementalGroups/",
    });
  });

  it("uses only the first element of a scalar list pattern, for every resource element", () => {
    const p = { spec: { dnsNames: ["*.corp.com", "ignored"] } };
    expect(validatePattern({ spec: { dnsNames: ["a.corp.com", "b.corp.com"] } }, p).status).toBe("pass");
    expect(validatePattern({ spec: { dnsNames: ["a.corp.com", "ignored"] } }, p).status).toBe("fail");
  });

  it("needs a list where the pattern has one", () => {
    expect(
      validatePattern({ spec: { containers: {} } }, { spec: { containers: [{ name: "*" }] } }),
    ).toMatchObject({
      status: "fail",
      path: "/spec/containers/",
    });
  });

  it("passes an empty resource list against a list of maps", () => {
    expect(
      validatePattern({ spec: { containers: [] } }, { spec: { containers: [{ name: "x" }] } }).status,
    ).toBe("pass");
  });

  it("rejects an empty pattern list", () => {
    expect(validatePattern({ a: [1] }, { a: [] })).toMatchObject({ status: "fail", path: "/a/" });
  });

  it("compares lists of lists by position and errors when the resource list is shorter", () => {
    const p = { m: [["a"], ["b*"]] };
    expect(validatePattern({ m: [["a"], ["bc"], ["z"]] }, p).status).toBe("pass");
    expect(validatePattern({ m: [["a"], ["c"]] }, p)).toMatchObject({ status: "fail", path: "/m/1/" });
    expect(validatePattern({ m: [["a"]] }, p)).toMatchObject({ status: "error", path: "" });
  });
});

describe("precedence of skip and fail", () => {
  it("evaluates anchors before plain siblings, so a conditional mismatch skips", () => {
    const p = { spec: { "(hostNetwork)": true, dnsPolicy: "ClusterFirstWithHostNet" } };
    expect(validatePattern({ spec: { hostNetwork: false, dnsPolicy: "Default" } }, p).status).toBe("skip");
    expect(validatePattern({ spec: { hostNetwork: true, dnsPolicy: "Default" } }, p)).toMatchObject({
      status: "fail",
      path: "/spec/dnsPolicy/",
    });
  });

  it("evaluates plain keys holding anchors before other plain keys", () => {
    const p = { metadata: { labels: { team: "?*" } }, spec: { "(hostNetwork)": true } };
    expect(validatePattern({ metadata: { labels: {} }, spec: { hostNetwork: false } }, p).status).toBe(
      "skip",
    );
  });

  it("returns the first failing element even when a later element would skip", () => {
    const p = { list: [{ "(kind)": "a", value: 1 }] };
    expect(validatePattern({ list: [{ kind: "a", value: 2 }, { kind: "b" }] }, p)).toMatchObject({
      status: "fail",
      path: "/list/0/value/",
    });
  });

  it("checks negation anchors before plain keys", () => {
    const p = { spec: { "X(hostPath)": null, name: "x" } };
    expect(validatePattern({ spec: { hostPath: {}, name: "y" } }, p)).toMatchObject({
      status: "fail",
      path: "/spec/hostPath/",
    });
  });

  it("turns a plain failure into an error when a negation or conditional anchor key was never found", () => {
    // Upstream drops the failure path when an anchor key of the pattern is missing from the resource,
    // and a pathless failure is reported as a rule error.
    const p = { spec: { "X(nodeName)": null, containers: [{ name: "app" }] } };
    expect(validatePattern({ spec: { containers: [{ name: "other" }] } }, p)).toMatchObject({
      status: "error",
      path: "",
    });
    expect(validatePattern({ spec: { containers: [{ name: "app" }] } }, p).status).toBe("pass");
  });
});

describe("anyPattern entries (docs example: runAsNonRoot)", () => {
  const patterns: JsonValue[] = [
    {
      spec: {
        securityContext: { runAsNonRoot: true },
        containers: [{ "=(securityContext)": { "=(runAsNonRoot)": true } }],
        "=(initContainers)": [{ "=(securityContext)": { "=(runAsNonRoot)": true } }],
      },
    },
    {
      spec: {
        containers: [{ securityContext: { runAsNonRoot: true } }],
        "=(initContainers)": [{ securityContext: { runAsNonRoot: true } }],
      },
    },
  ];
  const statuses = (resource: JsonValue) => patterns.map((p) => validatePattern(resource, p).status);

  it("passes the pod-level form", () => {
    expect(statuses(pod({ securityContext: { runAsNonRoot: true }, containers: [{ name: "a" }] }))).toEqual([
      "pass",
      "fail",
    ]);
  });
  it("passes the container-level form", () => {
    expect(statuses(pod({ containers: [{ name: "a", securityContext: { runAsNonRoot: true } }] }))).toEqual([
      "fail",
      "pass",
    ]);
  });
  it("fails both when a container opts out", () => {
    const r = pod({
      securityContext: { runAsNonRoot: true },
      containers: [{ securityContext: { runAsNonRoot: false } }],
    });
    expect(statuses(r)).toEqual(["fail", "fail"]);
  });
});

describe("successive checks", () => {
  it("do not see each other's anchors or paths (walk states are reused)", () => {
    // A negation anchor never found in the resource turns a plain failure into an error...
    const anchored = { spec: { "X(hostPID)": "null", containers: [{ image: "!*:latest" }] } };
    const resource = pod({ containers: [{ image: "b:latest" }] });
    expect(validatePattern(resource, anchored)).toMatchObject({ status: "error", path: "" });
    // ...but not in the next check, whose pattern has no anchor.
    const plain = { spec: { containers: [{ image: "!*:latest" }] } };
    expect(validatePattern(resource, plain)).toMatchObject({
      status: "fail",
      path: "/spec/containers/0/image/",
    });
    expect(validatePattern(pod({ containers: [{ image: "a:1" }] }), plain)).toEqual({ status: "pass" });
  });
});

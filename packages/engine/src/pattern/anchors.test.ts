import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { validatePattern } from "./validate-pattern.js";

function pod(spec: JsonValue, labels: JsonValue = {}): JsonValue {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels }, spec };
}

describe("conditional anchor (key)", () => {
  const latestMustPullAlways = {
    spec: { containers: [{ "(image)": "*:latest", imagePullPolicy: "Always" }] },
  };

  it.each<[string, JsonValue, string]>([
    ["no element matches the condition: skip", [{ image: "a:1" }, { image: "b:2" }], "skip"],
    ["matching element passes", [{ image: "a:latest", imagePullPolicy: "Always" }, { image: "b:2" }], "pass"],
    [
      "matching element fails",
      [{ image: "a:1" }, { image: "b:latest", imagePullPolicy: "IfNotPresent" }],
      "fail",
    ],
    ["condition key absent everywhere: skip", [{ name: "a" }], "skip"],
    ["empty list: pass", [], "pass"],
  ])("%s", (_title, containers, status) => {
    expect(validatePattern(pod({ containers }), latestMustPullAlways).status).toBe(status);
  });

  it("reports the failing field of the element that applied", () => {
    const r = validatePattern(
      pod({ containers: [{ image: "a:1" }, { image: "b:latest", imagePullPolicy: "Never" }] }),
      latestMustPullAlways,
    );
    expect(r).toMatchObject({ status: "fail", path: "/spec/containers/1/imagePullPolicy/" });
  });

  it("a list whose elements all skip does not stop the keys after it from failing", () => {
    // Containers (checked first) never match the condition, a privileged init container does.
    const p = {
      spec: {
        containers: [{ "(name)": "istio-*", securityContext: { privileged: false } }],
        initContainers: [{ "(name)": "*", securityContext: { privileged: false } }],
      },
    };
    const privilegedInit = pod({
      containers: [{ name: "app" }],
      initContainers: [{ name: "setup", securityContext: { privileged: true } }],
    });
    expect(validatePattern(privilegedInit, p)).toMatchObject({
      status: "fail",
      path: "/spec/initContainers/0/securityContext/privileged/",
    });
    const both = pod({ containers: [{ name: "app" }], initContainers: [{ name: "setup-x" }] });
    const onlyIstio = { spec: { ...p.spec, initContainers: [{ "(name)": "istio-*", x: 1 }] } };
    expect(validatePattern(both, onlyIstio).status).toBe("skip");
  });

  it("skips the whole pattern when it mismatches outside a list", () => {
    const p = {
      metadata: { annotations: { "service.beta.kubernetes.io/aws-load-balancer-ssl-cert": "?*" } },
      "(spec)": { "(type)": "LoadBalancer" },
    };
    const svc = (type: string, annotations: JsonValue = {}) => ({
      metadata: { annotations },
      spec: { type },
    });
    expect(validatePattern(svc("ClusterIP"), p).status).toBe("skip");
    expect(validatePattern(svc("LoadBalancer"), p)).toMatchObject({
      status: "fail",
      path: "/metadata/annotations/service.beta.kubernetes.io/aws-load-balancer-ssl-cert/",
    });
    expect(
      validatePattern(
        svc("LoadBalancer", { "service.beta.kubernetes.io/aws-load-balancer-ssl-cert": "arn" }),
        p,
      ).status,
    ).toBe("pass");
  });

  describe("docs example: docker socket requires a label", () => {
    const p = {
      metadata: { labels: { "allow-docker": "true" } },
      "(spec)": { "(volumes)": [{ "(hostPath)": { path: "/var/run/docker.sock" } }] },
    };
    const withVolumes = (volumes: JsonValue, labels: JsonValue = {}) => pod({ volumes }, labels);
    const docker = { name: "d", hostPath: { path: "/var/run/docker.sock" } };

    it("fails at the label when the socket is mounted without it", () => {
      expect(validatePattern(withVolumes([docker]), p)).toMatchObject({
        status: "fail",
        path: "/metadata/labels/allow-docker/",
      });
    });
    it("passes when the socket is mounted with the label", () => {
      expect(validatePattern(withVolumes([docker], { "allow-docker": "true" }), p).status).toBe("pass");
    });
    it("skips when no volume mounts the socket", () => {
      expect(
        validatePattern(
          withVolumes([
            { name: "e", emptyDir: {} },
            { name: "h", hostPath: { path: "/tmp" } },
          ]),
          p,
        ).status,
      ).toBe("skip");
    });
    it("skips when the pod has no volumes at all", () => {
      expect(validatePattern(pod({ containers: [] }), p).status).toBe("skip");
    });
  });
});

describe("equality anchor =(key)", () => {
  const p = { spec: { "=(volumes)": [{ "=(hostPath)": { path: "!/var/run/docker.sock" } }] } };

  it.each([
    ["no volumes", pod({}), "pass"],
    ["volumes without hostPath", pod({ volumes: [{ name: "a", emptyDir: {} }] }), "pass"],
    ["an allowed hostPath", pod({ volumes: [{ hostPath: { path: "/data" } }] }), "pass"],
    [
      "the docker socket",
      pod({ volumes: [{ hostPath: { path: "/tmp" } }, { hostPath: { path: "/var/run/docker.sock" } }] }),
      "fail",
    ],
  ])("%s → %s", (_title, resource, status) => {
    expect(validatePattern(resource, p).status).toBe(status);
  });

  it("checks a present scalar value", () => {
    const q = { spec: { "=(hostNetwork)": false } };
    expect(validatePattern({ spec: { hostNetwork: true } }, q)).toMatchObject({
      status: "fail",
      path: "/spec/hostNetwork/",
    });
    expect(validatePattern({ spec: { hostNetwork: false } }, q).status).toBe("pass");
  });
});

describe("negation anchor X(key)", () => {
  const p = { spec: { "=(volumes)": [{ "X(hostPath)": "null" }] } };

  it("fails when the key is present, whatever its value", () => {
    expect(
      validatePattern(
        pod({
          volumes: [
            { name: "a", emptyDir: {} },
            { name: "b", hostPath: null },
          ],
        }),
        p,
      ),
    ).toMatchObject({
      status: "fail",
      path: "/spec/volumes/1/hostPath/",
    });
  });

  it("passes when the key is absent", () => {
    expect(validatePattern(pod({ volumes: [{ name: "a", emptyDir: {} }] }), p).status).toBe("pass");
  });

  it("makes a conditional branch skip instead of fail when nested in a conditional anchor", () => {
    expect(validatePattern({ spec: { a: { b: 1 } } }, { spec: { "(a)": { "X(b)": null } } }).status).toBe(
      "skip",
    );
  });
});

describe("existence anchor ^(key)", () => {
  const p = { spec: { "^(containers)": [{ image: "nginx:latest" }] } };

  it("passes when at least one element matches", () => {
    expect(validatePattern(pod({ containers: [{ image: "a" }, { image: "nginx:latest" }] }), p).status).toBe(
      "pass",
    );
  });

  it("fails at the list when none matches", () => {
    expect(validatePattern(pod({ containers: [{ image: "a" }] }), p)).toMatchObject({
      status: "fail",
      path: "/spec/containers/",
    });
  });

  it("passes when the list is absent", () => {
    expect(validatePattern(pod({}), p).status).toBe("pass");
  });

  it("fails when the value is not a list", () => {
    expect(validatePattern(pod({ containers: { image: "nginx:latest" } }), p).status).toBe("fail");
  });

  it("requires a match for every map of the pattern list", () => {
    const q = { spec: { "^(containers)": [{ name: "a" }, { name: "b" }] } };
    expect(validatePattern(pod({ containers: [{ name: "b" }, { name: "a" }] }), q).status).toBe("pass");
    expect(validatePattern(pod({ containers: [{ name: "a" }] }), q).status).toBe("fail");
  });
});

describe("global anchor <(key) (docs example)", () => {
  const p = {
    spec: {
      containers: [{ name: "*", "<(image)": "corp.reg.com/*" }],
      imagePullSecrets: [{ name: "my-registry-secret" }],
    },
  };
  const spec = (images: string[], secret: string) =>
    pod({
      containers: images.map((image, i) => ({ name: `c${i}`, image })),
      imagePullSecrets: [{ name: secret }],
    });

  it("fails when a corp image is used without the pull secret", () => {
    expect(validatePattern(spec(["corp.reg.com/nginx"], "other-secret"), p)).toMatchObject({
      status: "fail",
      path: "/spec/imagePullSecrets/0/name/",
    });
  });
  it("passes when a corp image is used with the pull secret", () => {
    expect(validatePattern(spec(["corp.reg.com/nginx"], "my-registry-secret"), p).status).toBe("pass");
  });
  it("skips the rule when no image comes from the corp registry", () => {
    expect(validatePattern(spec(["docker.io/nginx"], "other-secret"), p).status).toBe("skip");
  });
  it("still applies when only some containers use the corp registry", () => {
    expect(validatePattern(spec(["docker.io/nginx", "corp.reg.com/app"], "other-secret"), p).status).toBe(
      "fail",
    );
  });
  it("continues when the anchored key is absent", () => {
    expect(validatePattern({ spec: { x: 1 } }, { spec: { "<(missing)": "a", x: 2 } }).status).toBe("fail");
  });
});

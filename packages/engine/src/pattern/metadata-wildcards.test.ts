import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { expandMetadataWildcards } from "./metadata-wildcards.js";
import { validatePattern } from "./validate-pattern.js";

const withLabels = (labels: JsonValue, annotations: JsonValue = {}) => ({
  metadata: { name: "x", labels, annotations },
});

describe("wildcard keys in metadata.labels and metadata.annotations", () => {
  it("requires some label matching a wildcard key", () => {
    const p = { metadata: { labels: { "app.kubernetes.io/*": "?*" } } };
    expect(validatePattern(withLabels({ "app.kubernetes.io/name": "web" }), p).status).toBe("pass");
    expect(validatePattern(withLabels({ app: "web" }), p)).toMatchObject({
      status: "fail",
      path: "/metadata/labels/app.kubernetes.io/*/",
    });
  });

  it("checks the value of every matching label", () => {
    const p = { metadata: { labels: { "team/*": "a*" } } };
    expect(validatePattern(withLabels({ "team/x": "ab", "team/y": "ac" }), p).status).toBe("pass");
    expect(validatePattern(withLabels({ "team/x": "ab", "team/y": "b" }), p)).toMatchObject({
      status: "fail",
      path: "/metadata/labels/team/y/",
    });
  });

  it("keeps anchors on expanded keys (docs example: no Flux v1 annotations)", () => {
    const flux = (key: string) => ({ metadata: { "=(annotations)": { [`X(${key})`]: "*?" } } });
    const anyPattern = [flux("fluxcd.io/*"), flux("flux.weave.works/*")];
    const statuses = (annotations: JsonValue) =>
      anyPattern.map((p) => validatePattern(withLabels({}, annotations), p).status);
    expect(statuses({ "fluxcd.io/automated": "true" })).toEqual(["fail", "pass"]);
    expect(statuses({ other: "1" })).toEqual(["pass", "pass"]);
    expect(
      validatePattern(withLabels({}, { "fluxcd.io/automated": "true" }), anyPattern[0] ?? {}),
    ).toMatchObject({
      path: "/metadata/annotations/fluxcd.io/automated/",
    });
  });

  it("expands equality-anchored annotation keys (AppArmor profiles)", () => {
    const p = {
      metadata: {
        "=(annotations)": {
          "=(container.apparmor.security.beta.kubernetes.io/*)": "runtime/default | localhost/*",
        },
      },
    };
    const annotated = (v: string) =>
      withLabels({}, { "container.apparmor.security.beta.kubernetes.io/app": v });
    expect(validatePattern(annotated("localhost/custom"), p).status).toBe("pass");
    expect(validatePattern(annotated("unconfined"), p).status).toBe("fail");
    expect(validatePattern(withLabels({}, {}), p).status).toBe("pass");
  });

  it("expands metadata of nested templates too", () => {
    const p = { spec: { template: { metadata: { labels: { "app*": "?*" } } } } };
    const deploy = (labels: JsonValue) => ({ spec: { template: { metadata: { labels } } } });
    expect(validatePattern(deploy({ application: "x" }), p).status).toBe("pass");
    expect(validatePattern(deploy({ other: "x" }), p).status).toBe("fail");
  });

  it("leaves explicit keys alone and does not modify the pattern", () => {
    const pattern = { metadata: { labels: { "a*": "1", ab: "2" } } };
    const expanded = expandMetadataWildcards(pattern, { metadata: { labels: { ab: "x", ac: "y" } } });
    expect(expanded).toEqual({ metadata: { labels: { ab: "2", ac: "1" } } });
    expect(pattern).toEqual({ metadata: { labels: { "a*": "1", ab: "2" } } });
  });

  it("does not expand keys elsewhere in the pattern", () => {
    const p = { spec: { "node*": "x" } };
    expect(validatePattern({ spec: { nodeName: "x" } }, p).status).toBe("fail");
  });
});

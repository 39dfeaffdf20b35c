import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { compileMap, compilePattern, type MapNode, type PatternNode } from "./compile.js";
import { expandMetadataWildcards } from "./metadata-wildcards.js";
import { validateCompiled, validatePattern } from "./validate-pattern.js";

function asMap(node: PatternNode): MapNode {
  if (node.type !== "map") throw new Error(`expected a map node, got ${node.type}`);
  return node;
}

describe("compilePattern", () => {
  it("parses anchors once and orders keys as the walk checks them", () => {
    const root = asMap(
      compilePattern({
        spec: { "=(volumes)": [{ "X(hostPath)": "null" }] },
        apiVersion: "v1",
        "(kind)": "Pod",
        "+(extra)": "x",
        "^(list)": [{ a: 1 }],
      }).root,
    );
    // Anchored keys (sorted), then plain keys holding anchors, then the rest (sorted).
    expect(root.entries.map((e) => e.patternKey)).toEqual([
      "(kind)",
      "^(list)",
      "spec",
      "+(extra)",
      "apiVersion",
    ]);
    expect(root.entries.map((e) => [e.anchor, e.key])).toEqual([
      ["conditional", "kind"],
      ["existence", "list"],
      ["plain", "spec"],
      ["addIfNotPresent", "+(extra)"],
      ["plain", "apiVersion"],
    ]);
    expect(root.recorded.map((e) => e.patternKey)).toEqual(["(kind)", "^(list)"]);
    expect(root.expands).toEqual([]);
  });

  it("builds scalar matchers, except for `$(...)` references which depend on where they are checked", () => {
    const root = asMap(compilePattern({ a: ">1", b: "$(./a)", c: null, d: ["x", "y"] }).root);
    const [a, b, c, d] = root.entries.map((e) => e.value);
    expect(a?.type === "scalar" && a.match?.(2)).toBe(true);
    expect(a?.type === "scalar" && a.match?.(1)).toBe(false);
    expect(b?.type === "scalar" && b.match).toBeUndefined();
    expect(c?.type === "scalar" && c.match?.("")).toBe(true);
    expect(d?.type === "array" && d.elements.map((e) => e.type)).toEqual(["scalar", "scalar"]);
  });

  it("flags metadata wildcard keys for expansion, by tag", () => {
    const labels = asMap(compilePattern({ metadata: { labels: { "app.kubernetes.io/*": "?*" } } }).root);
    expect(labels.expands).toEqual(["labels"]);
    const annotations = asMap(
      compilePattern({ "=(metadata)": { "=(annotations)": { "x.io/*": "a", plain: "b" } } }).root,
    );
    expect(annotations.expands).toEqual(["annotations"]);
    const literal = asMap(compilePattern({ metadata: { labels: { app: "web" } } }).root);
    expect(literal.expands).toEqual([]);
  });

  it("reuses the unchanged entries of the map an expansion came from", () => {
    const source = {
      metadata: { labels: { "app.kubernetes.io/*": "?*" } },
      spec: { containers: [{ "(image)": "x" }] },
    };
    const node = asMap(compilePattern(source).root);
    const expanded = expandMetadataWildcards(source, {
      metadata: { labels: { "app.kubernetes.io/name": "web" } },
    });
    expect(expanded).not.toBe(source);
    const derived = compileMap(expanded, node);
    const entry = (m: MapNode, key: string) => m.entries.find((e) => e.patternKey === key);
    expect(entry(derived, "spec")).toBe(entry(node, "spec"));
    expect(entry(derived, "metadata")).not.toBe(entry(node, "metadata"));
    expect(derived.entries.map((e) => e.patternKey)).toEqual(["spec", "metadata"]);
    // Nothing matched: the pattern stays as written, so its compiled form is used as is.
    expect(expandMetadataWildcards(source, { metadata: { labels: { app: "web" } } })).toBe(source);
  });

  it("measures the deepest path the walk can reach", () => {
    expect(compilePattern("x").depth).toBe(0);
    expect(compilePattern({ a: "x" }).depth).toBe(1);
    expect(compilePattern({ spec: { containers: [{ image: "x" }] } }).depth).toBe(4);
  });
});

describe("validateCompiled", () => {
  const pattern: JsonValue = {
    metadata: { labels: { "app.kubernetes.io/*": "?*" } },
    spec: {
      containers: [{ "(image)": "*:latest", imagePullPolicy: "Always", "=(ports)": [{ "=(hostPort)": 0 }] }],
    },
  };
  const pod = (labels: JsonValue, containers: JsonValue): JsonValue => ({
    metadata: { labels },
    spec: { containers },
  });
  const resources: JsonValue[] = [
    pod({ "app.kubernetes.io/name": "web" }, [{ image: "a:latest", imagePullPolicy: "Always" }]),
    pod({ "app.kubernetes.io/name": "" }, [{ image: "a:latest", imagePullPolicy: "Always" }]),
    pod({ app: "web" }, [{ image: "a:latest", imagePullPolicy: "Always" }]),
    pod({ "app.kubernetes.io/name": "web" }, [
      { image: "a:1" },
      { image: "b:latest", imagePullPolicy: "Never" },
    ]),
    pod({ "app.kubernetes.io/name": "web" }, [{ image: "a:1" }]),
    pod({ "app.kubernetes.io/name": "web" }, [
      { image: "a:latest", imagePullPolicy: "Always", ports: [{ hostPort: 80 }] },
    ]),
    pod({ "app.kubernetes.io/name": "web" }, "not a list"),
  ];

  it("answers as validatePattern does, for one compiled pattern reused on many resources", () => {
    const compiled = compilePattern(pattern);
    for (const resource of resources) {
      expect(validateCompiled(resource, compiled)).toEqual(validatePattern(resource, pattern));
    }
    expect(resources.map((r) => validateCompiled(r, compiled).status)).toEqual([
      "pass",
      "fail",
      "fail",
      "fail",
      "skip",
      "fail",
      "fail",
    ]);
  });

  it("reports the path of the element that failed, whatever was checked before", () => {
    const compiled = compilePattern(pattern);
    validateCompiled(resources[5] as JsonValue, compiled);
    expect(validateCompiled(resources[3] as JsonValue, compiled)).toMatchObject({
      status: "fail",
      path: "/spec/containers/1/imagePullPolicy/",
    });
  });

  it("resolves `$(...)` references at the path they are checked", () => {
    const withLimit = compilePattern({
      spec: { containers: [{ limits: { memory: "2Gi" }, requests: { memory: "<=$(../../limits/memory)" } }] },
    });
    const pod = (requests: string): JsonValue => ({
      spec: { containers: [{ limits: { memory: "2Gi" }, requests: { memory: requests } }] },
    });
    expect(validateCompiled(pod("1Gi"), withLimit).status).toBe("pass");
    expect(validateCompiled(pod("3Gi"), withLimit)).toMatchObject({
      status: "fail",
      path: "/spec/containers/0/requests/memory/",
    });
    const broken = compilePattern({
      spec: { containers: [{ requests: { memory: "<=$(./../limits/memory)" } }] },
    });
    expect(validateCompiled(pod("1Gi"), broken)).toMatchObject({ status: "error" });
  });
});

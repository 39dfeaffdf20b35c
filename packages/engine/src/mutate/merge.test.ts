import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { applyStrategicMerge } from "./index.js";

const pod = (spec: JsonValue, metadata: JsonValue = { name: "p" }): JsonValue => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata,
  spec,
});

function merged(
  resource: JsonValue,
  patch: JsonValue,
  options?: { kind?: string; apiVersion?: string },
): JsonValue {
  const result = applyStrategicMerge(resource, patch, options);
  if (!result.ok) throw new Error(result.error);
  expect("skipped" in result).toBe(false);
  return result.value;
}

describe("strategic merge: maps and scalars", () => {
  it.each<[string, JsonValue, JsonValue, JsonValue]>([
    ["adds keys", { a: 1 }, { b: 2 }, { a: 1, b: 2 }],
    ["replaces scalars", { a: 1 }, { a: "x" }, { a: "x" }],
    ["merges nested maps", { m: { a: 1, b: 2 } }, { m: { b: 3, c: 4 } }, { m: { a: 1, b: 3, c: 4 } }],
    ["null deletes a key", { m: { a: 1, b: 2 } }, { m: { a: null } }, { m: { b: 2 } }],
    ["null on a missing key is a no-op", { a: 1 }, { z: null }, { a: 1 }],
    ["an empty map patch adds an empty map", { a: 1 }, { e: {} }, { a: 1, e: {} }],
    ["a map emptied by nulls is not added", { a: 1 }, { e: { x: null } }, { a: 1 }],
    ["$patch: delete removes a map", { m: { a: 1 }, k: 1 }, { m: { $patch: "delete" } }, { k: 1 }],
    [
      "$patch: replace replaces a map",
      { m: { a: 1, b: 2 } },
      { m: { $patch: "replace", c: 3 } },
      { m: { c: 3 } },
    ],
    [
      "$patch: merge is the default",
      { m: { a: 1 } },
      { m: { $patch: "merge", b: 2 } },
      { m: { a: 1, b: 2 } },
    ],
    [
      "$retainKeys keeps only the listed keys",
      { m: { a: 1, b: 2 } },
      { m: { $retainKeys: ["a", "c"], c: 3 } },
      { m: { a: 1, c: 3 } },
    ],
    ["$setElementOrder is ignored", { m: { a: 1 } }, { m: { "$setElementOrder/x": [1] } }, { m: { a: 1 } }],
    [
      "lists of unknown fields are replaced",
      { l: [1, 2], o: [{ name: "a", v: 1 }] },
      { l: [3], o: [{ name: "a" }] },
      { l: [3], o: [{ name: "a" }] },
    ],
  ])("%s", (_, resource, patch, expected) => {
    expect(merged(resource, patch, { kind: "ConfigMap" })).toEqual(expected);
  });

  it("does not mutate its inputs", () => {
    const resource = pod({ containers: [{ name: "a", image: "x" }] });
    const patch: JsonValue = {
      spec: {
        containers: [
          { name: "a", image: "y" },
          { name: "b", image: "z" },
        ],
      },
    };
    const before = structuredClone([resource, patch]);
    merged(resource, patch);
    expect([resource, patch]).toEqual(before);
  });
});

describe("strategic merge: lists with merge keys", () => {
  it("merges containers by name in place and prepends new ones in patch order", () => {
    const resource = pod({
      containers: [
        { name: "a", image: "a:1" },
        { name: "b", image: "b:1" },
      ],
    });
    const patch: JsonValue = {
      spec: { containers: [{ name: "b", image: "b:2" }, { name: "n1" }, { name: "n2" }] },
    };
    expect(merged(resource, patch)).toEqual(
      pod({
        containers: [
          { name: "n1" },
          { name: "n2" },
          { name: "a", image: "a:1" },
          { name: "b", image: "b:2" },
        ],
      }),
    );
  });

  it.each<[string, string, JsonValue, JsonValue, JsonValue]>([
    [
      "env by name",
      "env",
      [{ name: "A", value: "1" }],
      [
        { name: "A", value: "2" },
        { name: "B", value: "3" },
      ],
      [
        { name: "B", value: "3" },
        { name: "A", value: "2" },
      ],
    ],
    [
      "ports by containerPort",
      "ports",
      [{ containerPort: 80, name: "http" }],
      [{ containerPort: 80, protocol: "TCP" }],
      [{ containerPort: 80, name: "http", protocol: "TCP" }],
    ],
    [
      "volumeMounts by mountPath",
      "volumeMounts",
      [{ mountPath: "/a", name: "x" }],
      [{ mountPath: "/a", readOnly: true }],
      [{ mountPath: "/a", name: "x", readOnly: true }],
    ],
    ["args are replaced", "args", ["a", "b"], ["c"], ["c"]],
    [
      "envFrom is replaced",
      "envFrom",
      [{ configMapRef: { name: "a" } }],
      [{ secretRef: { name: "b" } }],
      [{ secretRef: { name: "b" } }],
    ],
  ])("container %s", (_, field, before, patch, after) => {
    const resource = pod({ containers: [{ name: "c", [field]: before }] });
    expect(merged(resource, { spec: { containers: [{ name: "c", [field]: patch }] } })).toEqual(
      pod({ containers: [{ name: "c", [field]: after }] }),
    );
  });

  it.each<[string, string, JsonValue, JsonValue, JsonValue]>([
    [
      "volumes by name",
      "volumes",
      [{ name: "v", emptyDir: {} }],
      [{ name: "w", emptyDir: {} }],
      [
        { name: "w", emptyDir: {} },
        { name: "v", emptyDir: {} },
      ],
    ],
    [
      "imagePullSecrets by name",
      "imagePullSecrets",
      [{ name: "a" }],
      [{ name: "a" }, { name: "b" }],
      [{ name: "b" }, { name: "a" }],
    ],
    ["tolerations are replaced", "tolerations", [{ key: "a" }], [{ key: "b" }], [{ key: "b" }]],
    [
      "topologySpreadConstraints by topologyKey",
      "topologySpreadConstraints",
      [{ topologyKey: "z", maxSkew: 1 }],
      [{ topologyKey: "z", maxSkew: 2 }],
      [{ topologyKey: "z", maxSkew: 2 }],
    ],
    [
      "hostAliases by ip",
      "hostAliases",
      [{ ip: "1.1.1.1", hostnames: ["a"] }],
      [{ ip: "2.2.2.2", hostnames: ["b"] }],
      [
        { ip: "2.2.2.2", hostnames: ["b"] },
        { ip: "1.1.1.1", hostnames: ["a"] },
      ],
    ],
  ])("pod spec %s", (_, field, before, patch, after) => {
    expect(merged(pod({ [field]: before }), { spec: { [field]: patch } })).toEqual(pod({ [field]: after }));
  });

  it("deletes an element with $patch: delete", () => {
    const resource = pod({ volumes: [{ name: "a" }, { name: "b" }] });
    expect(merged(resource, { spec: { volumes: [{ name: "a", $patch: "delete" }] } })).toEqual(
      pod({ volumes: [{ name: "b" }] }),
    );
  });

  it("replaces the whole list with a {$patch: replace} element", () => {
    const resource = pod({ containers: [{ name: "a", image: "x" }] });
    const patch: JsonValue = { spec: { containers: [{ $patch: "replace" }, { name: "b", image: "y" }] } };
    expect(merged(resource, patch)).toEqual(pod({ containers: [{ name: "b", image: "y" }] }));
  });

  it("merges metadata.finalizers as a set and ownerReferences by uid", () => {
    const resource = {
      kind: "ConfigMap",
      metadata: { finalizers: ["a", "b"], ownerReferences: [{ uid: "1", name: "x" }] },
    };
    const patch: JsonValue = {
      metadata: { finalizers: ["c", "a"], ownerReferences: [{ uid: "1", kind: "K" }] },
    };
    expect(merged(resource, patch)).toEqual({
      kind: "ConfigMap",
      metadata: { finalizers: ["c", "a", "b"], ownerReferences: [{ uid: "1", name: "x", kind: "K" }] },
    });
  });

  it("removes values with $deleteFromPrimitiveList", () => {
    const resource = { kind: "ConfigMap", metadata: { finalizers: ["a", "b"] } };
    expect(merged(resource, { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] } })).toEqual({
      kind: "ConfigMap",
      metadata: { finalizers: ["b"] },
    });
  });

  it.each<[string, string, JsonValue, JsonValue]>([
    [
      "Deployment",
      "apps/v1",
      { spec: { template: { spec: { containers: [{ name: "a", image: "x" }] } } } },
      { spec: { template: { spec: { containers: [{ name: "a", image: "y" }] } } } },
    ],
    [
      "StatefulSet",
      "apps/v1",
      { spec: { template: { spec: { containers: [{ name: "a", image: "x" }] } } } },
      { spec: { template: { spec: { containers: [{ name: "a", image: "y" }] } } } },
    ],
    [
      "Job",
      "batch/v1",
      { spec: { template: { spec: { containers: [{ name: "a", image: "x" }] } } } },
      { spec: { template: { spec: { containers: [{ name: "a", image: "y" }] } } } },
    ],
    [
      "CronJob",
      "batch/v1",
      {
        spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: "a", image: "x" }] } } } } },
      },
      {
        spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: "a", image: "y" }] } } } } },
      },
    ],
  ])("reaches the pod spec of a %s", (kind, apiVersion, body, expectedBody) => {
    const resource = { apiVersion, kind, ...(body as object) };
    const patch = JSON.parse(
      JSON.stringify(expectedBody).replace('"image":"y"', '"image":"y","imagePullPolicy":"Always"'),
    );
    const result = merged(resource, patch);
    expect(JSON.stringify(result)).toContain('[{"name":"a","image":"y","imagePullPolicy":"Always"}]');
  });

  it("replaces lists of custom resources and of a built-in kind name in another group", () => {
    const body = { spec: { containers: [{ name: "a", image: "x" }] } };
    const patch: JsonValue = { spec: { containers: [{ name: "b" }] } };
    expect(merged({ apiVersion: "example.com/v1", kind: "Pod", ...body }, patch)).toMatchObject(patch);
    expect(merged({ apiVersion: "example.com/v1", kind: "Widget", ...body }, patch)).toMatchObject(patch);
    expect(merged({ ...body }, patch, { kind: "Pod", apiVersion: "v1" })).toEqual({
      spec: { containers: [{ name: "b" }, { name: "a", image: "x" }] },
    });
  });
});

describe("strategic merge: errors", () => {
  it.each<[string, JsonValue, JsonValue, RegExp]>([
    [
      "a map onto a scalar",
      pod({ nodeSelector: "x" }),
      { spec: { nodeSelector: { a: "b" } } },
      /cannot merge a map into a string at \/spec\/nodeSelector/,
    ],
    [
      "a scalar onto a map",
      pod({ nodeSelector: { a: "b" } }),
      { spec: { nodeSelector: "x" } },
      /cannot merge a string into a map/,
    ],
    [
      "a list onto a map",
      pod({ containers: { a: 1 } }),
      { spec: { containers: [{ name: "a" }] } },
      /cannot merge a list into a map/,
    ],
    [
      "a keyed element without its key",
      pod({ containers: [] }),
      { spec: { containers: [{ image: "x" }] } },
      /has no "name" field/,
    ],
    ["a scalar in a keyed list", pod({ containers: [] }), { spec: { containers: ["x"] } }, /is not a map/],
    ["an unknown directive", pod({}), { spec: { $patch: "explode" } }, /unknown \$patch directive/],
    ["a patch that is not a map", pod({}), ["x"], /must be a map/],
  ])("rejects %s", (_, resource, patch, message) => {
    const result = applyStrategicMerge(resource, patch);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });
});

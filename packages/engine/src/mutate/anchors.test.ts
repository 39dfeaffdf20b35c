import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { compilePattern } from "../pattern/index.js";
import type { AnchorPatterns } from "./anchors.js";
import { applyStrategicMerge } from "./index.js";

const pod = (spec: JsonObject, metadata: JsonObject = { name: "p" }): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata,
  spec,
});

const containers = (...list: JsonObject[]): JsonObject => pod({ containers: list });

type Outcome = { value: JsonValue } | { skipped: string } | { error: string };

function apply(resource: JsonValue, patch: JsonValue): Outcome {
  const result = applyStrategicMerge(resource, patch);
  if (!result.ok) return { error: result.error };
  if ("skipped" in result) {
    expect(result.value).toBe(resource);
    return { skipped: result.reason };
  }
  return { value: result.value };
}

describe("add-if-not-present anchor +(key)", () => {
  it.each<[string, JsonObject, JsonValue, JsonObject]>([
    [
      "adds a missing key",
      { name: "p" },
      { metadata: { labels: { "+(a)": "x" } } },
      { name: "p", labels: { a: "x" } },
    ],
    [
      "keeps an existing key",
      { name: "p", labels: { a: "y" } },
      { metadata: { labels: { "+(a)": "x" } } },
      { name: "p", labels: { a: "y" } },
    ],
    [
      "handles siblings one by one",
      { name: "p", labels: { a: "y" } },
      { metadata: { labels: { "+(a)": "x", "+(b)": "z", c: "w" } } },
      { name: "p", labels: { a: "y", b: "z", c: "w" } },
    ],
    [
      "adds a missing subtree with nested anchors stripped",
      { name: "p" },
      { metadata: { "+(annotations)": { "+(a)": "1", b: "2" } } },
      { name: "p", annotations: { a: "1", b: "2" } },
    ],
    [
      "leaves an existing subtree alone, whatever it lacks",
      { name: "p", annotations: { z: "0" } },
      { metadata: { "+(annotations)": { "+(a)": "1" } } },
      { name: "p", annotations: { z: "0" } },
    ],
  ])("%s", (_, metadata, patch, expected) => {
    expect(apply(pod({}, metadata), patch)).toEqual({ value: pod({}, expected) });
  });

  it("applies an element with only +() anchors and no name to every container", () => {
    const resource = containers({ name: "a", securityContext: { runAsNonRoot: false } }, { name: "b" });
    const patch: JsonValue = { spec: { containers: [{ securityContext: { "+(runAsNonRoot)": true } }] } };
    expect(apply(resource, patch)).toEqual({
      value: containers(
        { name: "a", securityContext: { runAsNonRoot: false } },
        { name: "b", securityContext: { runAsNonRoot: true } },
      ),
    });
  });

  it("resolves +() against the element with the same merge key, or adds a new element", () => {
    const resource = containers({ name: "a", imagePullPolicy: "Never" });
    const patch: JsonValue = {
      spec: {
        containers: [
          { name: "a", "+(imagePullPolicy)": "Always" },
          { name: "n", "+(image)": "x" },
        ],
      },
    };
    expect(apply(resource, patch)).toEqual({
      value: containers({ name: "n", image: "x" }, { name: "a", imagePullPolicy: "Never" }),
    });
  });
});

describe("conditional anchor (key)", () => {
  const latest = { spec: { containers: [{ "(image)": "*:latest", imagePullPolicy: "IfNotPresent" }] } };

  it("patches only the list elements that satisfy it, keyed by their name", () => {
    const resource = containers(
      { name: "a", image: "nginx:latest" },
      { name: "b", image: "nginx:1.2" },
      { name: "c", image: "x:latest" },
    );
    expect(apply(resource, latest)).toEqual({
      value: containers(
        { name: "a", image: "nginx:latest", imagePullPolicy: "IfNotPresent" },
        { name: "b", image: "nginx:1.2" },
        { name: "c", image: "x:latest", imagePullPolicy: "IfNotPresent" },
      ),
    });
  });

  it("changes nothing (without skipping) when no list element satisfies it", () => {
    const resource = containers({ name: "b", image: "nginx:1.2" });
    expect(apply(resource, latest)).toEqual({ value: resource });
  });

  it("treats a plain merge key next to a conditional as one more condition", () => {
    const resource = containers({ name: "a", image: "n:latest" }, { name: "b", image: "n:latest" });
    const patch: JsonValue = {
      spec: { containers: [{ name: "b", "(image)": "*:latest", imagePullPolicy: "Always" }] },
    };
    expect(apply(resource, patch)).toEqual({
      value: containers(
        { name: "a", image: "n:latest" },
        { name: "b", image: "n:latest", imagePullPolicy: "Always" },
      ),
    });
  });

  it("matches nested lists per element, with the nested list's merge key", () => {
    const resource = containers(
      { name: "a", ports: [{ containerPort: 80 }, { containerPort: 443 }] },
      { name: "b", ports: [{ containerPort: 8080 }] },
    );
    const patch: JsonValue = {
      spec: { containers: [{ "(name)": "*", ports: [{ "(containerPort)": ">=443", protocol: "TCP" }] }] },
    };
    expect(apply(resource, patch)).toEqual({
      value: containers(
        { name: "a", ports: [{ containerPort: 80 }, { containerPort: 443, protocol: "TCP" }] },
        { name: "b", ports: [{ containerPort: 8080, protocol: "TCP" }] },
      ),
    });
  });

  it.each<[string, JsonObject, JsonValue]>([
    [
      "the value does not match",
      { name: "p", labels: { app: "other" } },
      { metadata: { labels: { "(app)": "web", x: "y" } } },
    ],
    [
      "the key is missing",
      { name: "p", labels: {} },
      { metadata: { labels: { "(app)": "web" } }, spec: { a: 1 } },
    ],
    ["the parent is missing", { name: "p" }, { metadata: { annotations: { "(inject)": "true", x: "y" } } }],
    [
      "a number operator does not hold",
      { name: "p", generation: 1 },
      { metadata: { "(generation)": ">1", labels: { a: "b" } } },
    ],
  ])("skips the whole patch when %s", (_, metadata, patch) => {
    const result = apply(pod({}, metadata), patch);
    expect(result).toHaveProperty("skipped");
    if ("skipped" in result) expect(result.skipped).toMatch(/conditional anchor/);
  });

  it("applies siblings and the rest of the patch when it holds", () => {
    const resource = pod({}, { name: "p", labels: { app: "web" } });
    expect(apply(resource, { metadata: { labels: { "(app)": "w*", x: "y" } }, spec: { a: 1 } })).toEqual({
      value: pod({ a: 1 }, { name: "p", labels: { app: "web", x: "y" } }),
    });
  });

  it("patches matching elements in place in lists without a merge key", () => {
    const resource = pod({
      tolerations: [
        { key: "a", operator: "Exists" },
        { key: "b", operator: "Exists" },
      ],
    });
    const patch: JsonValue = { spec: { tolerations: [{ "(key)": "b", effect: "NoSchedule" }] } };
    expect(apply(resource, patch)).toEqual({
      value: pod({
        tolerations: [
          { key: "a", operator: "Exists" },
          { key: "b", operator: "Exists", effect: "NoSchedule" },
        ],
      }),
    });
  });

  it("patches the ports of matching Endpoints subsets (the documented example)", () => {
    const resource = {
      apiVersion: "v1",
      kind: "Endpoints",
      subsets: [
        {
          addresses: [{ ip: "1.1.1.1" }],
          ports: [
            { name: "secure-a", port: 1 },
            { name: "plain", port: 2 },
          ],
        },
      ],
    };
    const patch: JsonValue = { subsets: [{ ports: [{ "(name)": "secure*", port: 6443 }] }] };
    expect(apply(resource, patch)).toEqual({
      value: {
        ...resource,
        subsets: [
          {
            addresses: [{ ip: "1.1.1.1" }],
            ports: [
              { name: "secure-a", port: 6443 },
              { name: "plain", port: 2 },
            ],
          },
        ],
      },
    });
  });
});

describe("global anchor <(key)", () => {
  const pullSecret = {
    spec: { containers: [{ "<(image)": "corp.reg.com/*" }], imagePullSecrets: [{ name: "my-secret" }] },
  };

  it("applies the patch when some list element satisfies it", () => {
    const resource = containers({ name: "a", image: "nginx" }, { name: "b", image: "corp.reg.com/nginx" });
    expect(apply(resource, pullSecret)).toEqual({
      value: pod({
        ...(containers({ name: "a", image: "nginx" }, { name: "b", image: "corp.reg.com/nginx" })
          .spec as JsonObject),
        imagePullSecrets: [{ name: "my-secret" }],
      }),
    });
  });

  it.each<[string, JsonObject]>([
    ["no element satisfies it", containers({ name: "a", image: "nginx" })],
    ["the list is empty", containers()],
    ["the list is missing", pod({})],
  ])("skips the whole patch when %s", (_, resource) => {
    const result = apply(resource, pullSecret);
    expect(result).toHaveProperty("skipped");
    if ("skipped" in result) expect(result.skipped).toMatch(/global anchor/);
  });

  it("skips the whole patch when a map key does not match or is missing", () => {
    const patch: JsonValue = { metadata: { labels: { "<(tier)": "prod" } }, spec: { a: 1 } };
    expect(apply(pod({}, { name: "p", labels: { tier: "dev" } }), patch)).toHaveProperty("skipped");
    expect(apply(pod({}, { name: "p", labels: {} }), patch)).toHaveProperty("skipped");
    expect(apply(pod({}, { name: "p", labels: { tier: "prod" } }), patch)).toEqual({
      value: pod({ a: 1 }, { name: "p", labels: { tier: "prod" } }),
    });
  });

  it("works nested inside list elements (the secretKeyRef example)", () => {
    const patch: JsonValue = {
      metadata: { annotations: { restarted: "yes" } },
      spec: { containers: [{ env: [{ valueFrom: { secretKeyRef: { "<(name)": "my-secret" } } }] }] },
    };
    const uses = containers({
      name: "a",
      env: [{ name: "X", valueFrom: { secretKeyRef: { name: "my-secret", key: "k" } } }],
    });
    const other = containers({
      name: "a",
      env: [{ name: "X", valueFrom: { secretKeyRef: { name: "other", key: "k" } } }],
    });
    expect(apply(uses, patch)).toEqual({
      value: { ...uses, metadata: { name: "p", annotations: { restarted: "yes" } } },
    });
    expect(apply(other, patch)).toHaveProperty("skipped");
  });

  it("combines with +() (add-safe-to-evict)", () => {
    const patch: JsonValue = {
      metadata: { annotations: { "+(safe-to-evict)": "true" } },
      spec: { volumes: [{ "<(emptyDir)": {} }] },
    };
    const withDir = pod({ volumes: [{ name: "v", emptyDir: {} }] });
    expect(apply(withDir, patch)).toEqual({
      value: { ...withDir, metadata: { name: "p", annotations: { "safe-to-evict": "true" } } },
    });
    expect(apply(pod({ volumes: [{ name: "v", hostPath: { path: "/" } }] }), patch)).toHaveProperty(
      "skipped",
    );
  });
});

describe("equality anchor =(key) and unsupported anchors", () => {
  const patch: JsonValue = { spec: { "=(hostNetwork)": false, dnsPolicy: "Default" } };

  it.each<[string, JsonObject, boolean]>([
    ["applies when the key is absent", {}, true],
    ["applies when the key matches", { hostNetwork: false }, true],
    ["skips when the key is present and differs", { hostNetwork: true }, false],
  ])("%s", (_, spec, applies) => {
    const result = apply(pod(spec), patch);
    if (applies) expect(result).toEqual({ value: pod({ ...spec, dnsPolicy: "Default" }) });
    else expect(result).toHaveProperty("skipped");
  });

  it.each(["X(hostNetwork)", "^(containers)"])("rejects %s", (key) => {
    expect(apply(pod({}), { spec: { [key]: [] } })).toEqual({
      error: expect.stringMatching(/not supported in mutate/),
    });
  });
});

describe("anchor patterns compiled by the caller", () => {
  it("uses the `patterns` option for every anchor check, with the same results", () => {
    const compiledFor: JsonValue[] = [];
    const patterns: AnchorPatterns = (pattern) => {
      compiledFor.push(pattern);
      return compilePattern(pattern);
    };
    const overlay = { spec: { containers: [{ "(image)": "*:latest", imagePullPolicy: "Always" }] } };
    const resource = containers({ name: "a", image: "a:latest" }, { name: "b", image: "b:1" });
    const withOption = applyStrategicMerge(resource, overlay, { patterns });
    expect(withOption).toEqual(applyStrategicMerge(resource, overlay));
    expect(compiledFor).toEqual(["*:latest", "*:latest"]);
    const global = { metadata: { "<(name)": "q*" }, spec: { x: 1 } };
    expect(applyStrategicMerge(resource, global, { patterns })).toEqual(
      applyStrategicMerge(resource, global),
    );
  });
});

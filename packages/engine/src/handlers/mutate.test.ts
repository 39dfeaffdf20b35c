import type { KubeObject, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";

function policy(rules: Rule[]): Policy {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "m" },
    spec: {
      rules,
      applyRules: "All",
      validationFailureAction: "Audit",
      background: true,
      admission: true,
      emitWarning: false,
      failurePolicy: "Fail",
    },
  };
}
const pods = { any: [{ resources: { kinds: ["Pod"] } }] };
const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "default", labels: { app: "web" } },
  spec: {
    containers: [
      { name: "c", image: "nginx:1" },
      { name: "d", image: "busybox:1" },
    ],
  },
} as KubeObject;

function mutate(rules: Rule[], resource: KubeObject = pod) {
  const engine = createEngine();
  const c = engine.compile(policy(rules));
  if (!c.ok) throw new Error(JSON.stringify(c.issues));
  return engine.mutate(c.policy, { resource });
}

describe("engine.mutate", () => {
  it("applies strategic merge patches with variables and returns an RFC 6902 patch", () => {
    const r = mutate([
      {
        name: "label",
        match: pods,
        mutate: {
          patchStrategicMerge: { metadata: { labels: { owner: "{{ request.object.metadata.name }}" } } },
        },
      },
    ]);
    expect(r.rules[0]).toMatchObject({
      type: "Mutation",
      status: "pass",
      message: "mutated Pod/web in namespace default",
    });
    expect(r.patchedResource).toMatchObject({ metadata: { labels: { app: "web", owner: "web" } } });
    expect(r.patch).toEqual([{ op: "add", path: "/metadata/labels/owner", value: "web" }]);
  });
  it("lets later rules see earlier patches and skips rules that change nothing", () => {
    const r = mutate([
      {
        name: "a",
        match: pods,
        mutate: { patchStrategicMerge: { metadata: { labels: { "+(tier)": "web" } } } },
      },
      {
        name: "b",
        match: pods,
        mutate: { patchStrategicMerge: { metadata: { labels: { "+(tier)": "other" } } } },
      },
    ]);
    expect(r.rules.map((x) => [x.name, x.status])).toEqual([
      ["a", "pass"],
      ["b", "skip"],
    ]);
    expect(r.patchedResource).toMatchObject({ metadata: { labels: { tier: "web" } } });
  });
  it("runs foreach with element variables and patchesJson6902", () => {
    const r = mutate([
      {
        name: "registry",
        match: pods,
        mutate: {
          foreach: [
            {
              list: "request.object.spec.containers",
              patchesJson6902:
                "- op: replace\n  path: /spec/containers/{{elementIndex}}/image\n  value: registry.io/{{ element.image }}",
            },
          ],
        },
      },
    ]);
    expect(r.patchedResource).toMatchObject({
      spec: { containers: [{ image: "registry.io/nginx:1" }, { image: "registry.io/busybox:1" }] },
    });
  });
  it("reports a failing patch as an error result", () => {
    const r = mutate([
      {
        name: "bad",
        match: pods,
        mutate: { patchesJson6902: "- op: test\n  path: /metadata/name\n  value: other" },
      },
    ]);
    expect(r.rules[0]?.status).toBe("error");
    expect(r.patchedResource).toEqual(pod);
  });
});

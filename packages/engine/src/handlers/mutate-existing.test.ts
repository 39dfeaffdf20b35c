import type { KubeObject, Policy, PolicyException } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import type { ContextLoader } from "../engine-types.js";

const policy = (kind: "ClusterPolicy" | "Policy" = "ClusterPolicy"): Policy => ({
  apiVersion: "kyverno.io/v1",
  kind,
  metadata: { name: "label-secrets", ...(kind === "Policy" ? { namespace: "staging" } : {}) },
  spec: {
    rules: [
      {
        name: "label",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        mutate: {
          targets: [{ apiVersion: "v1", kind: "Secret", namespace: "staging" }],
          patchStrategicMerge: { metadata: { labels: { foo: "bar" } } },
        },
      },
    ],
    applyRules: "All",
    validationFailureAction: "Audit",
    background: true,
    admission: true,
    emitWarning: false,
    failurePolicy: "Fail",
  },
});

const trigger = (namespace: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cm", namespace },
});
const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "staging" } };
const loader: ContextLoader = { listResources: () => ({ ok: true, value: [secret] }) };

function run(p: Policy, resource: KubeObject, exceptions?: PolicyException[]) {
  const engine = createEngine({ contextLoader: loader });
  const c = engine.compile(p);
  if (!c.ok) throw new Error(JSON.stringify(c.issues));
  return engine.mutateExisting(c.policy, { resource, ...(exceptions ? { exceptions } : {}) });
}

describe("mutateExisting", () => {
  it("patches the targets the loader returns", () => {
    const r = run(policy(), trigger("staging")).rules[0];
    expect(r?.status).toBe("pass");
    expect(r?.patchedTargets?.[0]?.patched).toMatchObject({ metadata: { labels: { foo: "bar" } } });
  });

  it("selects targets by a name pattern with upstream's wildcards (* anywhere, ?)", () => {
    const names = ["app-web-1", "app-web-2", "web", "app-db-1", "app-web"];
    const many: ContextLoader = {
      listResources: () => ({
        ok: true,
        value: names.map((name) => ({ ...secret, metadata: { name, namespace: "staging" } })),
      }),
    };
    const patched = (pattern: string) => {
      const p = policy();
      const target = p.spec.rules[0]?.mutate?.targets?.[0];
      if (target) target.name = pattern;
      const engine = createEngine({ contextLoader: many });
      const c = engine.compile(p);
      if (!c.ok) throw new Error(JSON.stringify(c.issues));
      const r = engine.mutateExisting(c.policy, { resource: trigger("staging") }).rules[0];
      return (r?.patchedTargets ?? []).map((t) => t.target.metadata?.name);
    };
    expect(patched("*-web-*")).toEqual(["app-web-1", "app-web-2"]);
    expect(patched("app-*-1")).toEqual(["app-web-1", "app-db-1"]);
    expect(patched("app-web-?")).toEqual(["app-web-1", "app-web-2"]);
    expect(patched("*")).toEqual(names);
  });

  it("reads the trigger as request.object and the target as target in the patch", () => {
    const p = policy();
    const rule = p.spec.rules[0];
    if (rule?.mutate) {
      rule.mutate.patchStrategicMerge = {
        metadata: {
          labels: { trigger: "{{request.object.metadata.name}}", self: "{{target.metadata.name}}" },
        },
      };
    }
    const r = run(p, trigger("staging")).rules[0];
    expect(r?.patchedTargets?.[0]?.patched).toMatchObject({
      metadata: { labels: { trigger: "cm", self: "s" } },
    });
  });

  it("skips a rule a PolicyException covers, with upstream's message", () => {
    const exception: PolicyException = {
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "ex", namespace: "staging" },
      spec: {
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        exceptions: [{ policyName: "label-secrets", ruleNames: ["label"] }],
      },
    };
    const r = run(policy(), trigger("staging"), [exception]).rules[0];
    expect(r).toMatchObject({
      status: "skip",
      message: "rule is skipped due to policy exception: staging/ex",
      exception: { namespace: "staging", name: "ex" },
    });
    expect(r?.patchedTargets).toBeUndefined();
  });

  it("applies a namespaced Policy only to triggers in its namespace", () => {
    expect(run(policy("Policy"), trigger("other")).rules).toEqual([]);
    expect(run(policy("Policy"), trigger("staging")).rules[0]?.status).toBe("pass");
  });
});

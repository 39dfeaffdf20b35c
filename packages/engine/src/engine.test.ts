import type { KubeObject, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "./engine.js";
import type { EngineRequest } from "./engine-types.js";

const clock = { now: () => new Date("2026-01-01T00:00:00Z").getTime() };

function policy(
  rules: Rule[],
  extra: Partial<Policy["spec"]> = {},
  annotations: Record<string, string> = {},
): Policy {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p", annotations },
    spec: {
      rules,
      applyRules: "All",
      validationFailureAction: "Audit",
      background: true,
      admission: true,
      emitWarning: false,
      failurePolicy: "Fail",
      ...extra,
    },
  };
}

function pod(name: string, image: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", labels: { app: name } },
    spec: { containers: [{ name: "c", image, ...extra }] },
  } as KubeObject;
}

const matchPods = { any: [{ resources: { kinds: ["Pod"] } }] };

function run(p: Policy, req: EngineRequest) {
  const engine = createEngine({ clock });
  const compiled = engine.compile(p);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
  return engine.validate(compiled.policy, req);
}

describe("createEngine().validate", () => {
  const latest = policy(
    [
      {
        name: "no-latest",
        match: matchPods,
        validate: {
          message: "Using a mutable image tag e.g. 'latest' is not allowed.",
          pattern: { spec: { containers: [{ image: "!*:latest" }] } },
        },
      },
    ],
    {},
    { "policies.kyverno.io/category": "Best Practices", "policies.kyverno.io/severity": "medium" },
  );

  it("passes and fails a pattern with upstream's message", () => {
    expect(run(latest, { resource: pod("ok", "nginx:1.25") }).rules).toEqual([
      expect.objectContaining({
        name: "no-latest",
        status: "pass",
        message: "validation rule 'no-latest' passed.",
      }),
    ]);
    const bad = run(latest, { resource: pod("bad", "nginx:latest") });
    expect(bad.rules[0]).toMatchObject({
      status: "fail",
      message:
        "validation error: Using a mutable image tag e.g. 'latest' is not allowed. rule no-latest failed at path /spec/containers/0/image/",
      failureAction: "Audit",
    });
    expect(bad).toMatchObject({
      category: "Best Practices",
      severity: "medium",
      timestamp: Date.parse("2026-01-01T00:00:00Z"),
    });
  });

  it("expands autogen rules for pod controllers", () => {
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d", namespace: "default" },
      spec: { template: { spec: { containers: [{ name: "c", image: "nginx:latest" }] } } },
    } as KubeObject;
    const r = run(latest, { resource: deployment });
    expect(r.rules.map((x) => [x.name, x.status])).toEqual([["autogen-no-latest", "fail"]]);
  });

  it("reports nothing for resources the rule does not match", () => {
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm", namespace: "default" },
    } as KubeObject;
    expect(run(latest, { resource: cm }).rules).toEqual([]);
  });

  it("evaluates deny conditions with variables and skips on unmet preconditions", () => {
    const p = policy([
      {
        name: "deny-default-ns",
        match: matchPods,
        preconditions: {
          all: [{ key: "{{ request.operation }}", operator: "AnyIn", value: ["CREATE", "UPDATE"] }],
        },
        validate: {
          message: "Pod {{ request.object.metadata.name }} must not use the default namespace.",
          deny: {
            conditions: {
              any: [{ key: "{{ request.object.metadata.namespace }}", operator: "Equals", value: "default" }],
            },
          },
        },
      },
    ]);
    expect(run(p, { resource: pod("x", "nginx:1") }).rules[0]).toMatchObject({
      status: "fail",
      message: "Pod x must not use the default namespace.",
    });
    expect(run(p, { resource: pod("x", "nginx:1"), operation: "DELETE" }).rules[0]).toMatchObject({
      status: "skip",
    });
  });

  it("runs foreach over containers with element variables", () => {
    const p = policy([
      {
        name: "registry",
        match: matchPods,
        validate: {
          message: "image {{ element.image }} comes from an untrusted registry",
          foreach: [
            {
              list: "request.object.spec.containers",
              deny: {
                conditions: {
                  all: [
                    {
                      key: '{{ images.containers."{{element.name}}".registry }}',
                      operator: "NotEquals",
                      value: "ghcr.io",
                    },
                  ],
                },
              },
            },
          ],
        },
      },
    ]);
    expect(run(p, { resource: pod("a", "ghcr.io/x/y:1") }).rules[0]?.status).toBe("pass");
    expect(run(p, { resource: pod("b", "nginx:1") }).rules[0]).toMatchObject({
      status: "fail",
      message: "validation failure: image nginx:1 comes from an untrusted registry",
    });
  });

  it("uses context variables and values that override them", () => {
    const p = policy([
      {
        name: "ctx",
        match: matchPods,
        context: [{ name: "allowed", variable: { value: ["nginx:1"] } }],
        validate: {
          deny: {
            conditions: {
              all: [
                {
                  key: "{{ request.object.spec.containers[0].image }}",
                  operator: "AnyNotIn",
                  value: "{{ allowed }}",
                },
              ],
            },
          },
        },
      },
    ]);
    expect(run(p, { resource: pod("a", "nginx:1") }).rules[0]?.status).toBe("pass");
    expect(run(p, { resource: pod("a", "nginx:1"), values: { allowed: ["other"] } }).rules[0]?.status).toBe(
      "fail",
    );
  });

  it("turns an unresolved variable into an error result, never an exception", () => {
    const p = policy([
      { name: "bad", match: matchPods, validate: { pattern: { metadata: { name: "{{ nothing.here }}" } } } },
    ]);
    expect(run(p, { resource: pod("a", "nginx:1") }).rules[0]?.status).toBe("error");
  });

  it("applies failure action overrides per namespace", () => {
    const p = policy(latest.spec.rules, {
      validationFailureAction: "Audit",
      validationFailureActionOverrides: [{ action: "Enforce", namespaces: ["def*"] }],
    });
    expect(run(p, { resource: pod("a", "nginx:latest") }).rules[0]?.failureAction).toBe("Enforce");
  });

  it("stops after the first applicable rule with applyRules One", () => {
    const rules = [
      { name: "r1", match: matchPods, validate: { pattern: { metadata: { name: "?*" } } } },
      { name: "r2", match: matchPods, validate: { pattern: { metadata: { name: "?*" } } } },
    ];
    expect(
      run(policy(rules, { applyRules: "One" }), { resource: pod("a", "x:1") }).rules.map((r) => r.name),
    ).toEqual(["r1"]);
  });

  it("rejects invalid JMESPath at compile time with the field path", () => {
    const engine = createEngine({ clock });
    const r = engine.compile(
      policy([
        {
          name: "x",
          match: matchPods,
          validate: {
            deny: { conditions: { all: [{ key: "{{ no_such_fn(@) }}", operator: "Equals", value: 1 }] } },
          },
        },
      ]),
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.path).toBe("spec.rules[0].validate.deny.conditions.all[0].key");
  });
});

describe("DELETE and subresource requests", () => {
  const p = policy([
    {
      name: "no-latest",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      validate: { pattern: { spec: { containers: [{ image: "!*:latest" }] } } },
    },
  ]);
  it("skips pattern checks of a deleted resource, as upstream", () => {
    const bad = pod("bad", "nginx:latest");
    expect(run(p, { resource: bad, oldResource: bad, operation: "DELETE" }).rules).toEqual([]);
  });
  it("gives a foreach over request.object no elements on DELETE (request.object is null), as upstream", () => {
    const foreach = policy([
      {
        name: "no-latest",
        match: matchPods,
        validate: {
          message: "no latest",
          foreach: [{ list: "request.object.spec.containers", pattern: { image: "!*:latest" } }],
        },
      },
      {
        name: "deny-delete",
        match: matchPods,
        validate: {
          message: "deleting {{ request.object.metadata.name }} is not allowed",
          deny: {
            conditions: { any: [{ key: "{{ request.operation }}", operator: "Equals", value: "DELETE" }] },
          },
        },
      },
    ]);
    const bad = pod("bad", "nginx:latest");
    const rules = run(foreach, { resource: bad, oldResource: bad, operation: "DELETE" }).rules;
    expect(rules.map((r) => [r.name, r.status])).toEqual([
      ["no-latest", "skip"],
      ["deny-delete", "fail"],
    ]);
    // `{{ request.object }}` variables still read the old object on DELETE, as upstream substitutes them.
    expect(rules[1]?.message).toContain("deleting bad is not allowed");
    expect(run(foreach, { resource: bad }).rules[0]?.status).toBe("fail");
  });

  it("does not check Pod Security on a deleted Pod (deleting a non-compliant Pod is never denied)", () => {
    const pss = policy([
      {
        name: "baseline",
        match: matchPods,
        validate: { podSecurity: { level: "baseline", version: "latest" } },
      },
    ]);
    const privileged = pod("priv", "nginx:1", { securityContext: { privileged: true } });
    expect(run(pss, { resource: privileged, oldResource: privileged, operation: "DELETE" }).rules).toEqual(
      [],
    );
    expect(run(pss, { resource: privileged }).rules[0]?.status).toBe("fail");
  });

  it("matches a subresource request by the addressed kind, not the options object", () => {
    const exec = policy([
      {
        name: "no-exec",
        match: { any: [{ resources: { kinds: ["Pod/exec"] } }] },
        validate: { deny: {} },
      },
    ]);
    const options = {
      apiVersion: "v1",
      kind: "PodExecOptions",
      metadata: { name: "web", namespace: "default" },
    } as KubeObject;
    const r = run(exec, {
      resource: options,
      operation: "CONNECT",
      subresource: "exec",
      requestKind: { group: "", version: "v1", kind: "Pod" },
    });
    expect(r.rules.map((x) => [x.name, x.status])).toEqual([["no-exec", "fail"]]);
  });
});

describe("rules the engine does not evaluate yet", () => {
  it("answers verifyImages and validate.manifests with an error and lists them on the compiled policy; validate.cel is evaluated", () => {
    const engine = createEngine({ clock });
    const compiled = engine.compile(
      policy([
        { name: "verify", match: matchPods, verifyImages: [{ imageReferences: ["*"], attestors: [] }] },
        {
          name: "signed-manifest",
          match: matchPods,
          validate: { manifests: { attestors: [{ entries: [{ keys: { publicKeys: "k" } }] }] } },
        },
        { name: "cel", match: matchPods, validate: { cel: { expressions: [{ expression: "true" }] } } },
      ]),
    );
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
    expect(compiled.policy.unsupported.filter((u) => !u.rule.startsWith("autogen-"))).toEqual([
      {
        rule: "verify",
        feature: "verifyImages",
        message:
          "verifyImages is not supported by kyverno-ts yet (image signatures and attestations are not verified): the rule reports an error instead of a result",
      },
      {
        rule: "signed-manifest",
        feature: "validate.manifests",
        message:
          "validate.manifests is not supported by kyverno-ts yet (manifest signatures are not verified): the rule reports an error instead of a result",
      },
    ]);
    const rules = engine.validate(compiled.policy, { resource: pod("a", "nginx:1") }).rules;
    expect(rules.map((r) => [r.name, r.type, r.status])).toEqual([
      ["verify", "ImageVerify", "error"],
      ["signed-manifest", "Validation", "error"],
      ["cel", "Validation", "pass"],
    ]);
  });
});

describe("background scans", () => {
  it("skip rules that read admission-only data such as request.userInfo", () => {
    const p = policy([
      {
        name: "who",
        match: matchPods,
        validate: {
          deny: {
            conditions: { any: [{ key: "{{ request.userInfo.username }}", operator: "Equals", value: "" }] },
          },
        },
      },
      { name: "what", match: matchPods, validate: { pattern: { metadata: { name: "?*" } } } },
    ]);
    expect(run(p, { resource: pod("a", "x:1"), background: true }).rules.map((r) => r.name)).toEqual([
      "what",
    ]);
    expect(run(p, { resource: pod("a", "x:1") }).rules.map((r) => r.name)).toEqual(["who", "what"]);
  });
});

describe("what a compiled policy tells controllers about its rules", () => {
  it("describes every rule after autogen: kind, origin, kinds, operations, subresources, cluster reads", () => {
    const engine = createEngine({ clock });
    const compiled = engine.compile(
      policy([
        {
          name: "no-latest",
          match: { any: [{ resources: { kinds: ["Pod"], operations: ["CREATE", "UPDATE"] } }] },
          validate: { pattern: { spec: { containers: [{ image: "!*:latest" }] } } },
        },
        {
          name: "no-scale",
          match: { any: [{ resources: { kinds: ["Deployment/scale"] } }] },
          context: [{ name: "cfg", configMap: { name: "c", namespace: "kyverno" } }],
          validate: { deny: {} },
        },
        {
          name: "label",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { a: "b" } } } },
        },
      ]),
    );
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
    const rules = compiled.policy.rules;
    expect(rules.map((r) => [r.name, r.kind, r.autogenOf ?? "-"])).toEqual([
      ["no-latest", "validate", "-"],
      ["no-scale", "validate", "-"],
      ["label", "mutate", "-"],
      ["autogen-no-latest", "validate", "no-latest"],
      ["autogen-cronjob-no-latest", "validate", "no-latest"],
    ]);
    const [noLatest, noScale, , autogen] = rules;
    expect(noLatest?.selections).toEqual([
      {
        kinds: ["Pod"],
        selectors: [{ group: "*", version: "*", kind: "Pod", subresource: "" }],
        operations: ["CREATE", "UPDATE"],
      },
    ]);
    expect(autogen?.selections[0]?.kinds).toContain("Deployment");
    expect(autogen?.selections[0]?.operations).toEqual(["CREATE", "UPDATE"]);
    expect(noScale?.subresources).toEqual(["scale"]);
    expect(noScale?.readsCluster).toBe(true);
    expect(noLatest?.readsCluster).toBe(false);
  });
});

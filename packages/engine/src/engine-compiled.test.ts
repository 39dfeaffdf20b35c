/**
 * Evaluation through the structures built at compile time (kind index, compiled patterns, engine
 * caches) gives the same answers as evaluating every rule from the policy document, request after
 * request and across engines.
 */
import type { KubeObject, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "./engine.js";
import type { EngineRequest } from "./engine-types.js";

const clock = { now: () => new Date("2026-01-01T00:00:00Z").getTime() };

/** A ClusterPolicy without autogen rules (so each test sees exactly its rules). */
function policy(rules: Rule[], extra: Partial<Policy["spec"]> = {}): Policy {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p", annotations: { "pod-policies.kyverno.io/autogen-controllers": "none" } },
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

const object = (apiVersion: string, kind: string, spec: unknown, labels: Record<string, string> = {}) =>
  ({ apiVersion, kind, metadata: { name: "x", namespace: "default", labels }, spec }) as KubeObject;

const noHostPath: Rule = {
  name: "pods",
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
  validate: { pattern: { spec: { "=(volumes)": [{ "X(hostPath)": "null" }] } } },
};
const labelled: Rule = {
  name: "anything-labelled",
  match: { any: [{ resources: { kinds: ["*"] } }] },
  validate: { pattern: { metadata: { labels: { "app.kubernetes.io/*": "?*" } } } },
};
const replicas: Rule = {
  name: "deployments",
  match: { any: [{ resources: { kinds: ["apps/v1/Deployment"] } }] },
  validate: { pattern: { spec: { replicas: ">1" } } },
};
const namespaced: Rule = {
  name: "in-default",
  match: { any: [{ resources: { namespaces: ["default"] } }] },
  validate: {
    deny: {
      conditions: { all: [{ key: "{{ request.object.kind }}", operator: "Equals", value: "Secret" }] },
    },
  },
};

describe("rules selected through the kind index", () => {
  const engine = createEngine({ clock });
  const compiled = engine.compile(policy([noHostPath, labelled, replicas, namespaced]));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
  const results = (resource: KubeObject) =>
    engine.validate(compiled.policy, { resource }).rules.map((r) => [r.name, r.status]);

  it("evaluates the kind's rules and the wildcard rules, in rule order", () => {
    expect(results(object("v1", "Pod", { volumes: [{ name: "v", hostPath: { path: "/" } }] }))).toEqual([
      ["pods", "fail"],
      ["anything-labelled", "fail"],
      ["in-default", "pass"],
    ]);
    expect(
      results(object("apps/v1", "Deployment", { replicas: 2 }, { "app.kubernetes.io/name": "web" })),
    ).toEqual([
      ["anything-labelled", "pass"],
      ["deployments", "pass"],
      ["in-default", "pass"],
    ]);
  });

  it("still checks group and version of an indexed kind", () => {
    expect(results(object("extensions/v1beta1", "Deployment", { replicas: 1 }))).toEqual([
      ["anything-labelled", "fail"],
      ["in-default", "pass"],
    ]);
  });

  it("evaluates only wildcard rules for kinds no rule names", () => {
    expect(results(object("v1", "Secret", {}))).toEqual([
      ["anything-labelled", "fail"],
      ["in-default", "fail"],
    ]);
  });
});

describe("compiled patterns reused across requests", () => {
  const seccomp = policy([
    {
      name: "seccomp",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      validate: {
        pattern: {
          spec: {
            containers: [
              { "=(securityContext)": { "=(seccompProfile)": { "=(type)": "RuntimeDefault | Localhost" } } },
            ],
          },
        },
      },
    },
  ]);
  const pod = (type: string | undefined) =>
    object("v1", "Pod", {
      containers: [
        { name: "c", image: "nginx", ...(type ? { securityContext: { seccompProfile: { type } } } : {}) },
      ],
    });

  it("gives each request its own answer and path", () => {
    const engine = createEngine({ clock });
    const compiled = engine.compile(seccomp);
    if (!compiled.ok) throw new Error("compile");
    const answers = ["RuntimeDefault", "Unconfined", undefined, "Localhost", "Unconfined"].map((type) => {
      const r = engine.validate(compiled.policy, { resource: pod(type) }).rules[0];
      return [r?.status, r?.message];
    });
    expect(answers.map((a) => a[0])).toEqual(["pass", "fail", "pass", "pass", "fail"]);
    expect(answers[1]?.[1]).toContain("/spec/containers/0/securityContext/seccompProfile/type/");
    expect(answers[4]).toEqual(answers[1]);
  });

  it("agrees between engines, and when the same policy is compiled twice", () => {
    const a = createEngine({ clock });
    const b = createEngine({ clock });
    const first = a.compile(seccomp);
    const again = a.compile(seccomp);
    const other = b.compile(seccomp);
    if (!first.ok || !again.ok || !other.ok) throw new Error("compile");
    const req: EngineRequest = { resource: pod("Unconfined") };
    const expected = a.validate(first.policy, req);
    expect(a.validate(again.policy, req)).toEqual(expected);
    expect(b.validate(other.policy, req)).toEqual(expected);
  });

  it("compiles patterns with variables per request, after substitution", () => {
    const engine = createEngine({ clock });
    const compiled = engine.compile(
      policy([
        {
          name: "same-namespace-label",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { pattern: { metadata: { labels: { ns: "{{ request.object.metadata.namespace }}" } } } },
        },
      ]),
    );
    if (!compiled.ok) throw new Error("compile");
    const status = (ns: string, label: string) =>
      engine.validate(compiled.policy, {
        resource: {
          ...object("v1", "Pod", {}, { ns: label }),
          metadata: { name: "x", namespace: ns, labels: { ns: label } },
        },
      }).rules[0]?.status;
    expect([status("a", "a"), status("b", "a"), status("b", "b")]).toEqual(["pass", "fail", "pass"]);
  });
});

describe("external data", () => {
  const fromConfigMap: Rule = {
    name: "mode",
    match: { any: [{ resources: { kinds: ["Pod"] } }] },
    validate: {
      message: "locked",
      foreach: [
        {
          list: "request.object.spec.containers",
          context: [{ name: "settings", configMap: { name: "settings", namespace: "kyverno" } }],
          deny: {
            conditions: { any: [{ key: "{{ settings.data.mode }}", operator: "Equals", value: "locked" }] },
          },
        },
      ],
    },
  };

  it("marks policies whose rules (or foreach) read ConfigMaps, API calls or global context", () => {
    const engine = createEngine({ clock });
    const compiled = engine.compile(policy([fromConfigMap]));
    const plain = engine.compile(policy([noHostPath]));
    expect(compiled.ok && compiled.policy.readsExternalData).toBe(true);
    expect(plain.ok && plain.policy.readsExternalData).toBe(false);
  });

  it("answers a request's context entries from the request's own loader, before the engine's", () => {
    const engine = createEngine({
      clock,
      contextLoader: { configMap: () => ({ ok: true, value: { data: { mode: "open" } } }) },
    });
    const compiled = engine.compile(policy([fromConfigMap]));
    if (!compiled.ok) throw new Error("does not compile");
    const resource = object("v1", "Pod", { containers: [{ name: "a", image: "x" }] });
    expect(engine.validate(compiled.policy, { resource }).rules[0]?.status).toBe("pass");
    const request: EngineRequest = {
      resource,
      contextLoader: { configMap: () => ({ ok: true, value: { data: { mode: "locked" } } }) },
    };
    expect(engine.validate(compiled.policy, request).rules[0]?.status).toBe("fail");
  });

  it("hands a service call its headers with variables substituted, and its caBundle", () => {
    const calls: unknown[] = [];
    const engine = createEngine({
      clock,
      contextLoader: {
        apiCall: (call) => {
          calls.push(call);
          return { ok: true, value: { allowed: true } };
        },
      },
    });
    const rule: Rule = {
      name: "ask",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      context: [
        {
          name: "answer",
          apiCall: {
            method: "GET",
            service: {
              url: "https://checker.example/{{ request.object.metadata.name }}",
              caBundle: "-----BEGIN CERTIFICATE-----",
              headers: [{ key: "X-Namespace", value: "{{ request.object.metadata.namespace }}" }],
            },
          },
        },
      ],
      validate: {
        message: "refused",
        deny: { conditions: { any: [{ key: "{{ answer.allowed }}", operator: "Equals", value: false }] } },
      },
    };
    const compiled = engine.compile(policy([rule]));
    if (!compiled.ok) throw new Error("does not compile");
    const resource = object("v1", "Pod", { containers: [] });
    expect(engine.validate(compiled.policy, { resource }).rules[0]?.status).toBe("pass");
    expect(calls).toEqual([
      {
        url: "https://checker.example/x",
        method: "GET",
        headers: [{ key: "X-Namespace", value: "default" }],
        caBundle: "-----BEGIN CERTIFICATE-----",
      },
    ]);
  });
});

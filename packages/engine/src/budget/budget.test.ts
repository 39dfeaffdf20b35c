import type { KubeObject, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import type { EngineOptions, EngineRequest } from "../engine-types.js";
import { createRequestCache } from "../evaluation/request-cache.js";
import { createBudget, DEFAULT_EVALUATION_LIMITS, evaluationLimits } from "./budget.js";

const NOW = Date.parse("2026-01-01T00:00:00Z");

function policy(rules: Rule[]): Policy {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "hostile" },
    spec: {
      rules,
      applyRules: "All",
      validationFailureAction: "Enforce",
      background: true,
      admission: true,
      emitWarning: false,
      failurePolicy: "Fail",
    },
  };
}

const matchPods = { any: [{ resources: { kinds: ["Pod"] } }] };

/** A Pod with `n` containers, each with `n` env vars (a nested foreach visits n + n² elements). */
function podWith(n: number): KubeObject {
  const env = Array.from({ length: n }, (_, i) => ({ name: `V${i}`, value: "x" }));
  const containers = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: "nginx:1", env }));
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "tenant" },
    spec: { containers },
  } as KubeObject;
}

function evaluate(
  rule: Rule,
  resource: KubeObject,
  options: EngineOptions = {},
  extra: Partial<EngineRequest> = {},
) {
  const engine = createEngine({ clock: { now: () => new Date(NOW).getTime() }, ...options });
  const compiled = engine.compile(policy([rule]));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
  return engine.validate(compiled.policy, { resource, ...extra });
}

const nestedForeach: Rule = {
  name: "nested",
  match: matchPods,
  validate: {
    foreach: [
      {
        list: "request.object.spec.containers",
        foreach: [
          {
            list: "element.env",
            deny: {
              conditions: { any: [{ key: "{{ element.value }}", operator: "Equals", value: "nope" }] },
            },
          },
        ],
      },
    ],
  },
} as unknown as Rule;

describe("evaluation budgets", () => {
  it("stops a nested foreach over too many elements with an error naming the budget", () => {
    const response = evaluate(nestedForeach, podWith(40), { limits: { foreachElements: 1000 } });
    expect(response.rules).toHaveLength(1);
    expect(response.rules[0]).toMatchObject({
      name: "nested",
      status: "error",
      message: "evaluation budget exceeded: more than 1000 foreach elements in one rule",
    });
  });

  it("lets the same rule pass when the elements fit the budget", () => {
    const response = evaluate(nestedForeach, podWith(30), { limits: { foreachElements: 1000 } });
    expect(response.rules[0]?.status).toBe("pass");
  });

  it("stops a pattern walk over a huge resource", () => {
    const rule = {
      name: "images",
      match: matchPods,
      validate: { pattern: { spec: { containers: [{ env: [{ value: "x" }] }] } } },
    } as unknown as Rule;
    const bounded = evaluate(rule, podWith(100), { limits: { patternNodes: 5000 } });
    expect(bounded.rules[0]).toMatchObject({
      status: "error",
      message: "evaluation budget exceeded: more than 5000 pattern nodes in one rule",
    });
    expect(evaluate(rule, podWith(100)).rules[0]?.status).toBe("pass");
  });

  it("keeps each engine's limits when two engines evaluate requests sharing one request cache", () => {
    const clock = { now: () => NOW };
    const bounded = createEngine({ clock, limits: { foreachElements: 1000 } });
    const unbounded = createEngine({ clock });
    const b = bounded.compile(policy([nestedForeach]));
    const u = unbounded.compile(policy([nestedForeach]));
    if (!b.ok || !u.ok) throw new Error("policy did not compile");
    const request: EngineRequest = { resource: podWith(40), cache: createRequestCache() };
    for (let i = 0; i < 2; i++) {
      expect(unbounded.validate(u.policy, request).rules[0]?.status).toBe("pass");
      expect(bounded.validate(b.policy, request).rules[0]?.status).toBe("error");
    }
  });

  it("stops a JMESPath expression that projects too much", () => {
    const rule = {
      name: "jp",
      match: matchPods,
      validate: {
        deny: {
          conditions: {
            any: [
              {
                key: "{{ length(request.object.spec.containers[].env[].value) }}",
                operator: "Equals",
                value: 0,
              },
            ],
          },
        },
      },
    } as unknown as Rule;
    const bounded = evaluate(rule, podWith(100), { limits: { jmespathSteps: 2000 } });
    expect(bounded.rules[0]).toMatchObject({
      status: "error",
      message: "evaluation budget exceeded: more than 2000 JMESPath steps in one rule",
    });
    expect(evaluate(rule, podWith(100)).rules[0]?.status).toBe("pass");
  });

  it("stops a validate.cel rule at its CEL cost limit", () => {
    const rule = {
      name: "cel",
      match: matchPods,
      validate: {
        cel: {
          expressions: [
            {
              expression:
                "object.spec.containers.all(c, object.spec.containers.all(d, c.env.all(e, e.value == 'x')))",
            },
          ],
        },
      },
    } as unknown as Rule;
    const bounded = evaluate(rule, podWith(30), { limits: { celCost: 1000 } });
    expect(bounded.rules[0]?.status).toBe("error");
    expect(bounded.rules[0]?.message).toContain("operation cancelled: actual cost limit exceeded");
    expect(evaluate(rule, podWith(30)).rules[0]?.status).toBe("pass");
  });

  it("stops a rule whose request deadline passes while it runs, and the rules after it", () => {
    let now = NOW;
    // Time moves on as the rule works: the clock advances a millisecond each time it is read.
    const clock = {
      now: () => {
        now += 1;
        return now;
      },
    };
    const engine = createEngine({ clock });
    const compiled = engine.compile(policy([nestedForeach, { ...nestedForeach, name: "second" }]));
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
    const response = engine.validate(compiled.policy, { resource: podWith(200), deadline: NOW + 5 });
    expect(response.rules.map((r) => [r.name, r.status, r.message])).toEqual([
      ["nested", "error", "evaluation budget exceeded: the request's deadline passed during the rule"],
      ["second", "error", "evaluation budget exceeded: the request's deadline passed during the rule"],
    ]);
  });

  it("leaves rules alone when the deadline is far", () => {
    const response = evaluate(nestedForeach, podWith(20), {}, { deadline: NOW + 60_000 });
    expect(response.rules[0]?.status).toBe("pass");
  });

  it("rejects limits that are not positive numbers", () => {
    expect(() => evaluationLimits({ patternNodes: 0 })).toThrow(/patternNodes must be a positive number/);
    expect(evaluationLimits(undefined)).toBe(DEFAULT_EVALUATION_LIMITS);
  });

  it("checks the deadline only every few thousand units of work", () => {
    let reads = 0;
    const budget = createBudget({
      limits: DEFAULT_EVALUATION_LIMITS,
      deadline: 0,
      now: () => {
        reads++;
        return 1;
      },
    });
    for (let i = 0; i < 4095; i++) budget.charge("patternNodes", 1);
    expect(reads).toBe(0);
    expect(() => budget.charge("patternNodes", 1)).toThrow("the request's deadline passed");
    expect(reads).toBe(1);
  });
});

import type { Conditions, KubeObject, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";

function policy(rules: Rule[]): Policy {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "g" },
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
const namespaces = { any: [{ resources: { kinds: ["Namespace"] } }] };
const namespace = {
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: "team-a", labels: { teams: "a b" } },
} as KubeObject;

function generate(rules: Rule[]) {
  const engine = createEngine();
  const c = engine.compile(policy(rules));
  if (!c.ok) throw new Error(JSON.stringify(c.issues));
  return engine.generate(c.policy, { resource: namespace });
}

const configMap = {
  apiVersion: "v1",
  kind: "ConfigMap",
  name: "cm-{{ element }}",
  namespace: "{{ request.object.metadata.name }}",
  data: { data: { team: "{{ element }}" } },
};

/** A condition that cannot be evaluated: its operator is unknown. */
const broken = { all: [{ key: "{{ element }}", operator: "Bogus", value: "x" }] };

describe("engine.generate foreach", () => {
  it("generates one object per element whose preconditions hold", () => {
    const r = generate([
      {
        name: "per-team",
        match: namespaces,
        generate: {
          foreach: [
            {
              list: "split(request.object.metadata.labels.teams, ' ')",
              preconditions: { all: [{ key: "{{ element }}", operator: "NotEquals", value: "b" }] },
              ...configMap,
            },
          ],
        },
      },
    ]);
    expect(r.rules[0]?.status).toBe("pass");
    expect(r.rules[0]?.generated?.map((g) => g.object.metadata?.name)).toEqual(["cm-a"]);
  });

  it("reports a foreach entry's preconditions error with the message of a rule's", () => {
    const rule = generate([
      {
        name: "rule",
        match: namespaces,
        preconditions: broken as unknown as Conditions,
        generate: configMap,
      },
    ]);
    const ruleMessage = rule.rules[0]?.message ?? "";
    expect(rule.rules[0]?.status).toBe("error");
    expect(ruleMessage).toMatch(/^failed to evaluate preconditions: /);
    const entry = generate([
      {
        name: "entry",
        match: namespaces,
        generate: {
          foreach: [
            { list: "split(request.object.metadata.labels.teams, ' ')", preconditions: broken, ...configMap },
          ],
        },
      },
    ]);
    expect(entry.rules[0]).toMatchObject({
      status: "error",
      message: `failed to generate resources: ${ruleMessage.replace("/preconditions", "/generate/foreach/0/preconditions")}`,
    });
  });
});

import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { loadPolicy } from "./load.js";
import type { JsonValue, Policy } from "./types.js";
import { validatePolicyUpdate } from "./update.js";

function policy(rules: string, spec = ""): Policy {
  const doc = parse(
    `apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n${spec}  rules:\n${rules.replace(/^/gm, "  ")}`,
  ) as JsonValue;
  const r = loadPolicy(doc, { file: "p.yaml" });
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join("\n"));
  return r.value;
}

const generate = (name: string, sync: boolean, value: string, target = "zk") => `- name: ${name}
  match: {any: [{resources: {kinds: [Namespace]}}]}
  generate:
    synchronize: ${sync}
    apiVersion: v1
    kind: ConfigMap
    name: ${target}
    namespace: "{{request.object.metadata.name}}"
    data: {data: {ADDRESS: "${value}"}}
`;

const VALIDATE = `- name: v
  match: {any: [{resources: {kinds: [Pod]}}]}
  validate: {pattern: {metadata: {name: "?*"}}}
`;

describe("validatePolicyUpdate", () => {
  test("data and synchronize of a generate rule may change; its target may not", () => {
    const old = policy(generate("g", true, "10.0.0.1"));
    expect(validatePolicyUpdate(old, policy(generate("g", false, "10.0.0.2"))).errors).toEqual([]);
    expect(validatePolicyUpdate(old, policy(generate("g", true, "10.0.0.1", "other"))).errors).toEqual([
      {
        path: "spec.rules[0].generate",
        message: "change of immutable fields for a generate rule is disallowed",
      },
    ]);
  });

  test("rules may be added or deleted around unchanged generate rules", () => {
    const old = policy(generate("g", true, "a") + VALIDATE);
    expect(validatePolicyUpdate(old, policy(generate("g", true, "a"))).errors).toEqual([]);
    expect(
      validatePolicyUpdate(old, policy(generate("g", true, "a") + generate("h", true, "b"))).errors,
    ).toEqual([]);
    const two = policy(generate("g", true, "a") + generate("h", true, "b"));
    expect(validatePolicyUpdate(two, policy(generate("g", true, "a", "changed"))).errors).toEqual([
      {
        path: "spec.rules[0].generate",
        message: "rule deletion - change of immutable fields for a generate rule is disallowed",
      },
    ]);
  });

  test("a policy without generate rules may change freely", () => {
    const changed = VALIDATE.replace('"?*"', "app-*");
    expect(validatePolicyUpdate(policy(VALIDATE), policy(changed))).toEqual({ errors: [], warnings: [] });
  });

  test("changes that do not reach what a rule already did are warned about", () => {
    const old = policy(generate("g", false, "a"));
    expect(validatePolicyUpdate(old, policy(generate("g", false, "b"))).warnings).toEqual([
      {
        path: "spec.rules[0].generate",
        message: "rule g: resources generated before this change are not updated, as synchronize is false",
      },
    ]);
    expect(validatePolicyUpdate(old, policy(generate("g", false, "a"))).warnings).toEqual([]);
    const existing = (label: string, onUpdate: boolean) => `- name: m
  match: {any: [{resources: {kinds: [ConfigMap]}}]}
  mutate:
    mutateExistingOnPolicyUpdate: ${onUpdate}
    targets: [{apiVersion: v1, kind: Secret, namespace: staging}]
    patchStrategicMerge: {metadata: {labels: {team: ${label}}}}
`;
    expect(validatePolicyUpdate(policy(existing("a", false)), policy(existing("b", false))).warnings).toEqual(
      [
        {
          path: "spec.rules[0].mutate",
          message:
            "rule m: existing targets are not mutated on this policy update, as mutateExistingOnPolicyUpdate is false; the change applies from the next trigger",
        },
      ],
    );
    expect(validatePolicyUpdate(policy(existing("a", true)), policy(existing("b", true))).warnings).toEqual(
      [],
    );
  });
});

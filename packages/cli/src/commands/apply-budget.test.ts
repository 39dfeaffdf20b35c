import { afterEach, describe, expect, it } from "vitest";
import { cli, tempTree } from "../testing/harness.js";

/** A ClusterPolicy whose nested foreach visits containers × containers elements. */
const NESTED_FOREACH = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: nested
spec:
  validationFailureAction: Enforce
  background: true
  rules:
    - name: nested-foreach
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        foreach:
          - list: request.object.spec.containers
            foreach:
              - list: request.object.spec.containers
                deny:
                  conditions:
                    any:
                      - key: "{{ element.name }}"
                        operator: Equals
                        value: nope
`;

/** A ValidatingPolicy whose expression compares every container with every other (n × n iterations). */
const NESTED_CEL = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata:
  name: cel-nested
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [pods]
  validations:
    - expression: "object.spec.containers.all(c, object.spec.containers.all(d, c.name != 'x' + d.name))"
      message: never
`;

function podWith(n: number): string {
  const containers = Array.from(
    { length: n },
    (_, i) => `      - name: c${i}\n        image: nginx:1.25`,
  ).join("\n");
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  namespace: default\nspec:\n  containers:\n${containers}\n`;
}

describe("kyverno-ts apply with a hostile policy", { timeout: 60_000 }, () => {
  const trees: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of trees.splice(0)) cleanup();
  });

  it("ends the rule with an error naming the budget instead of evaluating a million elements", async () => {
    const t = tempTree({ "policy.yaml": NESTED_FOREACH, "pod.yaml": podWith(1000) });
    trees.push(t.cleanup);
    const run = await cli(["apply", "policy.yaml", "--resource", "pod.yaml"], t.dir);
    expect(run.stdout).toContain("pass: 0, fail: 0, warn: 0, error: 1, skip: 0");
    expect(run.stdout).toContain("nested-foreach");
    expect(run.stdout).toContain("evaluation budget exceeded: more than 100000 foreach elements in one rule");
    expect(run.code).toBe(1);
  });

  it("evaluates the same policy on an ordinary Pod", async () => {
    const t = tempTree({ "policy.yaml": NESTED_FOREACH, "pod.yaml": podWith(3) });
    trees.push(t.cleanup);
    const run = await cli(["apply", "policy.yaml", "--resource", "pod.yaml"], t.dir);
    expect(run.stdout).toContain("pass: 1, fail: 0, warn: 0, error: 0, skip: 0");
    expect(run.code).toBe(0);
  });

  it("stops a ValidatingPolicy's expensive expression at its cost limit (or deadline) with an error", async () => {
    // 2,000 × 2,000 comparisons: four times the CEL cost limit.
    const t = tempTree({ "policy.yaml": NESTED_CEL, "pod.yaml": podWith(2000) });
    trees.push(t.cleanup);
    const run = await cli(["apply", "policy.yaml", "--resource", "pod.yaml"], t.dir);
    expect(run.stdout).toContain("pass: 0, fail: 0, warn: 0, error: 1, skip: 0");
    expect(run.stdout).toContain("policy cel-nested -> resource default/Pod/big error");
    // Upstream's wording: the cost limit, or the evaluation's deadline on a slow machine.
    expect(run.stdout).toMatch(
      /operation cancelled: (actual cost limit exceeded|evaluation deadline exceeded)/,
    );
    expect(run.code).toBe(1);
  });

  it("passes an ordinary Pod through the same ValidatingPolicy", async () => {
    const t = tempTree({ "policy.yaml": NESTED_CEL, "pod.yaml": podWith(3) });
    trees.push(t.cleanup);
    const run = await cli(["apply", "policy.yaml", "--resource", "pod.yaml"], t.dir);
    expect(run.stdout).toContain("pass: 1, fail: 0, warn: 0, error: 0, skip: 0");
    expect(run.code).toBe(0);
  });
});

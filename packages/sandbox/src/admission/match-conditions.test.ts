import { describe, expect, it } from "vitest";
import { type ConditionBindings, createMatchConditionsEvaluator } from "./match-conditions.js";
import { admissionRequestBase } from "./review.js";
import { podAttrs } from "./testing/attrs.js";

const attrs = podAttrs();
const bindings: ConditionBindings = {
  object: attrs.object,
  oldObject: attrs.oldObject,
  request: admissionRequestBase(attrs),
  requestResource: { group: "", resource: "pods", subresource: "", namespace: "default", name: "nginx" },
};
const mc = (...expressions: string[]) => expressions.map((expression, i) => ({ name: `c${i}`, expression }));

describe("match conditions", () => {
  const evaluator = createMatchConditionsEvaluator();

  it.each([
    ["object.metadata.name == 'nginx'", true],
    ["object.metadata.labels.app == 'nginx'", true],
    ["has(object.metadata.annotations)", false],
    ["oldObject == null", true],
    ["request.operation == 'CREATE' && request.userInfo.username == 'alice'", true],
    ["'system:authenticated' in request.userInfo.groups", true],
    ["request.kind.kind == 'Pod' && request.resource.resource == 'pods'", true],
    ["request.dryRun == false && request.options.kind == 'CreateOptions'", true],
    ["size(object.spec.containers) == 1", true],
    ["object.spec.containers.all(c, c.image.startsWith('nginx'))", true],
    ["!request.userInfo.username.startsWith('system:')", true],
    ["authorizer.group('').resource('pods').namespace('default').check('create').allowed()", true],
    ["authorizer.requestResource.check('create').allowed()", true],
    [
      "authorizer.serviceAccount('ns', 'sa').group('apps').resource('deployments').check('get').errored()",
      false,
    ],
  ])("%s → %s", (expression, expected) => {
    expect(evaluator.evaluate(mc(expression), "Fail", bindings)).toEqual({ matches: expected });
  });

  it("matches only when all are true", () => {
    expect(evaluator.evaluate(mc("true", "true"), "Fail", bindings)).toEqual({ matches: true });
    expect(evaluator.evaluate(mc("true", "false"), "Fail", bindings)).toEqual({ matches: false });
    expect(evaluator.evaluate([], "Fail", bindings)).toEqual({ matches: true });
  });

  it("an error fails under Fail and skips under Ignore", () => {
    const conditions = mc("object.metadata.annotations.x == 'y'");
    const failed = evaluator.evaluate(conditions, "Fail", bindings);
    expect(failed.error).toMatch(/^expression 'object.metadata.annotations.x == 'y'' resulted in error: /);
    expect(evaluator.evaluate(conditions, "Ignore", bindings)).toEqual({ matches: false });
  });

  it("a false condition wins over an error, whatever the policy", () => {
    expect(evaluator.evaluate(mc("1/0 == 1", "false"), "Fail", bindings)).toEqual({ matches: false });
  });

  it("aggregates several errors as upstream does", () => {
    const r = evaluator.evaluate(mc("1/0 == 1", "'a' == 1/0"), "Fail", bindings);
    expect(r.error).toMatch(
      /^\[expression '1\/0 == 1' resulted in error: .*, expression ''a' == 1\/0' resulted in error: .*\]$/,
    );
  });

  it("reports parse errors and non-bool results as errors", () => {
    expect(evaluator.evaluate(mc("object.("), "Fail", bindings).error).toMatch(/^compilation error: /);
    expect(evaluator.evaluate(mc("object.metadata.name"), "Fail", bindings).error).toMatch(
      /must evaluate to bool/,
    );
  });

  it("sees whole numbers as ints", () => {
    const withReplicas = { ...bindings, object: { spec: { replicas: 3, ratio: 0.5 } } };
    expect(
      evaluator.evaluate(mc("object.spec.replicas == 3", "object.spec.ratio < 1.0"), "Fail", withReplicas),
    ).toEqual({ matches: true });
  });
});

import { describe, expect, it } from "vitest";
import { createJmespath } from "../jmespath/index.js";
import { conditionPaths } from "./condition-paths.js";
import { evaluateConditions, evaluateConditionsAt } from "./conditions.js";
import { createEngineMemo } from "./memo.js";
import type { Scope } from "./variables.js";

const scope: Scope = {
  jp: createJmespath({ clock: { now: () => new Date(0).getTime() } }),
  ctx: { request: { operation: "CREATE" } },
  isDelete: false,
  memo: createEngineMemo(),
};

describe("condition blocks", () => {
  it("name the failing entry by its pointer", () => {
    const unknown = { all: [{ key: "a", operator: "Exists", value: "a" }] };
    expect(evaluateConditions(scope, unknown, "/validate/deny/conditions", "strict")).toEqual({
      ok: false,
      error: "/validate/deny/conditions/all/0: failed to create handler for condition operator Exists",
    });
    const unresolved = [
      { key: "{{ request.operation }}", operator: "Equals", value: "CREATE" },
      { key: "{{ missing.x }}", operator: "Equals", value: "x" },
    ];
    expect(evaluateConditionsAt(scope, unresolved, conditionPaths("/p"), "strict")).toEqual({
      ok: false,
      error:
        'failed to resolve missing.x at path /p/1/key: JMESPath query failed: Unknown key "missing" in path',
    });
  });

  it("hold as upstream's any / all, with the message of a failing condition", () => {
    const paths = conditionPaths("/validate/preconditions");
    const notDelete = {
      key: "{{ request.operation || 'BACKGROUND' }}",
      operator: "NotEquals",
      value: "DELETE",
    };
    expect(evaluateConditionsAt(scope, { all: [notDelete] }, paths, "lenient")).toEqual({
      ok: true,
      value: true,
    });
    const failing = { key: "a", operator: "Equals", value: "b", message: "a is not b" };
    expect(evaluateConditionsAt(scope, { any: [failing, notDelete] }, paths, "lenient")).toEqual({
      ok: true,
      value: true,
    });
    expect(evaluateConditionsAt(scope, { all: [notDelete, failing] }, paths, "lenient")).toEqual({
      ok: true,
      value: false,
      message: "a is not b",
    });
  });
});

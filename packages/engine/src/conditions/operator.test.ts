import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { evaluateOperator, isKnownOperator, operatorFor } from "./operator.js";

type Case = [key: JsonValue, operator: string, value: JsonValue | undefined, expected: boolean];

function table(cases: Case[]) {
  it.each(cases)("%j %s %j → %s", (key, operator, value, expected) => {
    expect(evaluateOperator(operator, key, value)).toEqual({ ok: true, value: expected });
  });
}

describe("documented examples (preconditions.md)", () => {
  table([
    // Service type precondition
    ["NodePort", "Equals", "NodePort", true],
    ["ClusterIP", "Equals", "NodePort", false],
    // any/all label preconditions, with `|| ''` defaults for missing labels
    ["red", "Equals", "blue", false],
    ["busybox", "Equals", "busybox", true],
    ["", "Equals", "blue", false],
    ["cow", "Equals", "cow", true],
    // length of hostPath volumes
    [2, "GreaterThan", 0, true],
    [0, "GreaterThan", 0, false],
    // resource quantities compared across scales
    ["512Mi", "LessThan", "1Gi", true],
    ["1Gi", "LessThan", "1Gi", false],
    ["2Gi", "LessThan", "1Gi", false],
    ["1500M", "LessThan", "1Gi", false],
    // wildcard host
    ["app.mycompany.com", "NotEquals", "*.mycompany.com", false],
    ["app.other.com", "NotEquals", "*.mycompany.com", true],
    // requests from service accounts
    ["", "NotEquals", "", false],
    ["builder", "NotEquals", "", true],
    ["build-default", "AnyIn", ["build-default", "build-base"], true],
    ["deployer", "AnyIn", ["build-default", "build-base"], false],
    // custom message example
    ["cheese", "Equals", "cheese", true],
    ["monday", "Equals", "tuesday", false],
  ]);
});

describe("operator names", () => {
  it.each(["Equals", "equals", "EQUAL", "NotEqual", "anynotin", "DurationLessThanOrEquals", "In", "NotIn"])(
    "%s is known",
    (op) => {
      expect(isKnownOperator(op)).toBe(true);
    },
  );

  it("rejects an unknown operator with an error", () => {
    expect(isKnownOperator("Exists")).toBe(false);
    const r = evaluateOperator("Exists", "a", "a");
    expect(r.ok).toBe(false);
  });

  it("looks operators up in any spelling, the same function for each spelling", () => {
    expect(operatorFor("NotEquals")).toBe(operatorFor("notequals"));
    // Every operator answers to any case, whether or not it is spelled as documented.
    for (const name of ["Equals", "AnyNotIn", "GreaterThanOrEquals", "DurationLessThan", "AllIn"]) {
      expect(operatorFor(name), name).toBeDefined();
      expect(operatorFor(name.toUpperCase())).toBe(operatorFor(name));
    }
    expect(operatorFor("NotEquals")?.("a", "b")).toBe(true);
    expect(operatorFor("Exists")).toBeUndefined();
    expect(operatorFor("Exists")).toBeUndefined();
  });
});

describe("Equals / NotEquals", () => {
  table([
    ["nginx:1.2", "Equals", "nginx:*", true],
    ["nginx:*", "Equals", "nginx:1.2", false],
    ["abc", "Equal", "a?c", true],
    ["1h", "Equals", "60m", true],
    ["1h", "Equals", 3600, true],
    ["90s", "Equals", "1m30s", true],
    ["1Gi", "Equals", "1024Mi", true],
    ["1Gi", "Equals", "1G", false],
    ["1", "Equals", "1.0", true],
    ["1", "Equals", "*", false],
    ["0", "Equals", 0, false],
    [3, "Equals", 3, true],
    [3, "Equals", "3", true],
    [3, "Equals", "3.0", false],
    [2.5, "Equals", "2.5", true],
    [3, "Equals", "1h", false],
    [true, "Equals", true, true],
    [true, "Equals", "true", false],
    ["true", "Equals", true, false],
    [null, "Equals", null, false],
    [null, "NotEquals", "x", true],
    [{ a: [1, { b: "c" }] }, "Equals", { a: [1, { b: "c" }] }, true],
    [{ a: 1 }, "Equals", { a: 1, b: 2 }, false],
    [["a", "b"], "Equals", ["a", "b"], true],
    [["a", "b"], "Equals", ["b", "a"], false],
    [["a"], "Equals", "a", false],
    ["a", "NotEquals", "b", true],
    ["a", "NotEqual", "a", false],
    ["x", "Equals", undefined, false],
  ]);
});

describe("AnyIn / AllIn / AnyNotIn / AllNotIn", () => {
  table([
    // scalar key
    ["CREATE", "AnyIn", ["CREATE", "UPDATE"], true],
    ["DELETE", "AnyIn", ["CREATE", "UPDATE"], false],
    ["DELETE", "AnyNotIn", ["CREATE", "UPDATE"], true],
    ["CREATE", "AllNotIn", ["CREATE", "UPDATE"], false],
    ["CREATE", "AllIn", ["CREATE"], true],
    ["kube-system", "AnyIn", ["kube-*"], true],
    ["kube-*", "AnyIn", ["kube-system"], true],
    [8080, "AnyIn", ["8080", "9090"], true],
    [8080, "AnyIn", [8080], true],
    [true, "AnyIn", [true], true],
    // list key
    [["a", "b"], "AnyIn", ["b", "c"], true],
    [["a", "b"], "AnyIn", ["c"], false],
    [["a", "b"], "AllIn", ["a", "b", "c"], true],
    [["a", "d"], "AllIn", ["a", "b", "c"], false],
    [["a", "d"], "AnyNotIn", ["a", "b"], true],
    [["a", "b"], "AnyNotIn", ["a", "b"], false],
    [["x", "y"], "AllNotIn", ["a", "b"], true],
    [["x", "a"], "AllNotIn", ["a", "b"], false],
    [["NET_RAW", "ALL"], "AnyIn", ["ALL"], true],
    [[false, true], "AnyIn", [true], true],
    [[false, false], "AnyIn", [true], false],
    [["app.kubernetes.io/name", "team"], "AllIn", ["app.kubernetes.io/*", "team"], true],
    // empty key lists
    [[], "AnyIn", ["a"], false],
    [[], "AllIn", ["a"], true],
    [[], "AllNotIn", ["a"], true],
    [[], "AnyNotIn", ["a"], false],
    // string values: one element, or a JSON array of strings
    ["build-base", "AnyIn", "build-*", true],
    ["CREATE", "AnyIn", '["CREATE","UPDATE"]', true],
    [["a"], "AnyIn", "a", true],
    [["a", "b"], "AllIn", '["a","b","c"]', true],
    ["other", "AnyIn", "build-*", false],
    ["other", "AnyNotIn", "not json", false],
    // unusable values
    ["a", "AnyIn", 3, false],
    ["a", "AnyNotIn", null, false],
    [null, "AnyIn", ["a"], false],
    [{ a: 1 }, "AnyIn", ["a"], false],
  ]);
});

describe("numeric ranges in set values", () => {
  table([
    [5, "AnyIn", ["1-10"], true],
    ["5", "AnyIn", ["1-10"], true],
    [11, "AnyIn", ["1-10"], false],
    [10, "AllIn", ["1-10"], true],
    [[80, 443], "AllIn", ["1-1024"], true],
    [[80, 8080], "AllIn", ["1-1024"], false],
    [[80, 8080], "AnyNotIn", ["1-1024"], true],
    [8080, "AnyIn", ["1!-1024"], true],
    [80, "AnyIn", ["1!-1024"], false],
    [[8080, 9090], "AllNotIn", ["8000-8999"], false],
    [5, "AnyIn", "1-10", true],
    ["abc", "AnyIn", ["1-10"], false],
  ]);
});

describe("In / NotIn (deprecated)", () => {
  table([
    ["a", "In", ["a", "b"], true],
    ["c", "In", ["a", "b"], false],
    ["c", "NotIn", ["a", "b"], true],
    ["a", "NotIn", ["a", "b"], false],
    ["ab", "In", ["a*"], true],
    [["a", "b"], "In", ["a", "b", "c"], true],
    [["a", "z"], "In", ["a", "b", "c"], false],
    [["a", "z"], "NotIn", ["a", "b", "c"], true],
    [["ab"], "In", ["a*"], false],
    [["a"], "In", [1, "a"], false],
    [["a", "b"], "In", '["a","b"]', true],
  ]);
});

describe("ranges against list keys", () => {
  it("AnyNotIn with a list key and a range string value checks each element", () => {
    expect(evaluateOperator("AnyNotIn", [53], "5000-6000")).toEqual({ ok: true, value: true });
    expect(evaluateOperator("AnyNotIn", [5500, 5600], "5000-6000")).toEqual({ ok: true, value: false });
    expect(evaluateOperator("AllIn", [5500, 5600], "5000-6000")).toEqual({ ok: true, value: true });
  });
});

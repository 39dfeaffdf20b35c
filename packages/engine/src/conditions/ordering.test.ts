import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { evaluateOperator } from "./operator.js";

type Case = [key: JsonValue, operator: string, value: JsonValue | undefined, expected: boolean];

function table(cases: Case[]) {
  it.each(cases)("%j %s %j → %s", (key, operator, value, expected) => {
    expect(evaluateOperator(operator, key, value)).toEqual({ ok: true, value: expected });
  });
}

describe("GreaterThan family on numbers and numeric strings", () => {
  table([
    [3, "GreaterThan", 2, true],
    [2, "GreaterThan", 2, false],
    [2, "GreaterThanOrEquals", 2, true],
    [1.5, "LessThan", 2, true],
    [2, "LessThanOrEquals", 1.5, false],
    ["3", "GreaterThan", 2, true],
    [3, "GreaterThan", "2", true],
    ["10", "GreaterThan", "9", true],
    ["1", "GreaterThan", "0", true],
    [1, "GreaterThan", "1Gi", false],
    [true, "GreaterThan", 0, false],
    [null, "LessThan", 1, false],
    [["1"], "LessThan", 2, false],
    ["abc", "GreaterThan", "abd", false],
  ]);
});

describe("quantities", () => {
  table([
    ["2Gi", "GreaterThan", "1Gi", true],
    ["1Gi", "GreaterThanOrEquals", "1024Mi", true],
    ["500m", "LessThan", "1", true],
    // A string that is also a Go duration (`500m` = 500 minutes) meets a number as seconds first.
    ["500m", "LessThan", 1, false],
    ["500m", "LessThan", "1", true],
    ["1.5", "GreaterThan", 1, true],
    ["2", "GreaterThan", 1.9, true],
    ["2Gi", "LessThanOrEquals", "not-a-quantity", false],
    ["2Gi", "LessThan", true, false],
  ]);
});

describe("durations (numbers count as seconds)", () => {
  table([
    ["2h", "GreaterThan", "90m", true],
    ["30m", "LessThan", "1h", true],
    ["1h", "GreaterThanOrEquals", 3600, true],
    [3600, "LessThanOrEquals", "1h", true],
    [7200, "GreaterThan", "1h", true],
    ["1h30m", "GreaterThan", "1h", true],
    ["-1h", "LessThan", "0s", true],
    ["1h", "GreaterThan", "abc", false],
  ]);
});

describe("semantic versions", () => {
  table([
    ["1.10.0", "GreaterThan", "1.9.0", true],
    ["1.2.3", "LessThan", "1.2.4", true],
    ["1.2.3", "GreaterThanOrEquals", "1.2.3", true],
    ["1.0.0-rc.1", "LessThan", "1.0.0", true],
    ["1.0.0-alpha", "LessThan", "1.0.0-alpha.1", true],
    ["1.0.0-alpha.beta", "GreaterThan", "1.0.0-alpha.1", true],
    ["1.0.0-beta.11", "GreaterThan", "1.0.0-beta.2", true],
    ["1.0.0+build.5", "LessThanOrEquals", "1.0.0", true],
    ["1.2.3", "GreaterThan", "v1.2.0", false],
    ["v1.2.3", "GreaterThan", "1.2.0", false],
    ["01.2.3", "GreaterThan", "1.2.0", false],
    ["1.2.3", "GreaterThan", 1, false],
  ]);
});

describe("Duration* operators (deprecated)", () => {
  table([
    ["2h", "DurationGreaterThan", "1h", true],
    ["1h", "DurationGreaterThan", "1h", false],
    ["1h", "DurationGreaterThanOrEquals", "60m", true],
    ["30s", "DurationLessThan", 60, true],
    [90, "DurationGreaterThan", "1m", true],
    [1.9, "DurationLessThanOrEquals", 1, true],
    [120, "DurationLessThanOrEquals", 60, false],
    ["30", "DurationLessThan", "1m", false],
    ["abc", "DurationLessThan", "1m", false],
    [true, "DurationLessThan", "1m", false],
    ["1h", "durationlessthan", "2h", true],
  ]);
});

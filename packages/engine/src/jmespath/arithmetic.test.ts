import { describe, expect, it } from "vitest";
import { evaluator } from "./testing/evaluator.js";

const { value, error } = evaluator();

describe("add", () => {
  it("adds numbers, quantities and durations", () => {
    expect(value("add(`10`, `2.5`)")).toBe(12.5);
    expect(value("add('10Mi', '5Ki')")).toBe("10245Ki");
    expect(value("add('100m', '1')")).toBe("1100m");
    expect(value("add('1h', '30m0s')")).toBe("1h30m0s");
    expect(value("add('1h', `5`)")).toBe("1h0m5s");
    expect(value("add(`1`, '1Gi')")).toBe("1073741825");
  });
  it("sums requests and limits as in the docs example", () => {
    const container = { resources: { requests: { memory: "100Mi" }, limits: { memory: "150Mi" } } };
    expect(value("add(resources.requests.memory || `0`, resources.limits.memory || `0`)", container)).toBe(
      "250Mi",
    );
  });
  it("rejects mixed or invalid operands", () => {
    expect(error("add('1h', '1Mi')")).toBe("JMESPath function 'add': types mismatch");
    expect(error("add('abc', `1`)")).toBe("JMESPath function 'add': invalid operands");
    expect(error("add(`true`, `1`)")).toBe("JMESPath function 'add': invalid operands");
  });
});

describe("subtract", () => {
  it("subtracts numbers, quantities and durations", () => {
    expect(value("subtract(`10`, `3`)")).toBe(7);
    expect(value("subtract('10Mi', '5Ki')")).toBe("10235Ki");
    expect(value("subtract('1h', '90m0s')")).toBe("-30m0s");
    expect(value("subtract('1', '1500m')")).toBe("-500m");
  });
  it("rejects invalid operands", () => {
    expect(error("subtract('10Mi', '1h')")).toContain("types mismatch");
    expect(error("subtract(@, `1`)", {})).toContain("invalid operands");
    // "30m" reads as 30 milli (a quantity), so minutes must be written "30m0s"
    expect(error("subtract('1h', '30m')")).toContain("types mismatch");
  });
});

describe("multiply", () => {
  it("multiplies numbers, and quantities or durations by numbers", () => {
    expect(value("multiply(`3`, `2`)")).toBe(6);
    expect(value("multiply('10Mi', `2`)")).toBe("20Mi");
    expect(value("multiply(`2`, '250m')")).toBe("500m");
    expect(value("multiply('1h30m', `2`)")).toBe("3h0m0s");
    expect(value("multiply('1s', `0.5`)")).toBe("500ms");
  });
  it("rejects unit × unit", () => {
    expect(error("multiply('1Mi', '2Mi')")).toBe("JMESPath function 'multiply': types mismatch");
    expect(error("multiply('1h', '1h')")).toContain("types mismatch");
  });
});

describe("divide", () => {
  it("divides with the documented result types", () => {
    expect(value("divide(`10`, `4`)")).toBe(2.5);
    expect(value("divide('10Mi', '5Ki')")).toBe(2048);
    expect(value("divide('10Mi', `2`)")).toBe("5Mi");
    expect(value("divide('12', `5`)")).toBe("2");
    expect(value("divide('1h', '30m0s')")).toBe(2);
    expect(value("divide('1h', `4`)")).toBe("15m0s");
  });
  it("compares limits to requests as in the docs example", () => {
    expect(
      value(
        "divide('{{limits}}', '{{requests}}')"
          .replace("{{limits}}", "300Mi")
          .replace("{{requests}}", "100Mi"),
      ),
    ).toBe(3);
  });
  it("reports division by zero and mismatches", () => {
    expect(error("divide(`1`, `0`)")).toBe("JMESPath function 'divide': Zero divisor passed");
    expect(error("divide('1Mi', '0')")).toContain("Zero divisor");
    expect(error("divide('1h', '0s')")).toContain("Zero divisor");
    expect(error("divide('1Mi', `0`)")).toContain("Zero divisor");
    expect(error("divide(`1`, '1Mi')")).toContain("types mismatch");
  });
});

describe("modulo", () => {
  it("computes integer remainders", () => {
    expect(value("modulo(`10`, `3`)")).toBe(1);
    expect(value("modulo(`-7`, `3`)")).toBe(-1);
    expect(value("modulo('10Gi', '3Gi')")).toBe("1Gi");
    expect(value("modulo('90s', '1m0s')")).toBe("30s");
  });
  it("rejects fractions, zero and mixed types", () => {
    expect(error("modulo(`10.5`, `3`)")).toBe(
      "JMESPath function 'modulo': Non-integer argument(s) passed for modulo",
    );
    expect(error("modulo('1', '500m')")).toContain("Non-integer");
    expect(error("modulo(`1`, `0`)")).toBe("JMESPath function 'modulo': Zero divisor passed");
    expect(error("modulo('1Gi', `2`)")).toContain("types mismatch");
  });
});

describe("sum", () => {
  it("sums homogeneous arrays", () => {
    expect(value("sum(input)", { input: ["2Ki", "5Gi", "8Mi"] })).toBe("5251074Ki");
    expect(value("sum(input)", { input: ["2h", "50s", "90s"] })).toBe("2h2m20s");
    expect(value("sum(input)", { input: [6, 3, 8] })).toBe(17);
    expect(
      value("sum(spec.containers[].resources.requests.memory)", {
        spec: {
          containers: [
            { resources: { requests: { memory: "512Mi" } } },
            { resources: { requests: { memory: "1Gi" } } },
          ],
        },
      }),
    ).toBe("1536Mi");
  });
  it("needs at least one element of compatible types", () => {
    expect(error("sum(`[]`)")).toBe("JMESPath function 'sum': at least one element in the array is required");
    expect(error('sum(`["1h", "1Mi"]`)')).toContain("types mismatch");
    expect(error("sum('x')")).toContain("sum()");
  });
});

describe("round", () => {
  it("rounds half away from zero", () => {
    expect(value("round(`10.125`, `2`)")).toBe(10.13);
    expect(value("round(input, `2`)", { input: 10.123456 })).toBe(10.12);
    expect(value("round(`-2.5`, `0`)")).toBe(-3);
  });
  it("rejects bad precision", () => {
    expect(error("round(`1.5`, `0.5`)")).toBe(
      "JMESPath function 'round': Non-integer argument(s) passed for round off",
    );
    expect(error("round(`1.5`, `-1`)")).toContain("out of bounds");
    expect(error("round('1.5', `1`)")).toContain("round()");
  });
});

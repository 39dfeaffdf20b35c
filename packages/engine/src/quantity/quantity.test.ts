import { describe, expect, it } from "vitest";
import {
  addQuantities,
  compareQuantities,
  divideQuantities,
  formatQuantity,
  multiplyQuantities,
  parseQuantity,
  type Quantity,
  quantityToNumber,
  subtractQuantities,
} from "./index.js";

function q(s: string): Quantity {
  const parsed = parseQuantity(s);
  if (parsed === undefined) throw new Error(`not a quantity: ${s}`);
  return parsed;
}

describe("parseQuantity", () => {
  it.each([
    ["100Mi", "100Mi"],
    ["500m", "500m"],
    ["1.5", "1500m"],
    ["1e3", "1e3"],
    ["1E3", "1e3"],
    ["1k", "1k"],
    ["1000", "1k"],
    ["1.5Gi", "1536Mi"],
    ["0.5Ki", "512"],
    ["1536", "1536"],
    ["0.1n", "1n"],
    ["-2Gi", "-2Gi"],
    ["+3", "3"],
    ["0", "0"],
    ["12e-1", "1200e-3"],
    ["1E", "1E"],
    ["10000000000000000000", "10E"],
  ])("parses %s and prints it canonically as %s", (input, canonical) => {
    expect(formatQuantity(q(input))).toBe(canonical);
  });

  it.each(["", "1K", "abc", "1Mb", "1e", "1.2.3", "1 Gi", "1e99999"])("rejects %j", (input) => {
    expect(parseQuantity(input)).toBeUndefined();
  });

  it("is as lenient as Go: a missing number reads as 0", () => {
    expect(formatQuantity(q("Mi"))).toBe("0");
    expect(formatQuantity(q("-"))).toBe("0");
    expect(formatQuantity(q("1.G"))).toBe("1G");
  });

  it("keeps Go's scale for the int64 fast path and rounds the rest to nano", () => {
    expect(q("1.50")).toMatchObject({ mantissa: 150n, exponent: -2 });
    expect(q("1.5Gi")).toMatchObject({ exponent: -9, format: "BinarySI" });
  });
});

describe("compareQuantities", () => {
  it("compares across suffixes exactly", () => {
    expect(compareQuantities(q("1Gi"), q("1000Mi"))).toBe(1);
    expect(compareQuantities(q("500m"), q("1"))).toBe(-1);
    expect(compareQuantities(q("0.5"), q("500m"))).toBe(0);
    expect(compareQuantities(q("1k"), q("1000"))).toBe(0);
    expect(compareQuantities(q("1Ki"), q("1k"))).toBe(1);
    expect(compareQuantities(q("-1"), q("0"))).toBe(-1);
  });
});

describe("quantity arithmetic", () => {
  it("adds and subtracts in the first operand's format", () => {
    expect(formatQuantity(addQuantities(q("10Mi"), q("5Ki")))).toBe("10245Ki");
    expect(formatQuantity(subtractQuantities(q("10Mi"), q("5Ki")))).toBe("10235Ki");
    expect(formatQuantity(addQuantities(q("0"), q("1Gi")))).toBe("1Gi");
    expect(formatQuantity(addQuantities(q("100m"), q("1")))).toBe("1100m");
  });

  it("multiplies and divides exactly", () => {
    expect(formatQuantity(multiplyQuantities(q("10Mi"), q("2")))).toBe("20Mi");
    expect(formatQuantity(multiplyQuantities(q("100m"), q("0.5")))).toBe("50m");
    expect(formatQuantity(divideQuantities(q("12"), q("5")) ?? q("0"))).toBe("2");
    expect(formatQuantity(divideQuantities(q("1.50"), q("7")) ?? q("0"))).toBe("210m");
    expect(divideQuantities(q("1"), q("0"))).toBeUndefined();
  });

  it("approximates as a float", () => {
    expect(quantityToNumber(q("1Ki"))).toBe(1024);
    expect(quantityToNumber(q("250m"))).toBe(0.25);
  });
});

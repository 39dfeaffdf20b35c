/**
 * Kyverno's arithmetic on numbers, Kubernetes quantities and Go durations.
 *
 * A number argument is a scalar; a string is a quantity when it parses as one, else a duration.
 * Mixing a quantity with a duration is a type mismatch. Results: scalar ∘ scalar → number;
 * quantity ± quantity|scalar → quantity string; duration ± duration|scalar(seconds) → duration string;
 * quantity|duration × scalar → same kind; quantity ÷ quantity and duration ÷ duration → number;
 * quantity|duration ÷ scalar → same kind; modulo needs operands of one kind.
 */

import type { JsonValue } from "@kyverno-ts/api";
import { formatDuration, parseDurationExact } from "@kyverno-ts/k8s";
import {
  addQuantities,
  divideQuantities,
  formatQuantity,
  multiplyQuantities,
  parseQuantity,
  type Quantity,
  quantityFromBigInt,
  quantityToNumber,
  subtractQuantities,
} from "../quantity/index.js";
import { arg, type FunctionDef } from "./context.js";
import { formatFloat64 } from "./convert.js";
import { functionError } from "./errors.js";

type Operand =
  | { kind: "scalar"; value: number }
  | { kind: "quantity"; value: Quantity }
  | { kind: "duration"; value: bigint };

const SECOND = 1_000_000_000n;

function parseOperand(value: JsonValue | undefined): Operand | undefined {
  if (typeof value === "number") return { kind: "scalar", value };
  if (typeof value !== "string") return undefined;
  const q = parseQuantity(value);
  if (q !== undefined) return { kind: "quantity", value: q };
  const d = parseDurationExact(value);
  return d === undefined ? undefined : { kind: "duration", value: d };
}

function operands(fn: string, args: readonly JsonValue[]): [Operand, Operand] {
  const a = parseOperand(args[0]);
  const b = parseOperand(args[1]);
  const kinds = new Set([a?.kind, b?.kind]);
  if (kinds.has("quantity") && kinds.has("duration")) throw functionError(fn, "types mismatch");
  if (a === undefined || b === undefined) throw functionError(fn, "invalid operands");
  return [a, b];
}

/** A scalar as a quantity, the way Kyverno does it: `resource.ParseQuantity(fmt.Sprintf("%v", f))`. */
function scalarQuantity(fn: string, value: number): Quantity {
  const q = parseQuantity(formatFloat64(value));
  if (q === undefined)
    throw functionError(
      fn,
      `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  return q;
}

/** Go's Duration.Seconds(). */
function seconds(ns: bigint): number {
  return Number(ns / SECOND) + Number(ns % SECOND) / 1e9;
}

/** Go's `time.Duration(f)` conversion of a float64 number of nanoseconds (truncation). */
function durationFromFloat(fn: string, ns: number): bigint {
  if (!Number.isFinite(ns)) throw functionError(fn, "duration out of range");
  return BigInt(Math.trunc(ns));
}

const mismatch = (fn: string): never => {
  throw functionError(fn, "types mismatch");
};

function add(fn: string, a: Operand, b: Operand, sign: 1 | -1): JsonValue {
  const combine = sign === 1 ? addQuantities : subtractQuantities;
  if (a.kind === "scalar" && b.kind === "scalar") return sign === 1 ? a.value + b.value : a.value - b.value;
  if (a.kind === "quantity" || b.kind === "quantity") {
    const x =
      a.kind === "quantity" ? a.value : a.kind === "scalar" ? scalarQuantity(fn, a.value) : mismatch(fn);
    const y =
      b.kind === "quantity" ? b.value : b.kind === "scalar" ? scalarQuantity(fn, b.value) : mismatch(fn);
    return formatQuantity(combine(x, y));
  }
  const x = a.kind === "duration" ? a.value : durationFromFloat(fn, a.value * 1e9);
  const y = b.kind === "duration" ? b.value : durationFromFloat(fn, b.value * 1e9);
  return formatDuration(sign === 1 ? x + y : x - y);
}

function multiply(fn: string, a: Operand, b: Operand): JsonValue {
  if (a.kind === "scalar" && b.kind === "scalar") return a.value * b.value;
  const [other, scalar] =
    a.kind === "scalar" ? [b, a.value] : b.kind === "scalar" ? [a, b.value] : mismatch(fn);
  if (other.kind === "quantity")
    return formatQuantity(multiplyQuantities(other.value, scalarQuantity(fn, scalar)));
  if (other.kind === "duration")
    return formatDuration(durationFromFloat(fn, seconds(other.value) * scalar * 1e9));
  return mismatch(fn);
}

function divide(fn: string, a: Operand, b: Operand): JsonValue {
  const zero = () => functionError(fn, "Zero divisor passed");
  if (a.kind === "scalar") {
    if (b.kind !== "scalar") return mismatch(fn);
    if (b.value === 0) throw zero();
    return a.value / b.value;
  }
  if (a.kind === "quantity") {
    if (b.kind === "quantity") {
      const divisor = quantityToNumber(b.value);
      if (divisor === 0) throw zero();
      return quantityToNumber(a.value) / divisor;
    }
    if (b.kind !== "scalar") return mismatch(fn);
    if (b.value === 0) throw zero();
    const quotient = divideQuantities(a.value, scalarQuantity(fn, b.value));
    if (quotient === undefined) throw zero();
    return formatQuantity(quotient);
  }
  if (b.kind === "duration") {
    if (b.value === 0n) throw zero();
    return seconds(a.value) / seconds(b.value);
  }
  if (b.kind !== "scalar") return mismatch(fn);
  if (b.value === 0) throw zero();
  return formatDuration(durationFromFloat(fn, (seconds(a.value) / b.value) * 1e9));
}

function modulo(fn: string, a: Operand, b: Operand): JsonValue {
  const nonInt = () => functionError(fn, "Non-integer argument(s) passed for modulo");
  const zero = () => functionError(fn, "Zero divisor passed");
  if (a.kind === "scalar" && b.kind === "scalar") {
    if (!Number.isInteger(a.value) || !Number.isInteger(b.value)) throw nonInt();
    if (b.value === 0) throw zero();
    const r = a.value % b.value;
    return r === 0 ? 0 : r;
  }
  if (a.kind === "quantity" && b.kind === "quantity") {
    const x = quantityToNumber(a.value);
    const y = quantityToNumber(b.value);
    if (!Number.isInteger(x) || !Number.isInteger(y)) throw nonInt();
    if (y === 0) throw zero();
    return formatQuantity(quantityFromBigInt(BigInt(x) % BigInt(y), a.value.format));
  }
  if (a.kind === "duration" && b.kind === "duration") {
    if (b.value === 0n) throw zero();
    return formatDuration(a.value % b.value);
  }
  return mismatch(fn);
}

/** Go's math.Round: half away from zero. */
function goRound(x: number): number {
  const t = Math.trunc(x);
  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
}

function sum(fn: string, items: JsonValue | undefined): JsonValue {
  if (!Array.isArray(items)) throw functionError(fn, "1 argument is expected of Array type");
  if (items.length === 0) throw functionError(fn, "at least one element in the array is required");
  let result: JsonValue = items[0] ?? null;
  for (const item of items.slice(1)) {
    const [a, b] = operands(fn, [result, item]);
    result = add(fn, a, b, 1);
  }
  return result;
}

const any2 = [arg("any"), arg("any")];

/** The arithmetic functions: add, subtract, multiply, divide, modulo, sum, round. */
export const arithmeticFunctions: readonly FunctionDef[] = [
  {
    name: "add",
    args: any2,
    returns: "any",
    description:
      "adds numbers, quantities ('10Mi') or durations ('1h'); a number added to a duration counts seconds",
    call: (a) => add("add", ...operands("add", a), 1),
  },
  {
    name: "subtract",
    args: any2,
    returns: "any",
    description: "subtracts numbers, quantities or durations",
    call: (a) => add("subtract", ...operands("subtract", a), -1),
  },
  {
    name: "multiply",
    args: any2,
    returns: "any",
    description: "multiplies numbers, or a quantity or duration by a number",
    call: (a) => multiply("multiply", ...operands("multiply", a)),
  },
  {
    name: "divide",
    args: any2,
    returns: "any",
    description: "divides numbers, quantities or durations; like units give a number",
    call: (a) => divide("divide", ...operands("divide", a)),
  },
  {
    name: "modulo",
    args: any2,
    returns: "any",
    description: "remainder of integer numbers, quantities or durations",
    call: (a) => modulo("modulo", ...operands("modulo", a)),
  },
  {
    name: "sum",
    args: [arg("array")],
    returns: "any",
    description: "adds up an array of numbers, quantities or durations (at least one element)",
    call: (a) => sum("sum", a[0]),
  },
  {
    name: "round",
    args: [arg("number"), arg("number")],
    returns: "number",
    description: "rounds a number to the given number of decimal places",
    call: (a) => {
      const value = typeof a[0] === "number" ? a[0] : 0;
      const places = typeof a[1] === "number" ? a[1] : 0;
      if (!Number.isInteger(places))
        throw functionError("round", "Non-integer argument(s) passed for round off");
      if (places < 0) throw functionError("round", "2 argument is out of bounds (0)");
      const shift = 10 ** places;
      return goRound(value * shift) / shift;
    },
  },
];

/**
 * Matching one resource value against one scalar pattern (string, number, bool or null), following
 * Kyverno's `pattern.Validate`. Strings carry the pattern language: `|` (or), `&` (and), the operators
 * of `string-operator.ts`, wildcards, and duration → quantity → string comparison.
 */
import type { JsonValue } from "@kyverno-ts/api";
import { compareQuantities, parseDurationExact, parseQuantity } from "../quantity/index.js";
import { matchWildcard } from "../wildcard/wildcard.js";
import { formatGoExponent, formatGoFixed, parseGoFloat, parseGoInt } from "./go-strconv.js";
import { operatorOf, rangeEndpoints, type StringOperator } from "./string-operator.js";

/** A pattern leaf: anything that is not a map or a list. */
export type ScalarPattern = string | number | boolean | null;

/**
 * True when `value` satisfies the scalar `pattern`. A missing value is passed as `null`.
 * Maps and lists never satisfy a scalar pattern (the caller spreads lists over their elements).
 */
export function matchScalar(value: JsonValue, pattern: ScalarPattern): boolean {
  if (pattern === null) return matchNull(value);
  if (typeof pattern === "boolean") return typeof value === "boolean" && value === pattern;
  if (typeof pattern === "number")
    return Number.isInteger(pattern) ? matchInt(value, pattern) : matchFloat(value, pattern);
  return matchStringPattern(value, pattern);
}

/** A null pattern accepts a missing value or the zero value of a scalar type. */
function matchNull(value: JsonValue): boolean {
  return value === null || value === 0 || value === "" || value === false;
}

function matchInt(value: JsonValue, pattern: number): boolean {
  if (typeof value === "number") return value === pattern;
  if (typeof value === "string") return parseGoInt(value) === pattern;
  return false;
}

function matchFloat(value: JsonValue, pattern: number): boolean {
  if (typeof value === "number") return value === pattern;
  if (typeof value === "string") return parseGoFloat(value) === pattern;
  return false;
}

/** `a | b & c`: split on `|` first (any alternative may match), then on `&` (all terms must match). */
function matchStringPattern(value: JsonValue, pattern: string): boolean {
  if (value === pattern) return true;
  return pattern.split("|").some((alternative) =>
    trimSpaces(alternative)
      .split("&")
      .every((term) => matchTerm(value, trimSpaces(term))),
  );
}

function matchTerm(value: JsonValue, term: string): boolean {
  const op = operatorOf(term);
  if (op === "-" || op === "!-") {
    const ends = rangeEndpoints(term, op);
    if (ends === undefined) return false;
    const [low, high] = ends;
    return op === "-"
      ? matchTerm(value, `>=${low}`) && matchTerm(value, `<=${high}`)
      : matchTerm(value, `<${low}`) || matchTerm(value, `>${high}`);
  }
  const operand = term.slice(op.length).trim();
  return (
    compareDuration(value, operand, op) ||
    compareQuantity(value, operand, op) ||
    compareString(value, operand, op)
  );
}

type Comparison = Exclude<StringOperator, "-" | "!-">;

function holds(cmp: number, op: Comparison): boolean {
  switch (op) {
    case "":
      return cmp === 0;
    case "!":
      return cmp !== 0;
    case ">":
      return cmp > 0;
    case "<":
      return cmp < 0;
    case ">=":
      return cmp >= 0;
    case "<=":
      return cmp <= 0;
  }
}

/** The value as Go's `convertNumberToString` renders it for duration/quantity parsing; missing is `"0"`. */
function numericText(value: JsonValue): string | undefined {
  if (value === null) return "0";
  if (typeof value === "string") return value;
  if (typeof value === "number") return formatGoFixed(value);
  return undefined;
}

function compareDuration(value: JsonValue, operand: string, op: Comparison): boolean {
  const expected = parseDurationExact(operand);
  if (expected === undefined) return false;
  const text = numericText(value);
  const actual = text === undefined ? undefined : parseDurationExact(text);
  if (actual === undefined) return false;
  return holds(actual < expected ? -1 : actual > expected ? 1 : 0, op);
}

function compareQuantity(value: JsonValue, operand: string, op: Comparison): boolean {
  const expected = parseQuantity(operand);
  if (expected === undefined) return false;
  const text = numericText(value);
  const actual = text === undefined ? undefined : parseQuantity(text);
  if (actual === undefined) return false;
  return holds(compareQuantities(actual, expected), op);
}

/** Strings only support equality and inequality, both with wildcards; scalars are printed first. */
function compareString(value: JsonValue, operand: string, op: Comparison): boolean {
  if (op !== "" && op !== "!") return false;
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "number") text = formatGoExponent(value);
  else if (typeof value === "boolean") text = String(value);
  else return false;
  const matched = matchWildcard(operand, text);
  return op === "!" ? !matched : matched;
}

/** Go `strings.Trim(s, " ")`: removes spaces only, not other whitespace. */
function trimSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s[start] === " ") start++;
  while (end > start && s[end - 1] === " ") end--;
  return s.slice(start, end);
}

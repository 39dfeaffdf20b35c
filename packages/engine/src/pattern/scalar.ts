/**
 * Matching one resource value against one scalar pattern (string, number, bool or null), following
 * Kyverno's `pattern.Validate`. Strings carry the pattern language: `|` (or), `&` (and), the operators
 * of `string-operator.ts`, wildcards, and duration → quantity → string comparison.
 */

import type { JsonValue } from "@kyverno-ts/api";
import { parseDurationExact } from "@kyverno-ts/k8s";
import { compareQuantities, parseQuantity, type Quantity } from "../quantity/index.js";
import { hasWildcard, matchWildcard } from "../wildcard/wildcard.js";
import { formatGoExponent, formatGoFixed, parseGoFloat, parseGoInt } from "./go-strconv.js";
import { operatorOf, rangeEndpoints, type StringOperator } from "./string-operator.js";

/** A pattern leaf: anything that is not a map or a list. */
export type ScalarPattern = string | number | boolean | null;

/** A scalar pattern parsed once: call it with a resource value (`null` when missing). */
export type ScalarMatcher = (value: JsonValue) => boolean;

/**
 * True when `value` satisfies the scalar `pattern`. A missing value is passed as `null`.
 * Maps and lists never satisfy a scalar pattern (the caller spreads lists over their elements).
 * Parses the pattern on every call; compiled patterns use `compileScalar` once instead.
 */
export function matchScalar(value: JsonValue, pattern: ScalarPattern): boolean {
  return compileScalar(pattern)(value);
}

/** Parses a scalar pattern (operators, `|` / `&`, ranges, durations, quantities) into a matcher. */
export function compileScalar(pattern: ScalarPattern): ScalarMatcher {
  if (pattern === null) return matchNull;
  if (typeof pattern === "boolean") return (value) => typeof value === "boolean" && value === pattern;
  if (typeof pattern === "number")
    return Number.isInteger(pattern)
      ? (value) => matchInt(value, pattern)
      : (value) => matchFloat(value, pattern);
  return compileStringPattern(pattern);
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
function compileStringPattern(pattern: string): ScalarMatcher {
  const alternatives = pattern.split("|").map((alternative) =>
    trimSpaces(alternative)
      .split("&")
      .map((term) => compileTerm(trimSpaces(term))),
  );
  if (alternatives.length === 1 && alternatives[0]?.length === 1) {
    const only = alternatives[0][0] as ScalarMatcher;
    return (value) => value === pattern || only(value);
  }
  return (value) => {
    if (value === pattern) return true;
    for (const terms of alternatives) {
      let all = true;
      for (const term of terms) {
        if (!term(value)) {
          all = false;
          break;
        }
      }
      if (all) return true;
    }
    return false;
  };
}

function compileTerm(term: string): ScalarMatcher {
  const op = operatorOf(term);
  if (op === "-" || op === "!-") {
    const ends = rangeEndpoints(term, op);
    if (ends === undefined) return () => false;
    const [low, high] = ends;
    if (op === "-") {
      const atLeast = compileTerm(`>=${low}`);
      const atMost = compileTerm(`<=${high}`);
      return (value) => atLeast(value) && atMost(value);
    }
    const below = compileTerm(`<${low}`);
    const above = compileTerm(`>${high}`);
    return (value) => below(value) || above(value);
  }
  const operand = term.slice(op.length).trim();
  const duration = parseDurationExact(operand);
  const quantity = parseQuantity(operand);
  const stringOp = op === "" || op === "!";
  const wildcard = hasWildcard(operand);
  return (value) =>
    (duration !== undefined && compareDuration(value, duration, op)) ||
    (quantity !== undefined && compareQuantity(value, quantity, op)) ||
    (stringOp && compareString(value, operand, op === "!", wildcard));
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

function compareDuration(value: JsonValue, expected: bigint, op: Comparison): boolean {
  const text = numericText(value);
  const actual = text === undefined ? undefined : parseDurationExact(text);
  if (actual === undefined) return false;
  return holds(actual < expected ? -1 : actual > expected ? 1 : 0, op);
}

function compareQuantity(value: JsonValue, expected: Quantity, op: Comparison): boolean {
  const text = numericText(value);
  const actual = text === undefined ? undefined : parseQuantity(text);
  if (actual === undefined) return false;
  return holds(compareQuantities(actual, expected), op);
}

/** Strings only support equality and inequality, both with wildcards; scalars are printed first. */
function compareString(value: JsonValue, operand: string, negated: boolean, wildcard: boolean): boolean {
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "number") text = formatGoExponent(value);
  else if (typeof value === "boolean") text = String(value);
  else return false;
  const matched = wildcard ? matchWildcard(operand, text) : operand === text;
  return negated ? !matched : matched;
}

/** Go `strings.Trim(s, " ")`: removes spaces only, not other whitespace. */
function trimSpaces(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s[start] === " ") start++;
  while (end > start && s[end - 1] === " ") end--;
  return s.slice(start, end);
}

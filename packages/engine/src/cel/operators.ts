/**
 * Operators the planner evaluates itself for the common cases (strings, ints, bools, lists of them,
 * optional field paths), falling back to `@bufbuild/cel`'s overloads (`generic`) for the rest.
 */
import { type CelList, type CelValue, celError, isCelError, isCelList, isCelMap } from "@bufbuild/cel";
import { index, isPrimitive, type Node, type Result, typeName } from "./access.js";
import type { Expr } from "./ast.js";
import { optionalInner } from "./functions/optional.js";
import { valueList } from "./values.js";

/** The library's overloads of an operator, for the cases without a fast path. */
export type Generic = (target: Result | undefined, values: CelValue[]) => Result;

function both(l: Node, r: Node, then: (a: CelValue, b: CelValue) => Result): Node {
  return (vars, frame) => {
    const a = l(vars, frame);
    if (isCelError(a)) return a;
    const b = r(vars, frame);
    if (isCelError(b)) return b;
    return then(a, b);
  };
}

/** `==` / `!=`: primitives of one type compared directly. */
export function equalsNode(l: Node, r: Node, generic: Generic, equal: boolean): Node {
  return both(l, r, (a, b) =>
    isPrimitive(a) && isPrimitive(b) && typeof a === typeof b
      ? (a === b) === equal
      : generic(undefined, [a, b]),
  );
}

/** `in`: a primitive in a list of primitives scanned directly. */
export function inNode(
  l: Node,
  r: Node,
  generic: Generic,
  items: (list: CelList) => readonly CelValue[],
): Node {
  return both(l, r, (needle, list) => {
    if (isPrimitive(needle) && isCelList(list)) {
      let primitives = true;
      for (const item of items(list)) {
        if (item === needle) return true;
        if (!isPrimitive(item)) primitives = false;
      }
      if (primitives) return false;
    }
    return generic(undefined, [needle, list]);
  });
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `<`, `<=`, `>`, `>=`: ints, doubles or strings of one type compared directly. */
export function compareNode(op: string, l: Node, r: Node, generic: Generic): Node {
  const test =
    op === "_<_"
      ? (a: Comparable, b: Comparable) => a < b
      : op === "_<=_"
        ? (a: Comparable, b: Comparable) => a <= b
        : op === "_>_"
          ? (a: Comparable, b: Comparable) => a > b
          : (a: Comparable, b: Comparable) => a >= b;
  return both(l, r, (a, b) => {
    const t = typeof a;
    return (t === "bigint" || t === "string" || t === "number") && typeof b === t
      ? test(a as Comparable, b as Comparable)
      : generic(undefined, [a, b]);
  });
}

type Comparable = bigint | string | number;

/**
 * `a.b` on a map: the field, else what `index` answers (CEL's errors, a field of an optional).
 */
export function fieldNode(target: Node, field: string, id: bigint): Node {
  return (vars, frame) => {
    const c = target(vars, frame);
    if (isCelMap(c)) {
      const v = c.get(field);
      if (v !== undefined) return v;
    }
    return index(c, field, id);
  };
}

/** `+`: ints added (within int64), strings joined and lists concatenated into one array list. */
export function plusNode(
  l: Node,
  r: Node,
  generic: Generic,
  items: (list: CelList) => readonly CelValue[],
): Node {
  return both(l, r, (a, b) => {
    if (typeof a === "bigint" && typeof b === "bigint") {
      const sum = a + b;
      if (sum >= INT64_MIN && sum <= INT64_MAX) return sum;
      return generic(undefined, [a, b]);
    }
    if (typeof a === "string" && typeof b === "string") return a + b;
    if (isCelList(a) && isCelList(b)) {
      if (a.size === 0) return b;
      if (b.size === 0) return a;
      const out = items(a).slice();
      for (const v of items(b)) out.push(v);
      return valueList(out);
    }
    return generic(undefined, [a, b]);
  });
}

/** `size(x)` / `x.size()` of lists and maps. */
export function sizeNode(target: Node, generic: Generic, method: boolean): Node {
  return (vars, frame) => {
    const v = target(vars, frame);
    if (isCelError(v)) return v;
    if (isCelList(v) || isCelMap(v)) return BigInt(v.size);
    return method ? generic(v, []) : generic(undefined, [v]);
  };
}

/** The value of a string constant, or undefined for any other expression. */
export function constantString(e: Expr | undefined): string | undefined {
  if (e?.exprKind.case !== "constExpr") return undefined;
  const c = e.exprKind.value.constantKind;
  return c.case === "stringValue" ? c.value : undefined;
}

/** A comprehension's range, its size charged first (as the tick function does, without the overload lookup). */
export function tickNode(range: Node, charge: (cost: number) => void, id: bigint): Node {
  const numericId = Number(id);
  return (vars, frame) => {
    const v = range(vars, frame);
    if (isCelError(v)) return v;
    try {
      charge(isCelList(v) || isCelMap(v) ? v.size + 1 : 1);
    } catch (error) {
      return celError(error, numericId);
    }
    return v;
  };
}

/** The constant string keys of a fused optional path (`optPath__(a, ["b", "c"], d)`), if constant. */
export function constantKeys(list: Expr | undefined): string[] | undefined {
  if (list?.exprKind.case !== "listExpr") return undefined;
  const keys: string[] = [];
  for (const x of list.exprKind.value.elements) {
    if (x.exprKind.case !== "constExpr" || x.exprKind.value.constantKind.case !== "stringValue")
      return undefined;
    keys.push(x.exprKind.value.constantKind.value);
  }
  return keys;
}

/**
 * A fused optional path: walks `path` from the base (none at a missing field or null), then the
 * value or `fallback` (`orValue`), or whether there was a value (`hasValue`, no fallback).
 */
export function optPathNode(
  base: Node,
  path: readonly string[],
  fallback: Node | undefined,
  id: bigint,
): Node {
  return (vars, frame) => {
    const b = base(vars, frame);
    if (isCelError(b)) return b;
    let v: CelValue | undefined = optionalInner(b);
    for (let i = 0; i < path.length && v !== undefined; i++) {
      if (v === null) v = undefined;
      else if (isCelMap(v)) v = v.get(path[i] as string);
      else return celError(`no such field '${path[i]}' for optional selection on ${typeName(v)}`, id);
    }
    if (fallback === undefined) return v !== undefined;
    return v === undefined ? fallback(vars, frame) : v;
  };
}

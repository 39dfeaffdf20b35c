/**
 * JMESPath plans: an expression's AST turned once into nested closures, so a search runs them
 * instead of walking the tree with the interpreter's big `switch` on every call. Each closure does
 * exactly what `@jmespath-community/jmespath`'s `TreeInterpreter.visit` does for its node type (the
 * differential tests in `plan.test.ts` compare the two); node types a plan does not cover (slices,
 * arithmetic, `let`, ternaries, functions taking expression references) return no plan, and the
 * caller uses the interpreter for the whole expression.
 */
import type { compile } from "@jmespath-community/jmespath";

/** A parsed expression, as `compile` returns it. */
export type Ast = ReturnType<typeof compile>;

/** A planned expression: the value of the expression for `value` (`root` is what `$` refers to). */
export type Plan = (value: unknown, root: unknown) => unknown;

/** Calls a registered function with evaluated arguments (the interpreter's runtime, with its checks). */
export type FunctionCaller = (name: string, args: unknown[]) => unknown;

/** Counts work (elements a projection or filter visits) against the search's budget; may throw to stop it. */
export type Tick = (units: number) => void;

const NO_TICK: Tick = () => {};

/** JMESPath falsiness: null, false, "", [] and {} (the interpreter's `isFalse`). */
export function isFalse(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return true;
  if (typeof v === "string") return v === "";
  if (typeof v === "object") {
    if (Array.isArray(v)) return v.length === 0;
    return Object.keys(v).length === 0;
  }
  return false;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && Object.prototype.toString.call(v) === "[object Object]";
}

/** Deep equality as the interpreter's `strictDeepEqual` (`==` and `!=`). */
export function strictDeepEqual(first: unknown, second: unknown): boolean {
  if (first === second) return true;
  if (typeof first !== typeof second) return false;
  if (Array.isArray(first) && Array.isArray(second)) {
    if (first.length !== second.length) return false;
    for (let i = 0; i < first.length; i++) if (!strictDeepEqual(first[i], second[i])) return false;
    return true;
  }
  if (isPlainObject(first) && isPlainObject(second)) {
    const keys = Object.keys(first);
    const secondKeys = new Set(Object.keys(second));
    if (keys.length !== secondKeys.size) return false;
    for (const key of keys) {
      if (!strictDeepEqual(first[key], second[key])) return false;
      secondKeys.delete(key);
    }
    return secondKeys.size === 0;
  }
  return false;
}

/** `value[name] ?? null` on objects (arrays and scalars give null), as the interpreter's `Field`. */
function field(name: string): Plan {
  return (value) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
    return (value as Record<string, unknown>)[name] ?? null;
  };
}

/** `a.b.c` with only fields: one closure for the whole chain. */
function fieldChain(names: readonly string[]): Plan {
  if (names.length === 1) return field(names[0] as string);
  return (value) => {
    let v = value;
    for (let i = 0; i < names.length; i++) {
      if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
      v = (v as Record<string, unknown>)[names[i] as string] ?? null;
    }
    return v;
  };
}

/** The field names of a chain of `Field` nodes joined by `Subexpression`, or undefined. */
function chainNames(node: Ast): string[] | undefined {
  if (node.type === "Field") return [node.name];
  if (node.type !== "Subexpression") return undefined;
  const left = chainNames(node.left);
  const right = left === undefined ? undefined : chainNames(node.right);
  return left === undefined || right === undefined ? undefined : [...left, ...right];
}

function compare(name: string, left: Plan, right: Plan): Plan | undefined {
  switch (name) {
    case "EQ":
      return (v, r) => strictDeepEqual(left(v, r), right(v, r));
    case "NE":
      return (v, r) => !strictDeepEqual(left(v, r), right(v, r));
  }
  const ordered = (test: (a: number, b: number) => boolean): Plan => {
    return (v, r) => {
      const a = left(v, r);
      const b = right(v, r);
      if (typeof a !== "number" || typeof b !== "number") return null;
      return test(a, b);
    };
  };
  switch (name) {
    case "GT":
      return ordered((a, b) => a > b);
    case "GTE":
      return ordered((a, b) => a >= b);
    case "LT":
      return ordered((a, b) => a < b);
    case "LTE":
      return ordered((a, b) => a <= b);
  }
  return undefined;
}

/** `array.flat()` (one level), without its generic and slow path; JSON arrays have no holes. */
function flatten(array: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < array.length; i++) {
    const item = array[i];
    if (Array.isArray(item)) for (let j = 0; j < item.length; j++) out.push(item[j]);
    else out.push(item);
  }
  return out;
}

/** Collects `right` of each element, dropping nulls (projections). */
function project(elements: readonly unknown[], right: Plan, root: unknown, tick: Tick): unknown[] {
  tick(elements.length);
  const out: unknown[] = [];
  for (let i = 0; i < elements.length; i++) {
    const current = right(elements[i], root);
    if (current !== null) out.push(current);
  }
  return out;
}

/**
 * Plans an expression, or returns undefined when it uses a node type plans do not cover (the
 * interpreter then evaluates it). `call` runs functions with the interpreter's own checks.
 */
export function planExpression(node: Ast, call: FunctionCaller, tick: Tick = NO_TICK): Plan | undefined {
  const plan = (n: Ast): Plan | undefined => planExpression(n, call, tick);
  /** A node with two operands: both planned, then combined (undefined when either has no plan). */
  const binary = (
    n: { left: Ast; right: Ast },
    make: (left: Plan, right: Plan) => Plan | undefined,
  ): Plan | undefined => {
    const left = plan(n.left);
    const right = left && plan(n.right);
    return left && right ? make(left, right) : undefined;
  };
  switch (node.type) {
    case "Field":
      return field(node.name);
    case "Subexpression": {
      const names = chainNames(node);
      if (names !== undefined) return fieldChain(names);
      return binary(node, (left, right) => (v, r) => {
        const result = left(v, r);
        return result != null ? (right(result, r) ?? null) : null;
      });
    }
    case "IndexExpression":
    case "Pipe":
      return binary(node, (left, right) => (v, r) => right(left(v, r), r));
    case "Index": {
      const index = node.value;
      return (v) => {
        if (!Array.isArray(v)) return null;
        return v[index < 0 ? v.length + index : index] ?? null;
      };
    }
    case "Projection":
      // A projection over a slice also applies to strings; slices are left to the interpreter.
      if (node.left.type === "IndexExpression" && node.left.right.type === "Slice") return undefined;
      return binary(node, (left, right) => (v, r) => {
        const base = left(v, r);
        return Array.isArray(base) ? project(base, right, r, tick) : null;
      });
    case "ValueProjection":
      return binary(node, (left, right) => (v, r) => {
        const base = left(v, r);
        if (base === null || typeof base !== "object" || Array.isArray(base)) return null;
        return project(Object.values(base), right, r, tick);
      });
    case "FilterProjection":
      return binary(node, (left, right) => {
        const condition = plan(node.condition);
        if (!condition) return undefined;
        return (v, r) => {
          const base = left(v, r);
          if (!Array.isArray(base)) return null;
          tick(base.length);
          const out: unknown[] = [];
          for (let i = 0; i < base.length; i++) {
            const element = base[i];
            if (isFalse(condition(element, r))) continue;
            const result = right(element, r);
            if (result !== null) out.push(result);
          }
          return out;
        };
      });
    case "Comparator":
      return binary(node, (left, right) => compare(node.name, left, right));
    case "Flatten": {
      const child = plan(node.child);
      if (!child) return undefined;
      return (v, r) => {
        const original = child(v, r);
        return Array.isArray(original) ? flatten(original) : null;
      };
    }
    case "Root":
      return (_v, r) => r;
    case "Current":
    case "Identity":
      return (v) => v;
    case "Literal": {
      const value = node.value;
      return () => value;
    }
    case "MultiSelectList": {
      const children = planAll(node.children, call, tick);
      if (!children) return undefined;
      return (v, r) => {
        const out: unknown[] = [];
        for (let i = 0; i < children.length; i++) out.push((children[i] as Plan)(v, r));
        return out;
      };
    }
    case "MultiSelectHash": {
      const names = node.children.map((c) => c.name);
      const values = planAll(
        node.children.map((c) => c.value),
        call,
        tick,
      );
      if (!values) return undefined;
      return (v, r) => {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < values.length; i++) out[names[i] as string] = (values[i] as Plan)(v, r);
        return out;
      };
    }
    case "OrExpression":
      return binary(node, (left, right) => (v, r) => {
        const result = left(v, r);
        return isFalse(result) ? right(v, r) : result;
      });
    case "AndExpression":
      return binary(node, (left, right) => (v, r) => {
        const result = left(v, r);
        return isFalse(result) ? result : right(v, r);
      });
    case "NotExpression": {
      const child = plan(node.child);
      if (!child) return undefined;
      return (v, r) => isFalse(child(v, r));
    }
    case "Function": {
      // Functions taking expression references (sort_by, map, …) evaluate them with the interpreter.
      if (node.children.some((c) => c.type === "ExpressionReference")) return undefined;
      const args = planAll(node.children, call, tick);
      if (!args) return undefined;
      const name = node.name;
      return (v, r) => {
        const values: unknown[] = [];
        for (let i = 0; i < args.length; i++) values.push((args[i] as Plan)(v, r));
        return call(name, values);
      };
    }
    default:
      return undefined;
  }
}

function planAll(nodes: readonly Ast[], call: FunctionCaller, tick: Tick): Plan[] | undefined {
  const out: Plan[] = [];
  for (const n of nodes) {
    const p = planExpression(n, call, tick);
    if (!p) return undefined;
    out.push(p);
  }
  return out;
}

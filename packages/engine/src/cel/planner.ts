/**
 * The planner of the policy environment: turns a prepared expression (see `ast.ts`) into a tree
 * of closures once, over `@bufbuild/cel`'s values and function library (operators, conversions,
 * the extensions and our libraries are all called through the environment's resolver).
 *
 * Why not `@bufbuild/cel`'s `plan`: it resolves every identifier as candidate qualified names
 * (`a.b.c`, `a.b`, `a`) against the activation and the protobuf registry, allocates an activation
 * per comprehension element and iterates comprehension ranges through generators, which made a
 * Pod Security policy about eight times as slow as its classic form. This planner binds
 * comprehension variables to frame slots at plan time and reads JSON maps directly; the semantics
 * (errors as values, commutative `&&` / `||`, CEL equality) are the same.
 */

import type { CelEnv } from "@bufbuild/cel";
import {
  type CelList,
  type CelMap,
  type CelValue,
  celError,
  celMap,
  isCelError,
  isCelList,
  isCelMap,
} from "@bufbuild/cel";
import { index, isPrimitive, type Node, type Result, TYPE_IDENTS, typeName } from "./access.js";
import type { Expr } from "./ast.js";
import {
  compareNode,
  constantKeys,
  constantString,
  equalsNode,
  fieldNode,
  inNode,
  optPathNode,
  plusNode,
  sizeNode,
  tickNode,
} from "./operators.js";
import { type BoolMacro, boolMacro, type Comprehension, quantifierNode } from "./quantifiers.js";
import { ValueList, valueList } from "./values.js";

/** A construct the planner rejects, with the id of the expression node (for its position). */
export class PlanError extends Error {
  constructor(
    message: string,
    readonly exprId: bigint,
  ) {
    super(message);
  }
}

/** A planned expression: call it with the bindings. */
export type Planned = (vars: Readonly<Record<string, CelValue>>) => Result;

type Call = Extract<Expr["exprKind"], { case: "callExpr" }>["value"];

/** Plans expressions of one environment. */
export class Planner {
  private locals: string[] = [];
  maxLocals = 0;

  constructor(
    private readonly env: CelEnv,
    private readonly variables: ReadonlySet<string>,
    private readonly arrays: ListArrays,
    /** Charges a comprehension's iterations (throws once the budget or deadline is exceeded). */
    private readonly tick?: { readonly name: string; readonly charge: (cost: number) => void },
  ) {}

  /** The items of a list as an array, read once per list. */
  private readonly listItems = (list: CelList): readonly CelValue[] => {
    if (list instanceof ValueList) return list.items;
    const cached = this.arrays.get(list);
    if (cached !== undefined) return cached;
    const out: CelValue[] = new Array(list.size);
    for (let i = 0; i < out.length; i++) out[i] = list.get(i) as CelValue;
    this.arrays.set(list, out);
    return out;
  };

  /** Plans `expr`; throws on a construct it does not know (reported as a compile error). */
  planRoot(expr: Expr): Planned {
    this.locals = [];
    this.maxLocals = 0;
    const node = this.plan(expr);
    const size = this.maxLocals;
    return (vars) => node(vars, size === 0 ? EMPTY_FRAME : new Array<Result>(size));
  }

  private plan(e: Expr): Node {
    const k = e.exprKind;
    switch (k.case) {
      case "constExpr":
        return this.constant(k.value.constantKind, e.id);
      case "identExpr":
        return this.ident(k.value.name, e.id);
      case "selectExpr":
        return this.select(k.value.operand as Expr, k.value.field, k.value.testOnly, e.id);
      case "callExpr":
        return this.call(k.value, e.id);
      case "listExpr": {
        const items = k.value.elements.map((x) => this.plan(x));
        if (k.value.elements.every((x) => x.exprKind.case === "constExpr")) {
          // A list of constants is built once.
          const constant = valueList(items.map((n) => n({}, EMPTY_FRAME) as CelValue));
          return () => constant;
        }
        return (vars, frame) => {
          const out: CelValue[] = new Array(items.length);
          for (let i = 0; i < items.length; i++) {
            const v = (items[i] as Node)(vars, frame);
            if (isCelError(v)) return v;
            out[i] = v;
          }
          return valueList(out);
        };
      }
      case "structExpr": {
        const entries = k.value.entries.map((entry) => {
          if (entry.keyKind.case !== "mapKey" || entry.value === undefined)
            throw new Error(`unsupported message literal ${k.value.messageName}`);
          return { key: this.plan(entry.keyKind.value), value: this.plan(entry.value) };
        });
        return (vars, frame) => {
          const out = new Map<string | bigint | boolean, CelValue>();
          for (const entry of entries) {
            const key = entry.key(vars, frame);
            if (isCelError(key)) return key;
            if (!isPrimitive(key)) return celError(`unsupported key type: ${typeName(key)}`, e.id);
            if (out.has(key)) return celError(`Failed with repeated key: ${String(key)}`, e.id);
            const value = entry.value(vars, frame);
            if (isCelError(value)) return value;
            out.set(key, value);
          }
          return celMap(out);
        };
      }
      case "comprehensionExpr":
        return this.comprehension(k.value, e.id);
      default:
        throw new Error("invalid expression");
    }
  }

  private constant(
    c: Extract<Expr["exprKind"], { case: "constExpr" }>["value"]["constantKind"],
    id: bigint,
  ): Node {
    let value: CelValue;
    switch (c.case) {
      case "stringValue":
      case "boolValue":
      case "doubleValue":
      case "int64Value":
      case "bytesValue":
        value = c.value;
        break;
      case "nullValue":
        value = null;
        break;
      case "uint64Value": {
        const fn = this.env.funcs.find("uint");
        const v = fn?.call(Number(id), undefined, [c.value]);
        if (v === undefined || isCelError(v)) throw new Error("invalid uint constant");
        value = v;
        break;
      }
      default:
        throw new Error(`unsupported constant ${c.case}`);
    }
    return () => value;
  }

  private ident(name: string, id: bigint): Node {
    const slot = this.locals.lastIndexOf(name);
    if (slot >= 0) return (_vars, frame) => frame[slot] as Result;
    const type = TYPE_IDENTS[name];
    if (type !== undefined && !this.variables.has(name)) return () => type;
    if (!this.variables.has(name)) throw new PlanError(`undeclared reference to '${name}'`, id);
    return (vars) => {
      const v = vars[name];
      return v === undefined ? celError(`undeclared reference to '${name}'`, id) : v;
    };
  }

  private select(operand: Expr, field: string, testOnly: boolean, id: bigint): Node {
    const target = this.plan(operand);
    if (!testOnly) return (vars, frame) => index(target(vars, frame), field, id);
    return (vars, frame) => {
      const v = target(vars, frame);
      if (isCelError(v)) return v;
      if (isCelMap(v)) return v.has(field);
      return celError(`invalid type for field selection: ${typeName(v)}`, id);
    };
  }

  private call(call: Call, id: bigint): Node {
    const args = call.args;
    const fn = call.function;
    // Qualified functions (`optional.none()`, `resource.Get(...)`) before methods on an identifier.
    if (call.target?.exprKind.case === "identExpr") {
      const name = `${call.target.exprKind.value.name}.${fn}`;
      if (
        this.env.funcs.find(name) !== undefined &&
        this.locals.lastIndexOf(call.target.exprKind.value.name) < 0
      )
        return this.invoke(
          name,
          undefined,
          args.map((a) => this.plan(a)),
          id,
        );
    }
    switch (fn) {
      case "_&&_":
      case "_||_":
        return this.logic(fn === "_&&_", this.plan(args[0] as Expr), this.plan(args[1] as Expr), id);
      case "_?_:_": {
        const [c, t, f] = args.map((a) => this.plan(a)) as [Node, Node, Node];
        return (vars, frame) => {
          const cond = c(vars, frame);
          if (cond === true) return t(vars, frame);
          if (cond === false) return f(vars, frame);
          return isCelError(cond)
            ? cond
            : celError(`no matching overload for '_?_:_' on ${typeName(cond)}`, id);
        };
      }
      case "_[_]": {
        // `a.b` (rewritten as `a["b"]`, see ast.ts) reads the field directly.
        const field = constantString(args[1]);
        if (field !== undefined) return fieldNode(this.plan(args[0] as Expr), field, id);
        const [c, key] = args.map((a) => this.plan(a)) as [Node, Node];
        return (vars, frame) => index(c(vars, frame), key(vars, frame), id);
      }
      case "_<_":
      case "_<=_":
      case "_>_":
      case "_>=_":
        return compareNode(fn, this.plan(args[0] as Expr), this.plan(args[1] as Expr), this.caller(fn, id));
      case "@not_strictly_false":
      case "__not_strictly_false__": {
        const a = this.plan(args[0] as Expr);
        return (vars, frame) => a(vars, frame) !== false;
      }
      case "dyn":
        if (call.target === undefined && args.length === 1) return this.plan(args[0] as Expr);
        break;
      case "_==_":
      case "_!=_":
        return equalsNode(
          this.plan(args[0] as Expr),
          this.plan(args[1] as Expr),
          this.caller(fn, id),
          fn === "_==_",
        );
      case "optPath__":
      case "optHas__": {
        const keys = constantKeys(args[1]);
        if (keys === undefined) break;
        const fallback = fn === "optPath__" ? this.plan(args[2] as Expr) : undefined;
        return optPathNode(this.plan(args[0] as Expr), keys, fallback, id);
      }
      case "_+_":
        return plusNode(
          this.plan(args[0] as Expr),
          this.plan(args[1] as Expr),
          this.caller(fn, id),
          this.listItems,
        );
      case "size":
        return sizeNode(
          call.target === undefined ? this.plan(args[0] as Expr) : this.plan(call.target),
          this.caller(fn, id),
          call.target !== undefined,
        );
      case "@in":
        return inNode(
          this.plan(args[0] as Expr),
          this.plan(args[1] as Expr),
          this.caller(fn, id),
          this.listItems,
        );
    }
    if (this.tick !== undefined && fn === this.tick.name && call.target === undefined && args.length === 1)
      return tickNode(this.plan(args[0] as Expr), this.tick.charge, id);
    const target = call.target === undefined ? undefined : this.plan(call.target);
    return this.invoke(
      fn,
      target,
      args.map((a) => this.plan(a)),
      id,
    );
  }

  /** Calls the overload of `name` matching the values, or reports that none does. */
  private caller(name: string, id: bigint): (target: Result | undefined, values: CelValue[]) => Result {
    const group = this.env.funcs.find(name);
    if (group === undefined) throw new PlanError(`undeclared reference to '${name}'`, id);
    const numericId = Number(id);
    return (target, values) => {
      const out = group.call(numericId, target as CelValue | undefined, values);
      if (out !== undefined) return out;
      const types = values.map(typeName).join(", ");
      return celError(
        `found no matching overload for '${name}' applied to '${target === undefined ? "" : `${typeName(target)}.`}(${types})'`,
        id,
      );
    };
  }

  private invoke(name: string, target: Node | undefined, args: Node[], id: bigint): Node {
    const call = this.caller(name, id);
    return (vars, frame) => {
      let t: Result | undefined;
      if (target !== undefined) {
        t = target(vars, frame);
        if (isCelError(t)) return t;
      }
      const values: CelValue[] = new Array(args.length);
      for (let i = 0; i < args.length; i++) {
        const v = (args[i] as Node)(vars, frame);
        if (isCelError(v)) return v;
        values[i] = v;
      }
      return call(t, values);
    };
  }

  /** `&&` / `||` with CEL's commutative error handling. */
  private logic(and: boolean, left: Node, right: Node, id: bigint): Node {
    const decisive = !and;
    return (vars, frame) => {
      const a = left(vars, frame);
      if (a === decisive) return decisive;
      const b = right(vars, frame);
      if (b === decisive) return decisive;
      if (a === !decisive && b === !decisive) return !decisive;
      if (isCelError(a)) return a;
      if (isCelError(b)) return b;
      return celError(`no matching overload for '${and ? "_&&_" : "_||_"}'`, id);
    };
  }

  private comprehension(
    c: Extract<Expr["exprKind"], { case: "comprehensionExpr" }>["value"],
    id: bigint,
  ): Node {
    const range = this.plan(c.iterRange as Expr);
    const quantifier = boolMacro(c);
    if (quantifier !== undefined) return this.quantifier(range, c, quantifier, id);
    const init = this.plan(c.accuInit as Expr);
    const accuSlot = this.push(c.accuVar);
    const iterSlot = this.push(c.iterVar);
    // Two-variable comprehensions: (index, element) of a list, (key, value) of a map.
    const twoVars = c.iterVar2 !== "";
    const valueSlot = twoVars ? this.push(c.iterVar2) : -1;
    const cond = this.plan(c.loopCondition as Expr);
    const step = this.plan(c.loopStep as Expr);
    if (twoVars) this.locals.pop();
    this.locals.pop();
    const result = this.plan(c.result as Expr);
    this.locals.pop();
    return (vars, frame) => {
      const r = range(vars, frame);
      if (isCelError(r)) return r;
      let items: ArrayLike<CelValue>;
      let map: CelMap | undefined;
      if (isCelList(r)) items = this.listItems(r);
      else if (isCelMap(r)) {
        map = r;
        items = [...r.keys()] as CelValue[];
      } else return celError(`type mismatch: iterable vs ${typeName(r)}`, id);
      frame[accuSlot] = init(vars, frame);
      for (let i = 0; i < items.length; i++) {
        const item = items[i] as CelValue;
        if (twoVars) {
          frame[iterSlot] = map === undefined ? BigInt(i) : item;
          frame[valueSlot] = map === undefined ? item : (map.get(item as string) as CelValue);
        } else frame[iterSlot] = item;
        const go = cond(vars, frame);
        if (go !== true) {
          if (isCelError(go)) return go;
          break;
        }
        frame[accuSlot] = step(vars, frame);
      }
      return result(vars, frame);
    };
  }

  /** `all` / `exists` (see quantifiers.ts): the test planned with the accumulator and element slots. */
  private quantifier(range: Node, c: Comprehension, macro: BoolMacro, id: bigint): Node {
    const accuSlot = this.push(c.accuVar);
    const iterSlot = this.push(c.iterVar);
    const test = this.plan(macro.test);
    this.locals.pop();
    this.locals.pop();
    return quantifierNode({ range, test, accuSlot, iterSlot, macro, id, items: this.listItems });
  }

  /** Binds a comprehension variable to a new frame slot. */
  private push(name: string): number {
    const slot = this.locals.length;
    this.locals.push(name);
    if (this.locals.length > this.maxLocals) this.maxLocals = this.locals.length;
    return slot;
  }
}

const EMPTY_FRAME: Result[] = [];

/** The items of lists already read, by list (lists are immutable); one per environment. */
export type ListArrays = WeakMap<CelList, readonly CelValue[]>;

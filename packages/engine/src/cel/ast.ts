/**
 * Passes over a parsed expression before it is planned: every comprehension's range is wrapped in
 * a call that charges its size to the evaluation's cost budget (so a hostile expression is stopped),
 * `cel.bind(x, init, body)` is expanded as cel-go's macro does, and the names the expression reads
 * (`object`, `request`, `variables.<name>`, …) are collected.
 */
import type { parse } from "@bufbuild/cel";
import { expandTwoVariable } from "./comprehensions.js";

/** A parsed expression node (`cel.expr.Expr`). */
export type Expr = ReturnType<typeof parse>["expr"];
type Call = Extract<Expr["exprKind"], { case: "callExpr" }>["value"];

/** The function that charges a comprehension's iterations (the size of its range) to the budget. */
export const TICK_FUNCTION = "kyvernoTick__";
/** `a.?b.?c.orValue(d)` fused: `optPath__(a, ["b", "c"], d)` walks the path without optionals. */
const OPT_PATH_FUNCTION = "optPath__";
/** `a.?b.?c.hasValue()` fused: `optHas__(a, ["b", "c"])`. */
const OPT_HAS_FUNCTION = "optHas__";

/** What an expression reads: its free identifiers, the `variables.<name>` it selects, the functions it calls. */
export interface ExpressionReads {
  readonly identifiers: ReadonlySet<string>;
  readonly variables: ReadonlySet<string>;
  readonly functions: ReadonlySet<string>;
}

function callExpr(id: bigint, fn: string, args: Expr[], target?: Expr): Expr {
  const value: Call = { $typeName: "cel.expr.Expr.Call", function: fn, args } as Call;
  if (target !== undefined) value.target = target;
  return { $typeName: "cel.expr.Expr", id, exprKind: { case: "callExpr", value } } as Expr;
}

function stringConst(id: bigint, value: string): Expr {
  return {
    $typeName: "cel.expr.Expr",
    id,
    exprKind: {
      case: "constExpr",
      value: { $typeName: "cel.expr.Constant", constantKind: { case: "stringValue", value } },
    },
  } as unknown as Expr;
}

function identName(e: Expr | undefined): string | undefined {
  return e?.exprKind.case === "identExpr" ? e.exprKind.value.name : undefined;
}

/** `cel.bind(name, init, body)` as a comprehension over an empty list whose accumulator is `name`. */
function expandBind(e: Expr, call: Call): Expr | undefined {
  if (call.function !== "bind" || identName(call.target) !== "cel" || call.args.length !== 3)
    return undefined;
  const [nameExpr, init, body] = call.args as [Expr, Expr, Expr];
  const name = identName(nameExpr);
  if (name === undefined) throw new Error("cel.bind() variable name must be a simple identifier");
  const empty = {
    $typeName: "cel.expr.Expr",
    id: e.id,
    exprKind: {
      case: "listExpr",
      value: { $typeName: "cel.expr.Expr.CreateList", elements: [], optionalIndices: [] },
    },
  } as unknown as Expr;
  const falseConst = {
    $typeName: "cel.expr.Expr",
    id: e.id,
    exprKind: {
      case: "constExpr",
      value: { $typeName: "cel.expr.Constant", constantKind: { case: "boolValue", value: false } },
    },
  } as unknown as Expr;
  const ident = {
    $typeName: "cel.expr.Expr",
    id: e.id,
    exprKind: { case: "identExpr", value: { $typeName: "cel.expr.Expr.Ident", name } },
  } as unknown as Expr;
  return {
    $typeName: "cel.expr.Expr",
    id: e.id,
    exprKind: {
      case: "comprehensionExpr",
      value: {
        $typeName: "cel.expr.Expr.Comprehension",
        iterVar: "#unused",
        iterVar2: "",
        iterRange: empty,
        accuVar: name,
        accuInit: init,
        loopCondition: falseConst,
        loopStep: ident,
        result: body,
      },
    },
  } as unknown as Expr;
}

function constString(e: Expr | undefined): string | undefined {
  if (e?.exprKind.case !== "constExpr") return undefined;
  const c = e.exprKind.value.constantKind;
  return c.case === "stringValue" ? c.value : undefined;
}

function listExpr(id: bigint, elements: Expr[]): Expr {
  return {
    $typeName: "cel.expr.Expr",
    id,
    exprKind: {
      case: "listExpr",
      value: { $typeName: "cel.expr.Expr.CreateList", elements, optionalIndices: [] },
    },
  } as unknown as Expr;
}

/**
 * Fuses a chain of optional field selections ended by `orValue(x)` or `hasValue()` into one call, so
 * the common `object.spec.?securityContext.?privileged.orValue(false)` allocates no optionals.
 */
function fuseOptionalChain(e: Expr, call: Call): Expr | undefined {
  const fused =
    call.function === "orValue" && call.args.length === 1
      ? OPT_PATH_FUNCTION
      : call.function === "hasValue" && call.args.length === 0
        ? OPT_HAS_FUNCTION
        : undefined;
  if (fused === undefined) return undefined;
  const keys: Expr[] = [];
  let base = call.target;
  while (base?.exprKind.case === "callExpr") {
    const inner = base.exprKind.value;
    if (
      inner.function !== "optSelect__" ||
      inner.args.length !== 1 ||
      constString(inner.args[0]) === undefined
    )
      break;
    keys.unshift(inner.args[0] as Expr);
    base = inner.target;
  }
  if (keys.length === 0 || base === undefined) return undefined;
  return callExpr(e.id, fused, [base, listExpr(e.id, keys), ...call.args]);
}

/**
 * Rewrites `expr` in place for evaluation (cost ticks, `cel.bind`) and returns what it reads.
 * Identifiers bound by comprehensions are not reported as free.
 */
export function prepareExpression(expr: Expr): { expr: Expr; reads: ExpressionReads } {
  const identifiers = new Set<string>();
  const variables = new Set<string>();
  const functions = new Set<string>();
  const visit = (e: Expr, bound: ReadonlySet<string>): Expr => {
    const kind = e.exprKind;
    switch (kind.case) {
      case "identExpr":
        if (!bound.has(kind.value.name)) identifiers.add(kind.value.name);
        return e;
      case "selectExpr": {
        const operand = kind.value.operand;
        if (operand && identName(operand) === "variables" && !bound.has("variables"))
          variables.add(kind.value.field);
        if (operand === undefined) return e;
        // `a.b.c` as `dyn(a)["b"]["c"]`: the same on maps (every value here is JSON).
        if (!kind.value.testOnly) {
          // The root identifier is wrapped in `dyn()`: otherwise the planner still tries the
          // qualified names `a.b`, `a.b.c` (as variables and registry types) on every evaluation.
          const base = visit(operand, bound);
          const root = base.exprKind.case === "identExpr" ? callExpr(e.id, "dyn", [base]) : base;
          return callExpr(e.id, "_[_]", [root, stringConst(e.id, kind.value.field)]);
        }
        kind.value.operand = visit(operand, bound);
        return e;
      }
      case "callExpr": {
        const expanded =
          expandBind(e, kind.value) ?? expandTwoVariable(e, kind.value) ?? fuseOptionalChain(e, kind.value);
        if (expanded !== undefined) return visit(expanded, bound);
        const target = kind.value.target;
        functions.add(
          target?.exprKind.case === "identExpr"
            ? `${target.exprKind.value.name}.${kind.value.function}`
            : kind.value.function,
        );
        if (target) kind.value.target = visit(target, bound);
        kind.value.args = kind.value.args.map((a) => visit(a, bound));
        return e;
      }
      case "listExpr":
        kind.value.elements = kind.value.elements.map((a) => visit(a, bound));
        return e;
      case "structExpr":
        // `Object{spec: Object.spec{...}}` (apply configurations) and `JSONPatch{op: ...}` build maps.
        kind.value.messageName = "";
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === "fieldKey") {
            const field = entry.keyKind.value;
            entry.keyKind = { case: "mapKey", value: stringConst(entry.id, field) };
          }
          if (entry.value) entry.value = visit(entry.value, bound);
          if (entry.keyKind.case === "mapKey") entry.keyKind.value = visit(entry.keyKind.value, bound);
        }
        return e;
      case "comprehensionExpr": {
        const c = kind.value;
        // The range is charged once, with its size, before the loop runs.
        if (c.iterRange) c.iterRange = callExpr(e.id, TICK_FUNCTION, [visit(c.iterRange, bound)]);
        if (c.accuInit) c.accuInit = visit(c.accuInit, bound);
        const inner = new Set([...bound, c.iterVar, c.accuVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
        if (c.loopCondition) c.loopCondition = visit(c.loopCondition, inner);
        if (c.loopStep) c.loopStep = visit(c.loopStep, inner);
        if (c.result) c.result = visit(c.result, new Set([...bound, c.accuVar]));
        return e;
      }
      default:
        return e;
    }
  };
  const out = visit(expr, new Set());
  return { expr: out, reads: { identifiers, variables, functions } };
}

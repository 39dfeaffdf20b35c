/**
 * Passes over a parsed expression before it is planned: every comprehension's loop condition is
 * wrapped in a call that charges the evaluation's cost budget (so a hostile expression is stopped),
 * `cel.bind(x, init, body)` is expanded as cel-go's macro does, and the names the expression reads
 * (`object`, `request`, `variables.<name>`, …) are collected.
 */
import type { parse } from "@bufbuild/cel";

/** A parsed expression node (`cel.expr.Expr`). */
export type Expr = ReturnType<typeof parse>["expr"];
type Call = Extract<Expr["exprKind"], { case: "callExpr" }>["value"];

/** The function charged once per comprehension iteration. */
export const TICK_FUNCTION = "kyvernoTick__";

/** What an expression reads: its free identifiers and the `variables.<name>` it selects. */
export interface ExpressionReads {
  readonly identifiers: ReadonlySet<string>;
  readonly variables: ReadonlySet<string>;
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

/**
 * Rewrites `expr` in place for evaluation (cost ticks, `cel.bind`) and returns what it reads.
 * Identifiers bound by comprehensions are not reported as free.
 */
export function prepareExpression(expr: Expr): { expr: Expr; reads: ExpressionReads } {
  const identifiers = new Set<string>();
  const variables = new Set<string>();
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
        if (operand) kind.value.operand = visit(operand, bound);
        return e;
      }
      case "callExpr": {
        const expanded = expandBind(e, kind.value);
        if (expanded !== undefined) return visit(expanded, bound);
        if (kind.value.target) kind.value.target = visit(kind.value.target, bound);
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
        if (c.iterRange) c.iterRange = visit(c.iterRange, bound);
        if (c.accuInit) c.accuInit = visit(c.accuInit, bound);
        const inner = new Set([...bound, c.iterVar, c.accuVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
        if (c.loopCondition) c.loopCondition = callExpr(e.id, TICK_FUNCTION, [visit(c.loopCondition, inner)]);
        if (c.loopStep) c.loopStep = visit(c.loopStep, inner);
        if (c.result) c.result = visit(c.result, new Set([...bound, c.accuVar]));
        return e;
      }
      default:
        return e;
    }
  };
  const out = visit(expr, new Set());
  return { expr: out, reads: { identifiers, variables } };
}

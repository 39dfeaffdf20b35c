/**
 * cel-go's two-variable comprehensions (`all(i, v, p)`, `exists(i, v, p)`, `existsOne(i, v, p)`,
 * `transformList(i, v, [f,] e)`, `transformMap(k, v, [f,] e)`), which `@bufbuild/cel`'s parser
 * leaves as plain calls, expanded into comprehensions over (index, element) of a list or
 * (key, value) of a map, as cel-go's macros do.
 */
import type { parse } from "@bufbuild/cel";

type Expr = ReturnType<typeof parse>["expr"];
type Call = Extract<Expr["exprKind"], { case: "callExpr" }>["value"];

/** The accumulator of the expanded comprehensions. */
const ACCU = "@result";
/** Inserts a key and value into a map (the step of `transformMap`). */
export const MAP_INSERT_FUNCTION = "mapInsert__";

function node(id: bigint, exprKind: unknown): Expr {
  return { $typeName: "cel.expr.Expr", id, exprKind } as unknown as Expr;
}

function call(id: bigint, fn: string, args: Expr[]): Expr {
  return node(id, { case: "callExpr", value: { $typeName: "cel.expr.Expr.Call", function: fn, args } });
}

function ident(id: bigint, name: string): Expr {
  return node(id, { case: "identExpr", value: { $typeName: "cel.expr.Expr.Ident", name } });
}

function constant(id: bigint, constantKind: unknown): Expr {
  return node(id, { case: "constExpr", value: { $typeName: "cel.expr.Constant", constantKind } });
}

function list(id: bigint, elements: Expr[]): Expr {
  return node(id, {
    case: "listExpr",
    value: { $typeName: "cel.expr.Expr.CreateList", elements, optionalIndices: [] },
  });
}

function identName(e: Expr | undefined): string | undefined {
  return e?.exprKind.case === "identExpr" ? e.exprKind.value.name : undefined;
}

const MACROS = new Set(["all", "exists", "existsOne", "exists_one", "transformList", "transformMap"]);

/** Expands a two-variable comprehension call, or returns undefined for any other call. */
export function expandTwoVariable(e: Expr, c: Call): Expr | undefined {
  if (!MACROS.has(c.function) || c.target === undefined || (c.args.length !== 3 && c.args.length !== 4))
    return undefined;
  const first = identName(c.args[0]);
  const second = identName(c.args[1]);
  if (first === undefined || second === undefined) return undefined;
  if (c.args.length === 4 && c.function !== "transformList" && c.function !== "transformMap")
    return undefined;
  const id = e.id;
  const accu = ident(id, ACCU);
  const body = c.args[c.args.length - 1] as Expr;
  const filter = c.args.length === 4 ? (c.args[2] as Expr) : undefined;
  const always = constant(id, { case: "boolValue", value: true });
  let init: Expr;
  let cond: Expr = always;
  let step: Expr;
  let result: Expr = accu;
  switch (c.function) {
    case "all":
      init = constant(id, { case: "boolValue", value: true });
      cond = call(id, "@not_strictly_false", [accu]);
      step = call(id, "_&&_", [accu, body]);
      break;
    case "exists":
      init = constant(id, { case: "boolValue", value: false });
      cond = call(id, "@not_strictly_false", [call(id, "!_", [accu])]);
      step = call(id, "_||_", [accu, body]);
      break;
    case "transformList":
      init = list(id, []);
      step = call(id, "_+_", [accu, list(id, [body])]);
      break;
    case "transformMap":
      init = node(id, {
        case: "structExpr",
        value: { $typeName: "cel.expr.Expr.CreateStruct", messageName: "", entries: [] },
      });
      step = call(id, MAP_INSERT_FUNCTION, [accu, ident(id, first), body]);
      break;
    default:
      init = constant(id, { case: "int64Value", value: 0n });
      step = call(id, "_?_:_", [
        body,
        call(id, "_+_", [accu, constant(id, { case: "int64Value", value: 1n })]),
        accu,
      ]);
      result = call(id, "_==_", [accu, constant(id, { case: "int64Value", value: 1n })]);
  }
  if (filter !== undefined) step = call(id, "_?_:_", [filter, step, accu]);
  return node(id, {
    case: "comprehensionExpr",
    value: {
      $typeName: "cel.expr.Expr.Comprehension",
      iterVar: first,
      iterVar2: second,
      iterRange: c.target,
      accuVar: ACCU,
      accuInit: init,
      loopCondition: cond,
      loopStep: step,
      result,
    },
  });
}

/**
 * `all()` and `exists()` as one loop: the macros expand to a comprehension whose condition
 * (`@not_strictly_false(@result)`) and step (`@result && test`) the generic loop evaluates as
 * planned nodes per element; a comprehension of exactly that shape runs the test directly, with the
 * same accumulator values, errors and short-circuit.
 */
import { type CelList, type CelValue, celError, isCelError, isCelList, isCelMap } from "@bufbuild/cel";
import { type Node, type Result, typeName } from "./access.js";
import type { Expr } from "./ast.js";

/** A comprehension node's value. */
export type Comprehension = Extract<Expr["exprKind"], { case: "comprehensionExpr" }>["value"];

/** An `all` (`and`) or `exists` macro: its test and the id of its step (for the step's errors). */
export interface BoolMacro {
  readonly and: boolean;
  readonly test: Expr;
  readonly stepId: bigint;
}

/**
 * Whether a comprehension is `all` or `exists` as `@bufbuild/cel` expands them: a bool accumulator,
 * the loop condition `@not_strictly_false(@result)` (or of `!@result`), the step `@result && test`
 * (or `||`) and the accumulator as result. Returns the operator and the test.
 */
export function boolMacro(c: Comprehension): BoolMacro | undefined {
  if (c.iterVar2 !== "") return undefined;
  const accu = c.accuVar;
  const isAccu = (e: Expr | undefined) => e?.exprKind.case === "identExpr" && e.exprKind.value.name === accu;
  const init = c.accuInit?.exprKind;
  if (init?.case !== "constExpr" || init.value.constantKind.case !== "boolValue") return undefined;
  const and = init.value.constantKind.value;
  const step = c.loopStep?.exprKind;
  if (step?.case !== "callExpr" || step.value.target !== undefined || step.value.args.length !== 2)
    return undefined;
  if (step.value.function !== (and ? "_&&_" : "_||_") || !isAccu(step.value.args[0])) return undefined;
  const cond = c.loopCondition?.exprKind;
  if (
    cond?.case !== "callExpr" ||
    cond.value.function !== "@not_strictly_false" ||
    cond.value.args.length !== 1
  )
    return undefined;
  const inner = cond.value.args[0];
  if (and ? !isAccu(inner) : !isNotAccu(inner, isAccu)) return undefined;
  if (!isAccu(c.result)) return undefined;
  return { and, test: step.value.args[1] as Expr, stepId: (c.loopStep as Expr).id };
}

function isNotAccu(e: Expr | undefined, isAccu: (e: Expr | undefined) => boolean): boolean {
  const k = e?.exprKind;
  return (
    k?.case === "callExpr" &&
    k.value.function === "!_" &&
    k.value.args.length === 1 &&
    isAccu(k.value.args[0])
  );
}

/** What the loop needs: the planned range and test, their frame slots, the list reader. */
export interface QuantifierParts {
  readonly range: Node;
  readonly test: Node;
  readonly accuSlot: number;
  readonly iterSlot: number;
  readonly macro: BoolMacro;
  readonly id: bigint;
  readonly items: (list: CelList) => readonly CelValue[];
}

/** The loop of an `all` / `exists`: `accu op test` per element, as the planner's `logic` computes it. */
export function quantifierNode(parts: QuantifierParts): Node {
  const { range, test, accuSlot, iterSlot, id, items: listItems } = parts;
  const decisive = !parts.macro.and;
  const op = parts.macro.and ? "_&&_" : "_||_";
  const stepId = parts.macro.stepId;
  return (vars, frame) => {
    const r = range(vars, frame);
    if (isCelError(r)) return r;
    let items: ArrayLike<CelValue>;
    if (isCelList(r)) items = listItems(r);
    else if (isCelMap(r)) items = [...r.keys()] as CelValue[];
    else return celError(`type mismatch: iterable vs ${typeName(r)}`, id);
    let accu: Result = !decisive;
    frame[accuSlot] = accu;
    for (let i = 0; i < items.length; i++) {
      frame[iterSlot] = items[i] as CelValue;
      const b = test(vars, frame);
      // accu op b (accu is never the decisive value here): decisive wins, else the first error.
      if (b === decisive) accu = decisive;
      else if (accu === !decisive && b !== !decisive)
        accu = isCelError(b) ? b : celError(`no matching overload for '${op}'`, stepId);
      frame[accuSlot] = accu;
      if (accu === decisive) break;
    }
    return accu;
  };
}

/**
 * The operator prefix of one scalar pattern term (`>=`, `<=`, `>`, `<`, `!`) and the range forms
 * `a-b` / `a!-b`, recognised exactly as Kyverno's `GetOperatorFromStringPattern` does.
 */

/** A comparison operator read from the start of a pattern term; `""` means equality. */
export type StringOperator = "" | ">=" | "<=" | ">" | "<" | "!" | "-" | "!-";

// Both endpoints must start with a number; a unit or other suffix may follow (`1Gi-2Gi`, `1h-2h`).
const NOT_IN_RANGE = /^(\d+(?:\.\d+)?[^-]*)!-(\d+(?:\.\d+)?[^-]*)$/;
const IN_RANGE = /^(\d+(?:\.\d+)?[^-]*)-(\d+(?:\.\d+)?[^-]*)$/;

/** Reads the operator of a pattern term; patterns shorter than two characters are always equality. */
export function operatorOf(term: string): StringOperator {
  if (term.length < 2) return "";
  for (const op of [">=", "<=", ">", "<", "!"] as const) {
    if (term.startsWith(op)) return op;
  }
  if (NOT_IN_RANGE.test(term)) return "!-";
  if (IN_RANGE.test(term)) return "-";
  return "";
}

/** The two endpoints of a range term (`1-5` or `1!-5`), or `undefined` when the term is not one. */
export function rangeEndpoints(term: string, op: "-" | "!-"): readonly [string, string] | undefined {
  const match = (op === "-" ? IN_RANGE : NOT_IN_RANGE).exec(term);
  if (match === null) return undefined;
  return [match[1] ?? "", match[2] ?? ""];
}

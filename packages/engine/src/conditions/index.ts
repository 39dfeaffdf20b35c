/** Condition operators for preconditions and deny rules (Equals, AnyIn, GreaterThan, …). */
export { evaluateOperator, isKnownOperator, type OperatorResult } from "./operator.js";

/** Condition operators for preconditions and deny rules (Equals, AnyIn, GreaterThan, …). */
export {
  evaluateOperator,
  isKnownOperator,
  type OperatorFunction,
  type OperatorResult,
  operatorFor,
  unknownOperatorMessage,
} from "./operator.js";

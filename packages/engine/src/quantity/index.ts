/**
 * Kubernetes quantities, shared by pattern matching and JMESPath arithmetic (Go durations come from
 * `@kyverno-ts/k8s`).
 */

/** Quantities: parse, compare exactly, format canonically. */
/** Exact quantity arithmetic, as used by JMESPath add/subtract/multiply/divide/modulo. */
export {
  addQuantities,
  compareQuantities,
  divideQuantities,
  formatQuantity,
  multiplyQuantities,
  parseQuantity,
  type Quantity,
  type QuantityFormat,
  quantityFromBigInt,
  quantityToNumber,
  subtractQuantities,
} from "./quantity.js";

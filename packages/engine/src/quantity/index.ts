/**
 * Kubernetes quantities and Go durations, shared by pattern matching and JMESPath arithmetic.
 */

/** Go durations: parse to nanoseconds (`number`, or exact `bigint`) and format like Duration.String. */
export { formatDuration, parseDuration, parseDurationExact } from "./duration.js";
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

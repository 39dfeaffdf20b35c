/**
 * How the planner reads values: indexing maps and lists with CEL's errors, type names for
 * messages, and the type identifiers usable as values. Values are `@bufbuild/cel`'s.
 */
import {
  type CelError,
  CelScalar,
  type CelValue,
  celError,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  listType,
  mapType,
} from "@bufbuild/cel";
import { isOptional, select } from "./functions/optional.js";

/** A value or an error, as every planned node returns. */
export type Result = CelValue | CelError;
/** Evaluates a planned node against the bindings and the frame of comprehension variables. */
export type Node = (vars: Readonly<Record<string, CelValue>>, frame: Result[]) => Result;

/** Whether a value is a string, an int or a bool (compared by identity). */
export function isPrimitive(v: Result): v is string | bigint | boolean {
  const t = typeof v;
  return t === "string" || t === "bigint" || t === "boolean";
}

/** CEL's name of a value's type, for messages. */
export function typeName(v: Result): string {
  if (v === null) return "null_type";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "string" || typeof v === "boolean") return typeof v === "string" ? "string" : "bool";
  if (isCelList(v)) return "list";
  if (isCelMap(v)) return "map";
  if (isCelUint(v)) return "uint";
  return "object";
}

/** `container[key]` on a map or a list, with CEL's errors for a missing key or index. */
export function index(container: Result, key: Result, id: bigint): Result {
  if (isCelError(container)) return container;
  if (isCelError(key)) return key;
  if (isCelMap(container)) {
    if (typeof key !== "string" && typeof key !== "bigint" && typeof key !== "boolean" && !isCelUint(key)) {
      if (typeof key !== "number" || !Number.isInteger(key))
        return celError(`unsupported key type: ${typeName(key)}`, id);
    }
    const v = container.get(key as string);
    if (v !== undefined) return v;
    // An optional (`x.?a['k']`, `x.?a.k`): indexing it propagates optionality, none when absent.
    if (isOptional(container)) {
      try {
        return select(container, key);
      } catch (error) {
        return celError(error instanceof Error ? error.message : String(error), id);
      }
    }
    return celError(`no such key: ${String(isCelUint(key) ? key.value : key)}`, id);
  }
  if (isCelList(container)) {
    let i: number;
    if (typeof key === "bigint") i = Number(key);
    else if (isCelUint(key)) i = Number(key.value);
    else if (typeof key === "number" && Number.isInteger(key)) i = key;
    else return celError(`unsupported index type: ${typeName(key)}`, id);
    const v = i >= 0 && i < container.size ? container.get(i) : undefined;
    return v === undefined ? celError(`index out of bounds: ${i}`, id) : v;
  }
  return celError(`no such key: ${String(key)} (on ${typeName(container)})`, id);
}

/** Type names usable as values (`type(x) == string`). */
export const TYPE_IDENTS: Readonly<Record<string, CelValue>> = {
  int: CelScalar.INT,
  uint: CelScalar.UINT,
  double: CelScalar.DOUBLE,
  bool: CelScalar.BOOL,
  string: CelScalar.STRING,
  bytes: CelScalar.BYTES,
  null_type: CelScalar.NULL,
  type: CelScalar.TYPE,
  list: listType(CelScalar.DYN),
  map: mapType(CelScalar.DYN, CelScalar.DYN),
};

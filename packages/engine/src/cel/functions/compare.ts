/** Equality and ordering of CEL values for the list and set functions (numbers compare across types). */
import { type CelValue, isCelList, isCelMap, isCelUint } from "@bufbuild/cel";

function numeric(v: CelValue): number | bigint | undefined {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (isCelUint(v)) return v.value;
  return undefined;
}

function numericEquals(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === typeof b) return a === b;
  return Number(a) === Number(b) && (typeof a === "number" ? Number.isInteger(a) : Number.isInteger(b));
}

/** CEL equality: numbers by value across int/uint/double, lists and maps element-wise. */
export function celEquals(a: CelValue, b: CelValue): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return numericEquals(na, nb);
  if (a === b) return true;
  if (isCelList(a) && isCelList(b)) {
    if (a.size !== b.size) return false;
    const [x, y] = [[...a], [...b]];
    return x.every((v, i) => celEquals(v, y[i] as CelValue));
  }
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      const w = b.get(k);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  return false;
}

/** Orders numbers, strings and booleans; other values are an error. */
export function compareCel(a: CelValue, b: CelValue): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  throw new Error("values are not comparable");
}

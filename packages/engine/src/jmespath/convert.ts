import type { JsonValue } from "@kyverno-ts/api";

/** Rewrites a JS number string that may use exponent notation ("1.5e+21") as a plain decimal. */
export function toPlainDecimal(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (match === null) return text;
  const [, sign = "", whole = "", fraction = "", exp = "0"] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exp);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`.replace(/\.?0+$/, "");
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Go's `strconv.FormatFloat(v, 'f', -1, 32)`: the shortest decimal that round-trips through a
 * float32, without exponent. Kyverno formats numeric arguments of string functions this way.
 */
export function formatFloat32(value: number): string {
  const f = Math.fround(value);
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf";
  if (Number.isInteger(f) && Math.abs(f) < 2 ** 24) return String(f);
  for (let precision = 1; precision <= 9; precision++) {
    const candidate = f.toPrecision(precision);
    if (Math.fround(Number(candidate)) === f) return toPlainDecimal(String(Number(candidate)));
  }
  return toPlainDecimal(String(f));
}

/**
 * Kyverno's `ifaceToString`: strings as they are, numbers and booleans formatted the Go way;
 * `undefined` for anything else (arrays, objects, null).
 */
export function scalarToString(value: JsonValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number") return formatFloat32(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return undefined;
}

/** Go's `%v` for a float64 (shortest round-trip repr, exponent form outside [1e-4, 1e21)). */
export function formatFloat64(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    return value.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  }
  return toPlainDecimal(String(value));
}

/** Splits a string into Unicode code points (what Go calls runes). */
export function codePoints(s: string): string[] {
  return Array.from(s);
}

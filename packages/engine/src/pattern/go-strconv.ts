/**
 * The few Go `strconv` / `fmt` conversions whose exact behaviour decides pattern and operator results:
 * which strings count as numbers, and how numbers are printed before string comparison.
 */

const GO_INT = /^[+-]?\d+$/;
const GO_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const GO_FLOAT_SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

/** Go `strconv.ParseInt(s, 10, 64)`: an optionally signed run of decimal digits, else `undefined`. */
export function parseGoInt(s: string): number | undefined {
  return GO_INT.test(s) ? Number(s) : undefined;
}

/** Go `strconv.ParseFloat(s, 64)` for decimal input (incl. exponents, `Inf`, `NaN`), else `undefined`. */
export function parseGoFloat(s: string): number | undefined {
  if (GO_FLOAT.test(s)) return Number(s);
  if (!GO_FLOAT_SPECIAL.test(s)) return undefined;
  const lower = s.toLowerCase();
  if (lower.endsWith("nan")) return Number.NaN;
  return lower.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
}

/** Go `fmt.Sprintf("%f", n)`: fixed notation with six decimals (integers print without decimals, as Go ints do). */
export function formatGoFixed(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(6);
}

/** Go `strconv.FormatFloat(n, 'E', -1, 64)` for non-integers, decimal digits for integers. */
export function formatGoExponent(n: number): string {
  if (Number.isInteger(n)) return String(n);
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "+Inf" : "-Inf";
  const [mantissa = "", exponent = "0"] = n.toExponential().split("e");
  const sign = exponent.startsWith("-") ? "-" : "+";
  const digits = exponent.replace(/^[+-]/, "").padStart(2, "0");
  return `${mantissa}E${sign}${digits}`;
}

/** Go `fmt.Sprint(v)` for JSON values, as Kyverno uses it to turn list elements into strings. */
export function goSprint(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(goSprint).join(" ")}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return `map[${entries.map(([k, v]) => `${k}:${goSprint(v)}`).join(" ")}]`;
}

/**
 * Kubernetes `resource.Quantity`: parsing, exact comparison, arithmetic and canonical formatting,
 * following k8s.io/apimachinery/pkg/api/resource.
 *
 * A quantity is an exact decimal `mantissa × 10^exponent`. Binary suffixes (Ki, Mi, …) are powers of
 * two, which are integers, so every parsed quantity is exactly representable this way. The mantissa
 * and exponent are kept as Go keeps them after parsing (not normalised), because Kyverno's `divide`
 * rounds to the operands' decimal scale.
 */

/** How a quantity prefers to be printed (the suffix family it was written with). */
export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** An exact Kubernetes quantity: `mantissa × 10^exponent`, printed in `format`. */
export interface Quantity {
  readonly mantissa: bigint;
  readonly exponent: number;
  readonly format: QuantityFormat;
}

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60],
]);
const DECIMAL_BY_EXPONENT: ReadonlyMap<number, string> = new Map(
  [...DECIMAL_SUFFIXES].map(([suffix, exp]) => [exp, suffix]),
);
const BINARY_BY_POWER = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/** Exponents beyond this are rejected so that a hostile `1e999999999` cannot allocate a huge bigint. */
const MAX_DECIMAL_EXPONENT = 1000;
const NANO_SCALE = 9;
const INT64_MAX = (1n << 63n) - 1n;
const SUFFIX_CHARS = "eEinumkKMGTP";

interface Split {
  negative: boolean;
  num: string;
  denom: string;
  value: string;
  suffix: string;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/** Mirrors Go's parseQuantityString, including its leniency (`"-"`, `"."` and `"1.G"` parse). */
function splitQuantity(str: string): Split | undefined {
  let pos = 0;
  let negative = false;
  if (str[0] === "-" || str[0] === "+") {
    negative = str[0] === "-";
    pos = 1;
  }
  while (str[pos] === "0") pos++;
  if (pos >= str.length) return { negative, num: "0", denom: "", value: "0", suffix: "" };
  const numStart = pos;
  while (isDigit(str[pos])) pos++;
  const num = pos === numStart ? "0" : str.slice(numStart, pos);
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    const denomStart = pos;
    while (isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < str.length && SUFFIX_CHARS.includes(str[pos] ?? "")) pos++;
  if (str[pos] === "-" || str[pos] === "+") pos++;
  while (isDigit(str[pos])) pos++;
  if (pos !== str.length) return undefined;
  return { negative, num, denom, value, suffix: str.slice(suffixStart) };
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(suffix: string): Suffix | undefined {
  const dec = DECIMAL_SUFFIXES.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: "DecimalSI" };
  const bin = BINARY_SUFFIXES.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const rest = suffix.slice(1);
    if (!/^[+-]?\d+$/.test(rest)) return undefined;
    const exponent = Number.parseInt(rest, 10);
    if (Math.abs(exponent) > MAX_DECIMAL_EXPONENT) return undefined;
    return { base: 10, exponent, format: "DecimalExponent" };
  }
  return undefined;
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/** Divides `mantissa` by 10^`digits`, rounding away from zero (inf.RoundUp). */
function divRoundUp(mantissa: bigint, digits: number): bigint {
  const divisor = pow10(digits);
  const quotient = mantissa / divisor;
  if (quotient * divisor === mantissa) return quotient;
  return mantissa < 0n ? quotient - 1n : quotient + 1n;
}

/**
 * Parses a Kubernetes quantity such as `"100Mi"`, `"500m"`, `"1.5"` or `"1e3"`; `undefined` when
 * the string is not a quantity. Values finer than 1n are rounded up to 1n, as Kubernetes does.
 */
export function parseQuantity(str: string): Quantity | undefined {
  if (str.length === 0) return undefined;
  const parts = splitQuantity(str);
  if (parts === undefined) return undefined;
  const suffix = interpretSuffix(parts.suffix);
  if (suffix === undefined) return undefined;
  const { negative, num, denom } = parts;
  const digits = BigInt(num + denom);
  const sign = negative ? -1n : 1n;
  let format = suffix.format;

  // Go's int64 fast path keeps the written scale; everything else is rounded to scale 9 (nano).
  if (suffix.base === 10) {
    const precision = 18 - (num.length + denom.length);
    const scale = suffix.exponent - denom.length;
    if (precision >= 0 && scale >= -NANO_SCALE && digits <= INT64_MAX) {
      return { mantissa: sign * digits, exponent: scale, format };
    }
  } else if (denom.length === 0) {
    const precision = 15 - num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
    const shifted = digits << BigInt(suffix.exponent);
    if (precision >= 0 && shifted <= INT64_MAX) return { mantissa: sign * shifted, exponent: 0, format };
  }

  let mantissa = suffix.base === 2 ? digits << BigInt(suffix.exponent) : digits;
  let exponent = suffix.base === 2 ? -denom.length : suffix.exponent - denom.length;
  if (mantissa !== 0n) {
    if (exponent < -NANO_SCALE) mantissa = divRoundUp(mantissa, -NANO_SCALE - exponent);
    else mantissa *= pow10(exponent + NANO_SCALE);
    exponent = -NANO_SCALE;
  }
  if (format === "BinarySI") {
    const cap = INT64_MAX * pow10(NANO_SCALE);
    if (mantissa > cap) mantissa = cap;
    if (mantissa > 0n && mantissa < pow10(NANO_SCALE)) format = "DecimalSI";
  }
  return { mantissa: sign * mantissa, exponent, format };
}

/** Brings two quantities to a common exponent so their mantissas can be compared or added. */
function align(a: Quantity, b: Quantity): [bigint, bigint, number] {
  if (a.exponent === b.exponent) return [a.mantissa, b.mantissa, a.exponent];
  if (a.exponent > b.exponent) return [a.mantissa * pow10(a.exponent - b.exponent), b.mantissa, b.exponent];
  return [a.mantissa, b.mantissa * pow10(b.exponent - a.exponent), a.exponent];
}

/** Compares two quantities exactly: `"1Gi" > "1000Mi"`, `"0.5" == "500m"`. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `a + b`, printed in `a`'s format unless `a` is zero (Go's Quantity.Add). */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  const [x, y, exponent] = align(a, b);
  return { mantissa: x + y, exponent, format: a.mantissa === 0n ? b.format : a.format };
}

/** `a - b`, printed in `a`'s format unless `a` is zero (Go's Quantity.Sub). */
export function subtractQuantities(a: Quantity, b: Quantity): Quantity {
  return addQuantities(a, { ...b, mantissa: -b.mantissa });
}

/** `a × b` exactly, printed in `a`'s format. */
export function multiplyQuantities(a: Quantity, b: Quantity): Quantity {
  return { mantissa: a.mantissa * b.mantissa, exponent: a.exponent + b.exponent, format: a.format };
}

/**
 * `a ÷ b` truncated toward zero at the finer of the two operands' decimal scales (Go's
 * `inf.Dec.QuoRound(…, RoundDown)` as used by Kyverno); `undefined` when `b` is zero.
 */
export function divideQuantities(a: Quantity, b: Quantity): Quantity | undefined {
  if (b.mantissa === 0n) return undefined;
  const exponent = Math.min(a.exponent, b.exponent);
  // a.m·10^a.e / (b.m·10^b.e) = q·10^exponent  ⇒  q = a.m·10^(a.e − b.e − exponent) / b.m
  const shift = a.exponent - b.exponent - exponent;
  const numerator = shift >= 0 ? a.mantissa * pow10(shift) : a.mantissa;
  const denominator = shift >= 0 ? b.mantissa : b.mantissa * pow10(-shift);
  return { mantissa: numerator / denominator, exponent, format: a.format };
}

/** Nearest float64 value of the quantity (Go's AsApproximateFloat64). */
export function quantityToNumber(q: Quantity): number {
  if (q.exponent >= 0) return Number(q.mantissa * pow10(q.exponent));
  return Number.parseFloat(`${q.mantissa}e${q.exponent}`);
}

/** The quantity as a bigint when it is an integer, otherwise `undefined`. */
export function quantityToBigInt(q: Quantity): bigint | undefined {
  if (q.exponent >= 0) return q.mantissa * pow10(q.exponent);
  const divisor = pow10(-q.exponent);
  return q.mantissa % divisor === 0n ? q.mantissa / divisor : undefined;
}

/** An integer quantity in the given format (Go's resource.NewQuantity). */
export function quantityFromBigInt(value: bigint, format: QuantityFormat): Quantity {
  return { mantissa: value, exponent: 0, format };
}

function formatDecimal(mantissa: bigint, exponent: number, format: QuantityFormat): string {
  let m = mantissa;
  let e = exponent;
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  const down = ((e % 3) + 3) % 3;
  m *= pow10(down);
  e -= down;
  if (format === "DecimalExponent") return e === 0 ? `${m}` : `${m}e${e}`;
  if (e > 18) return `${m * pow10(e - 18)}E`;
  // Go prints a wrong value here (no suffix); the exponent form keeps it exact and parseable.
  return `${m}${DECIMAL_BY_EXPONENT.get(e) ?? `e${e}`}`;
}

/** Canonical Kubernetes string for the quantity (Go's Quantity.String): `"1536Mi"` → `"1536Mi"`, `"1000m"` → `"1"`. */
export function formatQuantity(q: Quantity): string {
  if (q.mantissa === 0n) return "0";
  if (q.format === "BinarySI") {
    const whole = quantityToBigInt(q);
    const small =
      compareQuantities(q, quantityFromBigInt(1024n, "DecimalSI")) < 0 &&
      compareQuantities(q, quantityFromBigInt(-1024n, "DecimalSI")) > 0;
    if (whole !== undefined && !small) {
      let m = whole;
      let power = 0;
      while (power < BINARY_BY_POWER.length - 1 && m % 1024n === 0n) {
        m /= 1024n;
        power++;
      }
      return `${m}${BINARY_BY_POWER[power] ?? ""}`;
    }
    return formatDecimal(q.mantissa, q.exponent, "DecimalSI");
  }
  return formatDecimal(q.mantissa, q.exponent, q.format);
}

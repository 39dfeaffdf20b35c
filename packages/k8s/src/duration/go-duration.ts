/**
 * Go `time.Duration` parsing and formatting (`"1h30m"` ⇄ 5.4e12 ns).
 *
 * Durations are plain `number`s of nanoseconds. Go's int64 range is ±292 years; a float64 holds every
 * nanosecond exactly up to 2^53 ns (about 104 days) and rounds beyond that, which is harmless for the
 * comparisons and arithmetic policies do. Parsing itself is exact (bigint) and rejects values outside
 * the int64 range, as Go does.
 */

const NANOSECOND = 1n;
const MICROSECOND = 1000n * NANOSECOND;
const MILLISECOND = 1000n * MICROSECOND;
const SECOND = 1000n * MILLISECOND;
const MINUTE = 60n * SECOND;
const HOUR = 60n * MINUTE;

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ["ns", NANOSECOND],
  ["us", MICROSECOND],
  ["µs", MICROSECOND], // U+00B5 micro sign
  ["μs", MICROSECOND], // U+03BC Greek mu
  ["ms", MILLISECOND],
  ["s", SECOND],
  ["m", MINUTE],
  ["h", HOUR],
]);

const INT64_LIMIT = 1n << 63n;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/**
 * Parses a Go duration such as `"1h30m"`, `"-1.5h"`, `"300ms"` or `"0"` into nanoseconds;
 * `undefined` when it is not a valid Go duration (a unit is required except for a bare `0`).
 */
export function parseDuration(input: string): number | undefined {
  const ns = parseDurationExact(input);
  return ns === undefined ? undefined : Number(ns);
}

/**
 * As {@link parseDuration} but in milliseconds (fractions kept: `1500us` is 1.5), for flags, schedules
 * and TTLs. The sign is kept; callers that take no negative duration check for it.
 */
export function parseDurationMs(input: string): number | undefined {
  const ns = parseDurationExact(input);
  return ns === undefined ? undefined : Number(ns) / 1e6;
}

/** As {@link parseDuration} but exact, as a bigint number of nanoseconds. */
export function parseDurationExact(input: string): bigint | undefined {
  let s = input;
  let negative = false;
  if (s[0] === "-" || s[0] === "+") {
    negative = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") return undefined;
  let total = 0n;
  let pos = 0;
  while (pos < s.length) {
    const c = s[pos];
    if (!(c === "." || isDigit(c))) return undefined;
    const intStart = pos;
    while (isDigit(s[pos])) pos++;
    const whole = s.slice(intStart, pos);
    let fraction = "";
    if (s[pos] === ".") {
      pos++;
      const fracStart = pos;
      while (isDigit(s[pos])) pos++;
      fraction = s.slice(fracStart, pos);
    }
    if (whole === "" && fraction === "") return undefined;
    const unitStart = pos;
    while (pos < s.length && s[pos] !== "." && !isDigit(s[pos])) pos++;
    const unit = UNITS.get(s.slice(unitStart, pos));
    if (unit === undefined) return undefined;
    const v = whole === "" ? 0n : BigInt(whole);
    if (v > INT64_LIMIT / unit) return undefined;
    let value = v * unit;
    if (fraction !== "") {
      // Go accumulates the fraction as float64 (dropping digits past int64), then truncates.
      const digits = fraction.slice(0, 18);
      const f = Number(digits);
      if (f > 0) value += BigInt(Math.trunc(f * (Number(unit) / 10 ** digits.length)));
      if (value > INT64_LIMIT) return undefined;
    }
    total += value;
    if (total > INT64_LIMIT) return undefined;
  }
  if (negative) return -total;
  if (total > INT64_LIMIT - 1n) return undefined;
  return total;
}

/** Formats the fraction `v / 10^prec` (without trailing zeros) and returns it with the integer part. */
function splitFraction(v: bigint, prec: number): [bigint, string] {
  const divisor = 10n ** BigInt(prec);
  const frac = (v % divisor).toString().padStart(prec, "0").replace(/0+$/, "");
  return [v / divisor, frac === "" ? "" : `.${frac}`];
}

/** Formats nanoseconds like Go's Duration.String: `"1h30m0s"`, `"1.5ms"`, `"0s"`. Fractions of a ns are truncated. */
export function formatDuration(ns: number | bigint): string {
  let u = typeof ns === "bigint" ? ns : BigInt(Math.trunc(ns));
  const negative = u < 0n;
  if (negative) u = -u;
  const sign = negative ? "-" : "";
  if (u < SECOND) {
    if (u === 0n) return "0s";
    if (u < MICROSECOND) return `${sign}${u}ns`;
    if (u < MILLISECOND) {
      const [whole, frac] = splitFraction(u, 3);
      return `${sign}${whole}${frac}µs`;
    }
    const [whole, frac] = splitFraction(u, 6);
    return `${sign}${whole}${frac}ms`;
  }
  const [secondsTotal, frac] = splitFraction(u, 9);
  let out = `${secondsTotal % 60n}${frac}s`;
  const minutesTotal = secondsTotal / 60n;
  if (minutesTotal > 0n) {
    out = `${minutesTotal % 60n}m${out}`;
    const hours = minutesTotal / 60n;
    if (hours > 0n) out = `${hours}h${out}`;
  }
  return `${sign}${out}`;
}

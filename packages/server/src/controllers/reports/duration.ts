/** Go's `time.ParseDuration` syntax, for flags such as `--backgroundScanInterval=1h`. */

const UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/**
 * Parses a Go duration (`1h`, `90m`, `1h30m`, `1.5h`, `300ms`; `0` alone) into milliseconds;
 * undefined when the text is not one. Negative durations are rejected (no flag here accepts them).
 */
export function parseGoDuration(text: string): number | undefined {
  let rest = text.trim();
  if (rest === "0") return 0;
  if (rest === "" || rest.startsWith("-")) return undefined;
  if (rest.startsWith("+")) rest = rest.slice(1);
  let total = 0;
  while (rest !== "") {
    const m = TERM.exec(rest);
    if (m === null) return undefined;
    const [whole, amount = "", unit = ""] = m;
    total += Number(amount) * (UNITS[unit] ?? Number.NaN);
    rest = rest.slice(whole.length);
  }
  return Number.isFinite(total) ? total : undefined;
}

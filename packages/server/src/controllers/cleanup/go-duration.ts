/** Go's `time.ParseDuration` with its sign, for TTL labels and `@every` schedules. */
import { parseGoDuration } from "../reports/duration.js";

/**
 * Parses a Go duration (`5s`, `1h30m`, `-2m`, `0`) into milliseconds, sign included; undefined when
 * Go would reject it (`1d`, `5`, `""`, surrounding spaces).
 */
export function parseSignedGoDuration(text: string): number | undefined {
  if (text !== text.trim()) return undefined;
  const negative = text.startsWith("-");
  const rest = negative || text.startsWith("+") ? text.slice(1) : text;
  if (rest.startsWith("+") || rest.startsWith("-")) return undefined;
  const ms = parseGoDuration(rest);
  if (ms === undefined) return undefined;
  return negative ? -ms : ms;
}

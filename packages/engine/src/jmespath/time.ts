/**
 * Kyverno's time functions. Times are RFC 3339 strings (or Go layouts for time_parse/time_since);
 * "now" comes from the injected clock and is rendered in UTC (Kyverno runs with TZ=UTC).
 */

import type { JsonValue } from "@kyverno-ts/api";
import { formatDuration, parseDurationExact } from "@kyverno-ts/k8s";
import { arg, type FunctionContext, type FunctionDef } from "./context.js";
import { functionError } from "./errors.js";
import { parseGoTime, parseRFC3339 } from "./goparse.js";
import {
  addDuration,
  fields,
  formatRFC3339,
  fromDate,
  type GoTime,
  subtractTimes,
  truncateTime,
} from "./gotime.js";

function text(args: readonly JsonValue[], index: number): string {
  const value = args[index];
  return typeof value === "string" ? value : "";
}

/** Runs `parse`, turning its Error into a Kyverno-style function error. */
function attempt<T>(fn: string, parse: () => T): T {
  try {
    return parse();
  } catch (thrown) {
    throw functionError(fn, thrown instanceof Error ? thrown.message : String(thrown));
  }
}

function rfc3339(fn: string, args: readonly JsonValue[], index: number): GoTime {
  return attempt(fn, () => parseRFC3339(text(args, index)));
}

function duration(fn: string, value: string): bigint {
  const d = parseDurationExact(value);
  if (d === undefined) throw functionError(fn, `time: invalid duration "${value}"`);
  return d;
}

function timeSince(a: readonly JsonValue[], ctx: FunctionContext): string {
  const layout = text(a, 0);
  const parse = (value: string) =>
    attempt("time_since", () => (layout === "" ? parseRFC3339(value) : parseGoTime(layout, value)));
  const start = parse(text(a, 1));
  const end = text(a, 2) === "" ? fromDate(ctx.now()) : parse(text(a, 2));
  return formatDuration(subtractTimes(end, start));
}

/** time_parse: a layout that is an integer means the value is Unix epoch seconds. */
function timeParse(a: readonly JsonValue[]): string {
  const layout = text(a, 0);
  const value = text(a, 1);
  if (/^[+-]?\d+$/.test(layout)) {
    if (!/^[+-]?\d+$/.test(value))
      throw functionError("time_parse", `strconv.ParseInt: parsing "${value}": invalid syntax`);
    return formatRFC3339({ seconds: Number(value), nanos: 0, offset: 0 });
  }
  return formatRFC3339(attempt("time_parse", () => parseGoTime(layout, value)));
}

function timeToCron(t: GoTime): string {
  const f = fields(t);
  return `${f.minute} ${f.hour} ${f.day} ${f.month} ${f.weekday}`;
}

const compare = (a: GoTime, b: GoTime) => subtractTimes(a, b);

/** The time functions. */
export const timeFunctions: readonly FunctionDef[] = [
  {
    name: "time_now",
    args: [],
    returns: "string",
    description: "current time, RFC 3339",
    call: (_a, ctx) => formatRFC3339(fromDate(ctx.now())),
  },
  {
    name: "time_now_utc",
    args: [],
    returns: "string",
    description: "current time in UTC, RFC 3339",
    call: (_a, ctx) => formatRFC3339(fromDate(ctx.now())),
  },
  {
    name: "time_since",
    args: [arg("string"), arg("string"), arg("string")],
    returns: "string",
    description: "duration from start to end (end '' = now); layout '' = RFC 3339, else a Go layout",
    call: timeSince,
  },
  {
    name: "time_add",
    args: [arg("string"), arg("string")],
    returns: "string",
    description: "adds a Go duration to an RFC 3339 time",
    call: (a) => formatRFC3339(addDuration(rfc3339("time_add", a, 0), duration("time_add", text(a, 1)))),
  },
  {
    name: "time_parse",
    args: [arg("string"), arg("string")],
    returns: "string",
    description: "parses a time written in a Go layout (or epoch seconds) and returns it as RFC 3339",
    call: timeParse,
  },
  {
    name: "time_utc",
    args: [arg("string")],
    returns: "string",
    description: "converts an RFC 3339 time to UTC",
    call: (a) => formatRFC3339({ ...rfc3339("time_utc", a, 0), offset: 0 }),
  },
  {
    name: "time_diff",
    args: [arg("string"), arg("string")],
    returns: "string",
    description: "duration from the first RFC 3339 time to the second",
    call: (a) => formatDuration(subtractTimes(rfc3339("time_diff", a, 1), rfc3339("time_diff", a, 0))),
  },
  {
    name: "time_before",
    args: [arg("string"), arg("string")],
    returns: "boolean",
    description: "true when the first RFC 3339 time is before the second",
    call: (a) => compare(rfc3339("time_before", a, 0), rfc3339("time_before", a, 1)) < 0n,
  },
  {
    name: "time_after",
    args: [arg("string"), arg("string")],
    returns: "boolean",
    description: "true when the first RFC 3339 time is after the second",
    call: (a) => compare(rfc3339("time_after", a, 0), rfc3339("time_after", a, 1)) > 0n,
  },
  {
    name: "time_between",
    args: [arg("string"), arg("string"), arg("string")],
    returns: "boolean",
    description: "true when the first RFC 3339 time is strictly between the second and the third",
    call: (a) => {
      const t = rfc3339("time_between", a, 0);
      return compare(t, rfc3339("time_between", a, 1)) > 0n && compare(t, rfc3339("time_between", a, 2)) < 0n;
    },
  },
  {
    name: "time_truncate",
    args: [arg("string"), arg("string")],
    returns: "string",
    description: "rounds an RFC 3339 time down to a multiple of the duration",
    call: (a) =>
      formatRFC3339(truncateTime(rfc3339("time_truncate", a, 0), duration("time_truncate", text(a, 1)))),
  },
  {
    name: "time_to_cron",
    args: [arg("string")],
    returns: "string",
    description: "cron expression 'minute hour day month weekday' for an RFC 3339 time",
    call: (a) => timeToCron(rfc3339("time_to_cron", a, 0)),
  },
];

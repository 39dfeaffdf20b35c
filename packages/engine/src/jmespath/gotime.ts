/**
 * Enough of Go's `time` package for Kyverno's time functions: `time.Parse` with reference-time
 * layouts ("2006-01-02T15:04:05Z07:00", "Mon Jan _2 15:04:05 MST 2006", …), RFC 3339 formatting,
 * Add, Sub and Truncate. A time is Unix seconds + nanoseconds + the UTC offset it was written with,
 * so formatting keeps the offset as Go does. Zone abbreviations other than UTC get offset 0 (Go's
 * "fabricated location" on a host whose local zone is UTC, as Kyverno's containers are).
 */

/** An instant plus the UTC offset (seconds east) used to display it. */
export interface GoTime {
  readonly seconds: number;
  readonly nanos: number;
  readonly offset: number;
}

const NS = 1_000_000_000n;
/** Seconds from 0001-01-01T00:00:00Z (Go's zero time) to the Unix epoch. */
const UNIX_TO_ABSOLUTE = 62_135_596_800n;

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z0: number): [number, number, number] {
  const z = z0 + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** Days in a month of the proleptic Gregorian calendar. */
export function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Wall-clock fields of a time in its own offset. */
export function fields(t: GoTime): {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
} {
  const local = t.seconds + t.offset;
  const days = Math.floor(local / 86400);
  const secs = local - days * 86400;
  const [year, month, day] = civilFromDays(days);
  const weekday = (((days + 4) % 7) + 7) % 7;
  return {
    year,
    month,
    day,
    hour: Math.floor(secs / 3600),
    minute: Math.floor(secs / 60) % 60,
    second: secs % 60,
    weekday,
  };
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** `t.Format(time.RFC3339)`. */
export function formatRFC3339(t: GoTime): string {
  const f = fields(t);
  const year = f.year < 0 ? `-${pad(f.year, 4)}` : pad(f.year, 4);
  const date = `${year}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`;
  if (t.offset === 0) return `${date}Z`;
  const abs = Math.abs(t.offset);
  return `${date}${t.offset < 0 ? "-" : "+"}${pad(Math.floor(abs / 3600))}:${pad(Math.floor(abs / 60) % 60)}`;
}

function toNanos(t: GoTime): bigint {
  return BigInt(t.seconds) * NS + BigInt(t.nanos);
}

function fromNanos(ns: bigint, offset: number): GoTime {
  let seconds = ns / NS;
  let nanos = ns % NS;
  if (nanos < 0n) {
    nanos += NS;
    seconds -= 1n;
  }
  return { seconds: Number(seconds), nanos: Number(nanos), offset };
}

/** `t.Add(d)`. */
export function addDuration(t: GoTime, d: bigint): GoTime {
  return fromNanos(toNanos(t) + d, t.offset);
}

/** `a.Sub(b)` in nanoseconds. */
export function subtractTimes(a: GoTime, b: GoTime): bigint {
  return toNanos(a) - toNanos(b);
}

/** `t.Truncate(d)`: rounds down to a multiple of d since Go's zero time. */
export function truncateTime(t: GoTime, d: bigint): GoTime {
  if (d <= 0n) return t;
  const absolute = toNanos(t) + UNIX_TO_ABSOLUTE * NS;
  let r = absolute % d;
  if (r < 0n) r += d;
  return fromNanos(toNanos(t) - r, t.offset);
}

/** The current time from a JS Date, in UTC. */
export function fromDate(date: Date): GoTime {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: (ms - seconds * 1000) * 1_000_000, offset: 0 };
}

/** `time.Date(...)` with a fixed offset. */
export function makeTime(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  nanos: number,
  offset: number,
): GoTime {
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
  return { seconds, nanos, offset };
}

/** Validates a calendar day the way time.Parse does. */
export function validDay(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year);
}

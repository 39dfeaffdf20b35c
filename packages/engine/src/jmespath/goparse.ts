/**
 * Go's `time.Parse(layout, value)`: the layout is the reference time `Mon Jan 2 15:04:05 MST 2006`
 * written in the wanted format. Errors read like Go's (`parsing time "x" as "layout": …`).
 */
import { daysIn, type GoTime, makeTime, validDay } from "./gotime.js";

type Std =
  | "January"
  | "Jan"
  | "1"
  | "01"
  | "Monday"
  | "Mon"
  | "2"
  | "_2"
  | "02"
  | "__2"
  | "002"
  | "15"
  | "3"
  | "03"
  | "4"
  | "04"
  | "5"
  | "05"
  | "2006"
  | "06"
  | "PM"
  | "pm"
  | "MST"
  | "Z0700"
  | "Z07:00"
  | "Z07"
  | "Z070000"
  | "Z07:00:00"
  | "-0700"
  | "-07:00"
  | "-07"
  | "-070000"
  | "-07:00:00"
  | { frac: "0" | "9"; digits: number };

type Chunk = { literal: string } | { std: Std };

const LONG_MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const ZONES: ReadonlyArray<Std> = [
  "Z07:00:00",
  "Z070000",
  "Z07:00",
  "Z0700",
  "Z07",
  "-07:00:00",
  "-070000",
  "-07:00",
  "-0700",
  "-07",
];
const PLAIN: ReadonlyArray<Std> = [
  "January",
  "Jan",
  "Monday",
  "Mon",
  "MST",
  "2006",
  "002",
  "__2",
  "_2",
  "15",
  "PM",
  "pm",
  "01",
  "02",
  "03",
  "04",
  "05",
  "06",
  "1",
  "2",
  "3",
  "4",
  "5",
];

/** Splits a layout into literals and std tokens (Go's nextStdChunk). */
export function tokenizeLayout(layout: string): Chunk[] {
  const chunks: Chunk[] = [];
  let literal = "";
  let i = 0;
  outer: while (i < layout.length) {
    const rest = layout.slice(i);
    const c = layout[i] ?? "";
    if ((c === "." || c === ",") && (rest[1] === "0" || rest[1] === "9")) {
      const digit = rest[1];
      let j = 1;
      while (rest[j] === digit) j++;
      if (!/[0-9]/.test(rest[j] ?? "")) {
        if (literal !== "") chunks.push({ literal });
        literal = "";
        chunks.push({ std: { frac: digit === "0" ? "0" : "9", digits: j - 1 } });
        i += j;
        continue;
      }
    }
    for (const std of [...ZONES, ...PLAIN]) {
      if (typeof std !== "string" || !rest.startsWith(std)) continue;
      // "_2006" is a literal "_" followed by the long year.
      if (std === "_2" && rest.startsWith("_2006")) break;
      if (literal !== "") chunks.push({ literal });
      literal = "";
      chunks.push({ std });
      i += std.length;
      continue outer;
    }
    literal += c;
    i++;
  }
  if (literal !== "") chunks.push({ literal });
  return chunks;
}

class ParseError extends Error {}

function lookup(value: string, names: readonly string[]): [number, string] {
  for (let i = 0; i < names.length; i++) {
    const name = names[i] ?? "";
    if (value.length >= name.length && value.slice(0, name.length).toLowerCase() === name.toLowerCase()) {
      return [i, value.slice(name.length)];
    }
  }
  throw new ParseError("bad value");
}

function getnum(value: string, fixed: boolean, digits = 2): [number, string] {
  const m = (fixed ? new RegExp(`^\\d{${digits}}`) : new RegExp(`^\\d{1,${digits}}`)).exec(value);
  if (m === null) throw new ParseError("bad value");
  return [Number(m[0]), value.slice(m[0].length)];
}

function parseOffset(std: string, value: string): [number, string] {
  if (std.startsWith("Z") && value.startsWith("Z")) return [0, value.slice(1)];
  const shape = std.replace(/^Z/, "-");
  const patterns: Record<string, RegExp> = {
    "-07": /^([+-])(\d\d)/,
    "-0700": /^([+-])(\d\d)(\d\d)/,
    "-07:00": /^([+-])(\d\d):(\d\d)/,
    "-070000": /^([+-])(\d\d)(\d\d)(\d\d)/,
    "-07:00:00": /^([+-])(\d\d):(\d\d):(\d\d)/,
  };
  const m = patterns[shape]?.exec(value);
  if (m == null) throw new ParseError("bad value");
  const [h, mi, s] = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
  if (h > 24 || mi > 59 || s > 59) throw new ParseError("time zone offset out of range");
  const offset = h * 3600 + mi * 60 + s;
  return [m[1] === "-" ? -offset : offset, value.slice(m[0].length)];
}

function parseFraction(value: string, std: { frac: "0" | "9"; digits: number }): [number, string] {
  if (!(value[0] === "." || value[0] === ",")) {
    if (std.frac === "9") return [0, value];
    throw new ParseError("bad value");
  }
  const m = std.frac === "0" ? new RegExp(`^[.,](\\d{${std.digits}})`).exec(value) : /^[.,](\d+)/.exec(value);
  if (m === null) {
    if (std.frac === "9") return [0, value];
    throw new ParseError("bad value");
  }
  return [Number((m[1] ?? "").padEnd(9, "0").slice(0, 9)), value.slice(m[0].length)];
}

/** `time.Parse(layout, value)`; throws an Error with Go's message shape on failure. */
export function parseGoTime(layout: string, input: string): GoTime {
  let value = input;
  let year = 0;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let nanos = 0;
  let offset: number | undefined;
  let pm: boolean | undefined;
  const chunks = tokenizeLayout(layout);
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i] as Chunk;
    if ("literal" in chunk) {
      if (!value.startsWith(chunk.literal)) {
        throw new Error(
          `parsing time "${input}" as "${layout}": cannot parse "${value}" as "${chunk.literal}"`,
        );
      }
      value = value.slice(chunk.literal.length);
      continue;
    }
    const std = chunk.std;
    const before = value;
    try {
      if (typeof std === "object") {
        [nanos, value] = parseFraction(value, std);
        continue;
      }
      switch (std) {
        case "2006":
          [year, value] = getnum(value, true, 4);
          break;
        case "06":
          [year, value] = getnum(value, true, 2);
          year += year >= 69 ? 1900 : 2000;
          break;
        case "January":
        case "Jan":
          [month, value] = lookup(value, std === "Jan" ? LONG_MONTHS.map((m) => m.slice(0, 3)) : LONG_MONTHS);
          month++;
          break;
        case "1":
        case "01":
          [month, value] = getnum(value, std === "01");
          if (month < 1 || month > 12) throw new ParseError("month out of range");
          break;
        case "Monday":
        case "Mon":
          [, value] = lookup(value, std === "Mon" ? LONG_DAYS.map((d) => d.slice(0, 3)) : LONG_DAYS);
          break;
        case "2":
        case "_2":
        case "02":
          if (std === "_2" && value.startsWith(" ")) value = value.slice(1);
          [day, value] = getnum(value, std === "02");
          break;
        case "__2":
        case "002":
          if (std === "__2") value = value.replace(/^ {1,2}/, "");
          [yday, value] = getnum(value, std === "002", 3);
          break;
        case "15":
          [hour, value] = getnum(value, false);
          if (hour > 23) throw new ParseError("hour out of range");
          break;
        case "3":
        case "03":
          [hour, value] = getnum(value, std === "03");
          if (hour < 0 || hour > 12) throw new ParseError("hour out of range");
          break;
        case "4":
        case "04":
          [minute, value] = getnum(value, std === "04");
          if (minute > 59) throw new ParseError("minute out of range");
          break;
        case "5":
        case "05": {
          [second, value] = getnum(value, std === "05");
          if (second > 59) throw new ParseError("second out of range");
          const next = chunks[i + 1];
          const nextIsFrac = next !== undefined && "std" in next && typeof next.std === "object";
          if (!nextIsFrac && /^[.,]\d/.test(value))
            [nanos, value] = parseFraction(value, { frac: "9", digits: 0 });
          break;
        }
        case "PM":
        case "pm": {
          const word = value.slice(0, 2);
          const [am, pmWord] = std === "PM" ? ["AM", "PM"] : ["am", "pm"];
          if (word !== am && word !== pmWord) throw new ParseError("bad value");
          pm = word === pmWord;
          value = value.slice(2);
          break;
        }
        case "MST": {
          const m = /^(UTC|GMT[+-]\d{1,2}|[A-Z]{3,5}|[A-Z][a-z][A-Z]T)/.exec(value);
          if (m === null) throw new ParseError("bad value");
          const gmt = /^GMT([+-]\d+)$/.exec(m[0]);
          offset = gmt ? Number(gmt[1]) * 3600 : 0;
          value = value.slice(m[0].length);
          break;
        }
        default:
          [offset, value] = parseOffset(std, value);
      }
    } catch (thrown) {
      if (!(thrown instanceof ParseError)) throw thrown;
      const why = thrown.message === "bad value" ? `cannot parse "${before}" as "${std}"` : thrown.message;
      throw new Error(`parsing time "${input}" as "${layout}": ${why}`);
    }
  }
  if (value !== "") throw new Error(`parsing time "${input}" as "${layout}": extra text: "${value}"`);
  if (pm === true && hour < 12) hour += 12;
  if (pm === false && hour === 12) hour = 0;
  if (yday >= 0) {
    let m = 1;
    let d = yday;
    while (m < 12 && d > daysIn(m, year)) d -= daysIn(m++, year);
    if (month < 0) [month, day] = [m, d];
  }
  if (month < 0) month = 1;
  if (day < 0) day = 1;
  if (!validDay(year, month, day)) throw new Error(`parsing time "${input}": day out of range`);
  return makeTime(year, month, day, hour, minute, second, nanos, offset ?? 0);
}

/** `time.Parse(time.RFC3339, value)`. */
export function parseRFC3339(value: string): GoTime {
  return parseGoTime("2006-01-02T15:04:05Z07:00", value);
}

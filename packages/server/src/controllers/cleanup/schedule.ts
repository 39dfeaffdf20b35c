/**
 * Cleanup schedules, as upstream reads them (robfig/cron's `ParseStandard`): five fields (minute,
 * hour, day of month, month, day of week; no seconds field), the descriptors `@yearly`, `@annually`,
 * `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`, `@every <Go duration>` (at least one
 * second), and an optional `CRON_TZ=<zone>` / `TZ=<zone>` prefix (UTC otherwise, as upstream's image
 * runs). croner computes the next run of a cron expression; `@every` is a constant delay. The next
 * run is always strictly after the time given, in whole seconds, as upstream's `Next`.
 */
import { parseDurationMs } from "@kyverno-ts/k8s";
import { Cron } from "croner";

/** A parsed schedule: the next run strictly after a time (epoch ms). */
export interface CleanupSchedule {
  readonly expression: string;
  next(afterMs: number): number | undefined;
}

/** Outcome of `parseSchedule`: the schedule, or why the text is not one (robfig's wording). */
export type ScheduleParse = { ok: true; schedule: CleanupSchedule } | { ok: false; message: string };

const DESCRIPTORS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
/** Names each field accepts besides numbers, `*` and `?` (robfig has no `L`, `W` or `#`). */
const FIELD_NAMES: readonly (readonly string[])[] = [[], [], [], MONTHS, DAYS];

/** The first token of a field robfig would reject, if any. */
function badToken(field: string, names: readonly string[]): string | undefined {
  for (const token of field.split(/[,/-]/))
    if (!(token === "*" || token === "?" || /^\d+$/.test(token) || names.includes(token.toUpperCase())))
      return token;
  return undefined;
}

function cronSchedule(expression: string, fields: string, timezone: string): ScheduleParse {
  const parts = fields.split(/\s+/).filter((p) => p !== "");
  if (parts.length !== 5)
    return {
      ok: false,
      message: `expected exactly 5 fields, found ${parts.length}: [${parts.join(" ")}]`,
    };
  for (const [i, part] of parts.entries()) {
    const token = badToken(part, FIELD_NAMES[i] ?? []);
    if (token !== undefined) return { ok: false, message: `failed to parse int from ${token}` };
  }
  let cron: Cron;
  try {
    cron = new Cron(parts.join(" "), { timezone, paused: true, mode: "5-part", legacyMode: true });
    cron.nextRun(new Date(0));
  } catch (error) {
    return { ok: false, message: (error as Error).message.replace(/^Cron(Pattern|Date): /, "") };
  }
  return {
    ok: true,
    schedule: {
      expression,
      next(afterMs) {
        // Whole seconds, strictly after: as robfig truncates the time before adding a second.
        const next = cron.nextRun(new Date(Math.floor(afterMs / 1000) * 1000));
        return next === null ? undefined : next.getTime();
      },
    },
  };
}

/** Parses a `schedule` as upstream's cleanup controller does. */
export function parseSchedule(expression: string): ScheduleParse {
  let spec = expression.trim();
  let timezone = "UTC";
  const tz = /^(?:CRON_TZ|TZ)=(\S*)\s*/.exec(spec);
  if (tz !== null) {
    timezone = tz[1] ?? "";
    spec = spec.slice(tz[0].length);
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    } catch {
      return { ok: false, message: `provided bad location ${timezone}: unknown time zone ${timezone}` };
    }
  }
  if (spec.startsWith("@every ")) {
    const text = spec.slice("@every ".length).trim();
    const ms = parseDurationMs(text);
    if (ms === undefined)
      return { ok: false, message: `failed to parse duration ${spec}: time: invalid duration "${text}"` };
    // robfig: delays under a second round up to one; sub-second parts are truncated.
    const delay = Math.max(1000, Math.floor(ms / 1000) * 1000);
    return {
      ok: true,
      schedule: { expression, next: (afterMs) => Math.floor(afterMs / 1000) * 1000 + delay },
    };
  }
  if (spec.startsWith("@")) {
    const fields = DESCRIPTORS[spec];
    if (fields === undefined) return { ok: false, message: `unrecognized descriptor: ${spec}` };
    return cronSchedule(expression, fields, timezone);
  }
  return cronSchedule(expression, spec, timezone);
}

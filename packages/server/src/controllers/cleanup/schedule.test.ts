import { describe, expect, it } from "vitest";
import { parseSchedule } from "./schedule.js";

const at = (iso: string) => Date.parse(iso);
const next = (expression: string, after: string) => {
  const parsed = parseSchedule(expression);
  if (!parsed.ok) throw new Error(parsed.message);
  const ms = parsed.schedule.next(at(after));
  return ms === undefined ? undefined : new Date(ms).toISOString();
};

describe("parseSchedule (upstream's ParseStandard)", () => {
  it("computes the next run of a five-field expression strictly after the time, in UTC", () => {
    expect(next("*/5 * * * *", "2026-01-01T00:02:30.500Z")).toBe("2026-01-01T00:05:00.000Z");
    expect(next("*/5 * * * *", "2026-01-01T00:05:00.000Z")).toBe("2026-01-01T00:10:00.000Z");
    expect(next("0 9 * * MON-FRI", "2026-01-03T10:00:00Z")).toBe("2026-01-05T09:00:00.000Z");
  });

  it("accepts descriptors, @every and a time zone prefix", () => {
    expect(next("@hourly", "2026-01-01T00:30:00Z")).toBe("2026-01-01T01:00:00.000Z");
    expect(next("@every 2s", "2026-01-01T00:00:00.700Z")).toBe("2026-01-01T00:00:02.000Z");
    expect(next("@every 1h30m", "2026-01-01T00:00:00Z")).toBe("2026-01-01T01:30:00.000Z");
    // Under a second rounds up to one, as robfig's Every.
    expect(next("@every 10ms", "2026-01-01T00:00:00Z")).toBe("2026-01-01T00:00:01.000Z");
    expect(next("CRON_TZ=Europe/Berlin 0 9 * * *", "2026-01-01T00:00:00Z")).toBe("2026-01-01T08:00:00.000Z");
  });

  it("rejects what upstream rejects, with robfig's wording", () => {
    const problem = (e: string) => {
      const parsed = parseSchedule(e);
      return parsed.ok ? "accepted" : parsed.message;
    };
    // No seconds field: upstream parses standard (five-field) cron only.
    expect(problem("*/2 * * * * *")).toBe("expected exactly 5 fields, found 6: [*/2 * * * * *]");
    expect(problem("* * * *")).toBe("expected exactly 5 fields, found 4: [* * * *]");
    expect(problem("invalid")).toBe("expected exactly 5 fields, found 1: [invalid]");
    expect(problem("0 0 L * *")).toBe("failed to parse int from L");
    expect(problem("61 * * * *")).toContain("minute");
    expect(problem("@often")).toBe("unrecognized descriptor: @often");
    expect(problem("@every 1d")).toBe('failed to parse duration @every 1d: time: invalid duration "1d"');
    expect(problem("TZ=Nowhere/Town * * * * *")).toContain("provided bad location Nowhere/Town");
  });
});

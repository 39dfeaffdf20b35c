import { describe, expect, it } from "vitest";
import { parseGoDuration } from "./duration.js";

describe("parseGoDuration", () => {
  it("reads Go durations into milliseconds", () => {
    expect(parseGoDuration("1h")).toBe(3_600_000);
    expect(parseGoDuration("1h30m")).toBe(5_400_000);
    expect(parseGoDuration("1.5h")).toBe(5_400_000);
    expect(parseGoDuration("90s")).toBe(90_000);
    expect(parseGoDuration("300ms")).toBe(300);
    expect(parseGoDuration("2h45m30.5s")).toBe(9_930_500);
    expect(parseGoDuration("1500us")).toBe(1.5);
    expect(parseGoDuration("0")).toBe(0);
  });
  it("rejects what Go rejects, and negative durations", () => {
    for (const bad of ["", "1", "h", "1d", "1h-5m", "-1h", "1 h", "abc"])
      expect(parseGoDuration(bad)).toBeUndefined();
  });
});

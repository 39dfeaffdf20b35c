import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration, parseDurationExact, parseDurationMs } from "./go-duration.js";

describe("parseDuration", () => {
  it.each([
    ["1h30m", 5.4e12],
    ["1.5h", 5.4e12],
    ["300ms", 3e8],
    ["2us", 2000],
    ["2µs", 2000],
    ["2μs", 2000],
    ["7ns", 7],
    ["0", 0],
    ["-1m", -6e10],
    ["+10s", 1e10],
    [".5s", 5e8],
    ["1h0.5s", 3600.5e9],
  ])("parses %s", (input, ns) => {
    expect(parseDuration(input)).toBe(ns);
  });

  it.each(["", "1", "1d", "h", ".s", "1.2.3s", "-", "9223372037s", "1h 2m"])("rejects %j", (input) => {
    expect(parseDuration(input)).toBeUndefined();
  });

  it("is exact up to the int64 limit", () => {
    expect(parseDurationExact("2562047h47m16.854775807s")).toBe(9223372036854775807n);
    expect(parseDurationExact("2562047h47m16.854775808s")).toBeUndefined();
    expect(parseDurationExact("-2562047h47m16.854775808s")).toBe(-9223372036854775808n);
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0s"],
    [1, "1ns"],
    [1500, "1.5µs"],
    [1.5e6, "1.5ms"],
    [1e9, "1s"],
    [5.4e12, "1h30m0s"],
    [-8.64e13, "-24h0m0s"],
    [3600.5e9, "1h0m0.5s"],
    [2_020_000_000_000n, "33m40s"],
  ])("formats %s as %s", (ns, text) => {
    expect(formatDuration(ns)).toBe(text);
  });

  it("round-trips", () => {
    for (const text of ["1h2m3.004005006s", "-3m0.1s", "999ms", "72h0m0s"]) {
      expect(formatDuration(parseDurationExact(text) ?? 0n)).toBe(text);
    }
  });
});

describe("parseDurationMs", () => {
  it("reads Go durations into milliseconds, sign included", () => {
    expect(parseDurationMs("1h")).toBe(3_600_000);
    expect(parseDurationMs("1h30m")).toBe(5_400_000);
    expect(parseDurationMs("1.5h")).toBe(5_400_000);
    expect(parseDurationMs("90s")).toBe(90_000);
    expect(parseDurationMs("300ms")).toBe(300);
    expect(parseDurationMs("2h45m30.5s")).toBe(9_930_500);
    expect(parseDurationMs("1500us")).toBe(1.5);
    expect(parseDurationMs("0")).toBe(0);
    expect(parseDurationMs("-2m")).toBe(-120_000);
    expect(parseDurationMs("+5s")).toBe(5_000);
  });
  it("rejects what Go rejects", () => {
    for (const bad of ["", "1", "h", "1d", "1h-5m", "1 h", " 5s", "5s ", "abc", "--1s"])
      expect(parseDurationMs(bad)).toBeUndefined();
  });
});

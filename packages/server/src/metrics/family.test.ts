import { describe, expect, it } from "vitest";
import type { MetricFamilySpec } from "./catalog.js";
import { createCounterFamily, createHistogramFamily, type Exposure } from "./family.js";

const spec: MetricFamilySpec = {
  name: "x_total",
  type: "counter",
  labels: ["ns", "kind"],
  help: "X.",
  binaries: ["admission"],
  origin: "kyverno-ts",
};
const all: Exposure = { enabled: true, kept: [0, 1], buckets: [0.1, 1] };
const text = (lines: Generator<string>) => [...lines].join("");

describe("metric families", () => {
  it("stops at maxSeries, keeps counting the series it has and reports each refused label set once", () => {
    const refused: string[] = [];
    const family = createCounterFamily(spec, all, { maxSeries: 2, onDropped: (n) => refused.push(n) });
    for (const ns of ["a", "b", "c", "a", "c", "d"]) family.series(ns, () => [ns, "Pod"])?.inc();
    expect(family.size).toBe(2);
    expect(text(family.lines())).toBe(
      '# HELP x_total X.\n# TYPE x_total counter\nx_total{ns="a",kind="Pod"} 2\nx_total{ns="b",kind="Pod"} 1\n',
    );
    expect(refused).toEqual(["x_total", "x_total"]);
  });

  it("still counts into a merged series when the family is full", () => {
    const merged: Exposure = { ...all, kept: [1] };
    const family = createCounterFamily(spec, merged, { maxSeries: 1 });
    for (const ns of ["a", "b", "c"]) family.series(ns, () => [ns, "Pod"])?.inc();
    expect(family.series("d", () => ["d", "Job"])).toBeUndefined();
    expect(text(family.lines())).toContain('x_total{kind="Pod"} 3\n');
  });

  it("renders histograms cumulatively with le first, and label-less families without braces", () => {
    const histogram = createHistogramFamily(
      { ...spec, name: "d_seconds", type: "histogram", labels: [] },
      { ...all, kept: [] },
      {
        maxSeries: 10,
      },
    );
    const s = histogram.series("", () => []);
    for (const v of [0.05, 0.5, 5]) s?.observe(v);
    expect(text(histogram.lines())).toBe(
      [
        "# HELP d_seconds X.",
        "# TYPE d_seconds histogram",
        'd_seconds_bucket{le="0.1"} 1',
        'd_seconds_bucket{le="1"} 2',
        'd_seconds_bucket{le="+Inf"} 3',
        "d_seconds_sum 5.55",
        "d_seconds_count 3",
        "",
      ].join("\n"),
    );
  });

  it("records and renders nothing when disabled", () => {
    const family = createCounterFamily(spec, { ...all, enabled: false }, { maxSeries: 10 });
    expect(family.series("a", () => ["a", "Pod"])).toBeUndefined();
    expect(text(family.lines())).toBe("");
  });
});

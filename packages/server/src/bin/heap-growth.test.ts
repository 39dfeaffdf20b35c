import { describe, expect, it } from "vitest";
import { boundHeapGrowth, REPORTS_HEAP_GROWING_PERCENT } from "./heap-growth.js";

describe("boundHeapGrowth", () => {
  it("sets V8's heap growing percent when node was not given one", () => {
    const set: string[] = [];
    const flag = boundHeapGrowth({ execArgv: ["--max-semi-space-size=4"], env: {} }, (f) => set.push(f));
    expect(flag).toBe(`--heap-growing-percent=${REPORTS_HEAP_GROWING_PERCENT}`);
    expect(set).toEqual([flag]);
  });

  it("keeps the user's choice from node's command line or NODE_OPTIONS", () => {
    const set: string[] = [];
    const record = (f: string) => set.push(f);
    expect(boundHeapGrowth({ execArgv: ["--heap-growing-percent=80"], env: {} }, record)).toBeUndefined();
    expect(
      boundHeapGrowth({ execArgv: [], env: { NODE_OPTIONS: "--heap_growing_percent=20" } }, record),
    ).toBe(undefined);
    expect(set).toEqual([]);
  });
});

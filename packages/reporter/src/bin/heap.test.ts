import { describe, expect, it } from "vitest";
import { boundHeapGrowth, REPORTER_HEAP_GROWING_PERCENT } from "./heap.js";

describe("boundHeapGrowth", () => {
  it("sets V8's heap growing factor for the reporter", () => {
    const set: string[] = [];
    const flag = boundHeapGrowth({ execArgv: ["--max-semi-space-size=4"], env: {} }, (f) => set.push(f));
    expect(flag).toBe(`--heap-growing-percent=${REPORTER_HEAP_GROWING_PERCENT}`);
    expect(set).toEqual([flag]);
  });

  it("keeps a growing factor given to node on its command line or in NODE_OPTIONS", () => {
    const set: string[] = [];
    const record = (f: string) => set.push(f);
    expect(boundHeapGrowth({ execArgv: ["--heap-growing-percent=80"], env: {} }, record)).toBeUndefined();
    expect(boundHeapGrowth({ execArgv: ["--heap_growing_percent", "80"], env: {} }, record)).toBeUndefined();
    expect(
      boundHeapGrowth({ execArgv: [], env: { NODE_OPTIONS: "--inspect --heap-growing-percent=20" } }, record),
    ).toBeUndefined();
    expect(set).toEqual([]);
  });
});

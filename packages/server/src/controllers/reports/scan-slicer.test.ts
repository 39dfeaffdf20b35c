import { describe, expect, it } from "vitest";
import { createScanSlicer, forEachSliced } from "./scan-slicer.js";

/** A monotonic clock the test moves, and a yield that records the time it happened at. */
function fakeLoop() {
  let now = 0;
  const yieldedAt: number[] = [];
  return {
    monotonic: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    yieldTurn: async () => {
      yieldedAt.push(now);
    },
    yieldedAt,
  };
}

describe("scan slicer", () => {
  it("yields once a slice is used up, never holding the loop for more than a slice plus one step", async () => {
    const loop = fakeLoop();
    const slicer = createScanSlicer({ monotonic: loop.monotonic, sliceMs: 10, yieldTurn: loop.yieldTurn });
    // 100 steps of 3 ms: 300 ms of work, in runs of at most 12 ms.
    for (let i = 0; i < 100; i++) {
      await slicer.pause();
      loop.advance(3);
    }
    expect(slicer.yields).toBe(loop.yieldedAt.length);
    expect(slicer.yields).toBeGreaterThanOrEqual(24);
    const gaps = loop.yieldedAt.map((t, i) => t - (loop.yieldedAt[i - 1] ?? 0));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(12);
  });

  it("does not yield while the slice lasts", async () => {
    const loop = fakeLoop();
    const slicer = createScanSlicer({ monotonic: loop.monotonic, sliceMs: 10, yieldTurn: loop.yieldTurn });
    for (let i = 0; i < 9; i++) {
      await slicer.pause();
      loop.advance(1);
    }
    expect(slicer.yields).toBe(0);
  });

  it("says when a pause would yield (due once the slice is used up, and again after the yield)", async () => {
    const loop = fakeLoop();
    const slicer = createScanSlicer({ monotonic: loop.monotonic, sliceMs: 10, yieldTurn: loop.yieldTurn });
    loop.advance(9);
    expect(slicer.due()).toBe(false);
    loop.advance(1);
    expect(slicer.due()).toBe(true);
    await slicer.pause();
    expect(slicer.yields).toBe(1);
    expect(slicer.due()).toBe(false);
    expect(createScanSlicer({ monotonic: loop.monotonic, sliceMs: 0 }).due()).toBe(true);
  });

  it("with a slice of 0 yields at every pause", async () => {
    const loop = fakeLoop();
    const slicer = createScanSlicer({ monotonic: loop.monotonic, sliceMs: 0, yieldTurn: loop.yieldTurn });
    for (let i = 0; i < 5; i++) await slicer.pause();
    expect(slicer.yields).toBe(5);
  });

  it("forEachSliced visits every item and pauses every `every` items", async () => {
    const loop = fakeLoop();
    const slicer = createScanSlicer({ monotonic: loop.monotonic, sliceMs: 0, yieldTurn: loop.yieldTurn });
    const seen: number[] = [];
    await forEachSliced([1, 2, 3, 4, 5, 6, 7], slicer, (n) => seen.push(n), 3);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(slicer.yields).toBe(2);
  });
});

import { createManualClock } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createTokenBucket } from "./token-bucket.js";

describe("token bucket", () => {
  it("lets a burst through, then spaces callers 1/qps apart in call order", async () => {
    const clock = createManualClock(1_000_000);
    const bucket = createTokenBucket({ qps: 5, burst: 3, clock });
    const start = clock.now();
    const passed: Array<[number, number]> = [];
    const takers = Array.from({ length: 6 }, (_, i) =>
      bucket.take().then(() => {
        passed.push([i, clock.now() - start]);
      }),
    );
    await clock.settle(2000);
    await Promise.all(takers);
    expect(passed).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 200],
      [4, 400],
      [5, 600],
    ]);
  });

  it("refills up to the burst only", async () => {
    const clock = createManualClock(1_000_000);
    const bucket = createTokenBucket({ qps: 10, burst: 2, clock });
    await clock.settle(60_000);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 100]);
  });

  it("gives the token back when the wait is aborted", async () => {
    const clock = createManualClock(1_000_000);
    const bucket = createTokenBucket({ qps: 1, burst: 1, clock });
    expect(bucket.reserve()).toBe(0);
    const abort = new AbortController();
    const waiting = bucket.take(abort.signal);
    abort.abort();
    expect(await waiting).toBe(false);
    await clock.settle(1000);
    expect(bucket.reserve()).toBe(0);
  });

  it("does not limit with qps 0 or Infinity", () => {
    for (const qps of [0, Number.POSITIVE_INFINITY]) {
      const bucket = createTokenBucket({ qps, burst: 1 });
      expect(Array.from({ length: 100 }, () => bucket.reserve()).every((d) => d === 0)).toBe(true);
    }
  });
});

import { describe, expect, it, vi } from "vitest";
import { acquire, preload } from "./query-cache.ts";

describe("query cache", () => {
  it("shares a running call and aborts it when nobody waits any more", async () => {
    let calls = 0;
    let signal: AbortSignal | undefined;
    const call = (s?: AbortSignal) => {
      calls++;
      signal = s;
      return new Promise<number>(() => {});
    };
    const a = acquire("k1", call);
    const b = acquire("k1", call);
    expect(calls).toBe(1);
    a.release();
    expect(signal?.aborted).toBe(false);
    b.release();
    expect(signal?.aborted).toBe(true);
    acquire("k1", call).release();
    expect(calls).toBe(2);
  });

  it("reuses an answer briefly, and never a failure", async () => {
    let calls = 0;
    const ok = async () => ++calls;
    const first = acquire("k2", ok);
    expect(await first.promise).toBe(1);
    first.release();
    expect(await acquire("k2", ok).promise).toBe(1);

    let failures = 0;
    const failing = async () => {
      failures++;
      throw new Error("down");
    };
    await expect(acquire("k3", failing).promise).rejects.toThrow("down");
    await expect(acquire("k3", failing).promise).rejects.toThrow("down");
    expect(failures).toBe(2);
  });

  it("keeps a preloaded answer or failure for the first view that asks, then lives as usual", async () => {
    vi.useFakeTimers();
    let calls = 0;
    const ok = async () => ++calls;
    preload("p1", ok);
    preload("p1", ok);
    await vi.advanceTimersByTimeAsync(5_000);
    const adopted = acquire("p1", ok);
    expect(await adopted.promise).toBe(1);
    adopted.release();
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await acquire("p1", ok).promise).toBe(2);
    vi.useRealTimers();

    let failures = 0;
    const failing = async () => {
      failures++;
      throw new Error("not found");
    };
    preload("p2", failing);
    await Promise.resolve();
    await expect(acquire("p2", failing).promise).rejects.toThrow("not found");
    expect(failures).toBe(1);
    await expect(acquire("p2", failing).promise).rejects.toThrow("not found");
    expect(failures).toBe(2);
  });

  it("aborts a preloaded call no view adopted within ten seconds", () => {
    vi.useFakeTimers();
    try {
      let signal: AbortSignal | undefined;
      preload("p3", (s) => {
        signal = s;
        return new Promise<number>(() => {});
      });
      vi.advanceTimersByTime(9_000);
      expect(signal?.aborted).toBe(false);
      vi.advanceTimersByTime(1_000);
      expect(signal?.aborted).toBe(true);
      let calls = 0;
      acquire("p3", async () => ++calls).release();
      expect(calls).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

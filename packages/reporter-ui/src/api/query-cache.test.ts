import { describe, expect, it } from "vitest";
import { acquire } from "./query-cache.ts";

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
});

import { createManualClock, flush } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { exponentialBackoff } from "../informer/backoff.js";
import { createRecoveryProbe } from "./recovery.js";

describe("recovery probe", () => {
  it("probes while someone waits and releases every waiter at the first answer", async () => {
    const clock = createManualClock(1_000_000);
    let up = false;
    let probes = 0;
    const recovery = createRecoveryProbe({
      probe: async () => {
        probes++;
        return up;
      },
      clock,
      intervalMs: 1000,
    });
    const released: boolean[] = [];
    void recovery.wait().then((r) => released.push(r));
    void recovery.wait().then((r) => released.push(r));
    await clock.settle(3000);
    expect(probes).toBe(3); // one probe per interval for both waiters, not one each
    expect(released).toEqual([]);
    up = true;
    await clock.settle(1000);
    await flush();
    expect(released).toEqual([true, true]);
    await clock.settle(5000);
    expect(probes).toBe(4); // nobody waits: no more probes
  });

  it("lets a waiter go when its signal aborts", async () => {
    const clock = createManualClock(1_000_000);
    const recovery = createRecoveryProbe({ probe: async () => false, clock, intervalMs: 1000 });
    const abort = new AbortController();
    const waiting = recovery.wait(abort.signal);
    abort.abort();
    expect(await waiting).toBe(false);
    expect(await recovery.wait(abort.signal)).toBe(false);
  });
});

describe("reconnect backoff", () => {
  it("doubles from 800 ms and never exceeds 30 s, jitter included", () => {
    const delay = exponentialBackoff({ random: () => 0.999 });
    expect(delay(1)).toBe(Math.round(800 * 1.4995));
    for (let attempt = 1; attempt < 40; attempt++) expect(delay(attempt)).toBeLessThanOrEqual(30_000);
    expect(exponentialBackoff({ random: () => 0 })(10)).toBe(30_000);
  });
});

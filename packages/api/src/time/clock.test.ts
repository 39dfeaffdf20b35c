import { describe, expect, it } from "vitest";
import { createManualClock, createSystemClock, sleep } from "./clock.js";

describe("createManualClock", () => {
  it("fires due callbacks in time order, each seeing its own time, and skips cancelled ones", () => {
    const clock = createManualClock(1000);
    const seen: string[] = [];
    clock.after(300, () => seen.push(`b@${clock.now()}`));
    clock.after(100, () => {
      seen.push(`a@${clock.now()}`);
      clock.after(50, () => seen.push(`a2@${clock.now()}`));
    });
    const cancel = clock.after(200, () => seen.push("cancelled"));
    cancel();
    expect(clock.pending()).toBe(2);
    clock.advance(250);
    expect(seen).toEqual(["a@1100", "a2@1150"]);
    expect(clock.now()).toBe(1250);
    clock.set(2000);
    expect(seen).toEqual(["a@1100", "a2@1150", "b@1300"]);
    expect(clock.pending()).toBe(0);
    clock.set(1500);
    expect(clock.now()).toBe(2000);
  });

  it("settle lets awaited work between timers run", async () => {
    const clock = createManualClock(0);
    const steps: number[] = [];
    const loop = async (): Promise<void> => {
      for (let i = 0; i < 3; i++) {
        await sleep(clock, 10);
        steps.push(clock.now());
      }
    };
    const done = loop();
    await clock.settle(30);
    await done;
    expect(steps).toEqual([10, 20, 30]);
  });
});

describe("sleep", () => {
  it("resolves false when aborted, and at once for an aborted signal", async () => {
    const clock = createManualClock(0);
    const controller = new AbortController();
    const waiting = sleep(clock, 1000, controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBe(false);
    expect(clock.pending()).toBe(0);
    await expect(sleep(clock, 1000, controller.signal)).resolves.toBe(false);
  });

  it("waits on the system clock", async () => {
    const clock = createSystemClock({ unref: true });
    const start = clock.now();
    await expect(sleep(clock, 20)).resolves.toBe(true);
    expect(clock.now() - start).toBeGreaterThanOrEqual(15);
  });
});

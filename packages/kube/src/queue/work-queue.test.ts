import { createManualClock, flush } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { bucketRateLimiter, exponentialRateLimiter } from "./rate-limiters.js";
import { createWorkQueue, type QueueEvent, type WorkQueueOptions } from "./work-queue.js";

const deferred = () => {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

const setup = (extra: Partial<WorkQueueOptions<string>> = {}) => {
  const clock = createManualClock(1_000_000);
  const events: Array<[string, QueueEvent<string>]> = [];
  const queue = createWorkQueue<string>({
    name: "test-controller",
    clock,
    rateLimiter: exponentialRateLimiter({ baseMs: 5, maxMs: 1_000_000 }),
    onReconcile: (e) => events.push(["reconcile", e]),
    onRequeue: (e) => events.push(["requeue", e]),
    onDrop: (e) => events.push(["drop", e]),
    ...extra,
  });
  return { clock, queue, events };
};

describe("work queue", () => {
  it("queues a key once however often it is added, in FIFO order", async () => {
    const { queue } = setup();
    for (const key of ["a", "b", "a", "c", "b", "a"]) queue.add(key);
    expect(queue.len()).toBe(3);
    const seen: string[] = [];
    const running = queue.process(1, async (key) => {
      seen.push(key);
    });
    await flush();
    await queue.shutdown();
    await running;
    expect(seen).toEqual(["a", "b", "c"]);
  });

  it("never hands one key to two workers; a key added while in flight runs again afterwards", async () => {
    const { queue } = setup();
    const gate = deferred();
    const active = new Set<string>();
    let overlap = false;
    const runs: string[] = [];
    const running = queue.process(4, async (key) => {
      if (active.has(key)) overlap = true;
      active.add(key);
      runs.push(key);
      if (runs.length === 1) await gate.promise;
      active.delete(key);
    });
    queue.add("x");
    await flush();
    expect(runs).toEqual(["x"]);
    queue.add("x");
    queue.add("x");
    queue.add("y");
    await flush();
    expect(runs).toEqual(["x", "y"]); // the second "x" waits for the first
    expect(queue.len()).toBe(0);
    gate.resolve();
    await flush();
    await flush();
    expect(runs).toEqual(["x", "y", "x"]);
    expect(overlap).toBe(false);
    await queue.shutdown();
    await running;
  });

  it("retries a failing key with exponential delays, then drops it after maxRetries", async () => {
    const { clock, queue, events } = setup({ maxRetries: 3 });
    const attempts: Array<{ at: number; retries: number }> = [];
    const start = clock.now();
    void queue.process(1, async (_key, { retries }) => {
      attempts.push({ at: clock.now() - start, retries });
      throw new Error("boom");
    });
    queue.add("k");
    await clock.settle(1000);
    expect(attempts).toEqual([
      { at: 0, retries: 0 },
      { at: 5, retries: 1 },
      { at: 15, retries: 2 },
      { at: 35, retries: 3 },
    ]);
    const kinds = events.map(([kind]) => kind);
    expect(kinds).toEqual([
      "reconcile",
      "requeue",
      "reconcile",
      "requeue",
      "reconcile",
      "requeue",
      "reconcile",
      "drop",
    ]);
    const drop = events.at(-1)?.[1];
    expect(drop).toMatchObject({ controller: "test-controller", key: "k", retries: 4 });
    expect(drop?.error).toEqual(new Error("boom"));
    expect(queue.retries("k")).toBe(0);
    await queue.shutdown();
  });

  it("treats a returned { error } like a throw and forgets the key after a success", async () => {
    const { clock, queue, events } = setup();
    let calls = 0;
    void queue.process(1, async () => {
      calls++;
      return calls < 3 ? { error: "not yet" } : undefined;
    });
    queue.add("k");
    await clock.settle(100);
    expect(calls).toBe(3);
    expect(queue.retries("k")).toBe(0);
    expect(events.filter(([kind]) => kind === "requeue")).toHaveLength(2);
    // a later failure starts again from the base delay
    queue.add("k");
    await clock.settle(0);
    expect(calls).toBe(4);
    await queue.shutdown();
  });

  it("requeues after a delay on request, without counting a failure", async () => {
    const { clock, queue, events } = setup();
    const runs: number[] = [];
    const start = clock.now();
    void queue.process(1, async () => {
      runs.push(clock.now() - start);
      return runs.length < 3 ? { requeueAfterMs: 1000 } : undefined;
    });
    queue.add("k");
    await clock.settle(5000);
    expect(runs).toEqual([0, 1000, 2000]);
    expect(events.filter(([kind]) => kind !== "reconcile")).toEqual([]);
    await queue.shutdown();
  });

  it("addAfter keeps the earliest of several delays and de-duplicates with queued keys", async () => {
    const { clock, queue } = setup();
    const runs: Array<[string, number]> = [];
    const start = clock.now();
    void queue.process(1, async (key) => {
      runs.push([key, clock.now() - start]);
    });
    queue.addAfter("a", 500);
    queue.addAfter("a", 100);
    queue.addAfter("a", 300);
    queue.addAfter("b", 0);
    await clock.settle(1000);
    expect(runs).toEqual([
      ["b", 0],
      ["a", 100],
    ]);
    await queue.shutdown();
  });

  it("shutdown drains queued keys, ignores new ones and cancels delayed ones", async () => {
    const { clock, queue } = setup();
    const gate = deferred();
    const seen: string[] = [];
    const running = queue.process(1, async (key) => {
      seen.push(key);
      if (key === "a") await gate.promise;
    });
    queue.add("a");
    queue.add("b");
    queue.add("c");
    queue.addAfter("late", 10);
    await flush();
    const stopped = queue.shutdown();
    expect(queue.isShuttingDown()).toBe(true);
    queue.add("d");
    queue.addRateLimited("e");
    let done = false;
    void stopped.then(() => {
      done = true;
    });
    await flush();
    expect(done).toBe(false);
    gate.resolve();
    await stopped;
    await running;
    await clock.settle(100);
    expect(seen).toEqual(["a", "b", "c"]);
    expect(clock.pending()).toBe(0);
  });

  it("shutdown without drain waits for the keys in flight only and aborts their signal", async () => {
    const { queue } = setup();
    const seen: string[] = [];
    let aborted = false;
    const running = queue.process(1, async (key, { signal }) => {
      seen.push(key);
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
      aborted = signal.aborted;
    });
    queue.add("a");
    queue.add("b");
    await flush();
    await queue.shutdown({ drain: false });
    await running;
    expect(seen).toEqual(["a"]);
    expect(aborted).toBe(true);
  });

  it("does not requeue failures that happen during shutdown", async () => {
    const { queue, events } = setup();
    const gate = deferred();
    void queue.process(1, async () => {
      await gate.promise;
      throw new Error("late");
    });
    queue.add("a");
    await flush();
    const stopped = queue.shutdown();
    gate.resolve();
    await stopped;
    expect(events.map(([kind]) => kind)).toEqual(["reconcile"]);
  });

  it("spreads work over several workers", async () => {
    const { queue } = setup();
    const gate = deferred();
    let concurrent = 0;
    let peak = 0;
    const running = queue.process(3, async () => {
      concurrent++;
      peak = Math.max(peak, concurrent);
      await gate.promise;
      concurrent--;
    });
    for (const key of ["a", "b", "c", "d", "e"]) queue.add(key);
    await flush();
    expect(peak).toBe(3);
    gate.resolve();
    await queue.shutdown();
    await running;
  });
});

describe("rate limiters", () => {
  it("exponential: 5 ms doubling per failure, capped, reset by forget", () => {
    const limiter = exponentialRateLimiter<string>({ baseMs: 5, maxMs: 1000 });
    const delays = Array.from({ length: 10 }, () => limiter.when("k"));
    expect(delays).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
    expect(limiter.when("other")).toBe(5);
    limiter.forget("k");
    expect(limiter.when("k")).toBe(5);
  });

  it("default exponential goes up to 1000 s", () => {
    const limiter = exponentialRateLimiter<string>();
    let last = 0;
    for (let i = 0; i < 40; i++) last = limiter.when("k");
    expect(last).toBe(1_000_000);
  });

  it("bucket: burst at once, then one token per 1/qps, refilled with time", async () => {
    const clock = createManualClock(1_000_000);
    const limiter = bucketRateLimiter<string>({ qps: 10, burst: 2, clock });
    expect([limiter.when("a"), limiter.when("b"), limiter.when("c"), limiter.when("d")]).toEqual([
      0, 0, 100, 200,
    ]);
    await clock.settle(1000);
    expect(limiter.when("e")).toBe(0);
  });

  it("the queue's overall bucket spaces out retries of many keys", async () => {
    const clock = createManualClock(1_000_000);
    const queue = createWorkQueue<string>({
      name: "bucket",
      clock,
      rateLimiter: bucketRateLimiter({ qps: 1, burst: 1, clock }),
    });
    for (const key of ["a", "b", "c"]) queue.addRateLimited(key);
    const seen: Array<[string, number]> = [];
    const start = clock.now();
    void queue.process(3, async (key) => {
      seen.push([key, clock.now() - start]);
    });
    await clock.settle(5000);
    expect(seen).toEqual([
      ["a", 0],
      ["b", 1000],
      ["c", 2000],
    ]);
    await queue.shutdown();
  });
});

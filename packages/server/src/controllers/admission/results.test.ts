import { describe, expect, it } from "vitest";
import { type AdmissionResult, createBoundedResultQueue } from "./results.js";

const result = (uid: string): AdmissionResult => ({
  uid,
  timestamp: 0,
  operation: "CREATE",
  resource: { apiVersion: "v1", kind: "Pod", namespace: "default", name: uid, uid: "" },
  responses: [],
});

describe("bounded result queue", () => {
  it("keeps results in order and drains them", () => {
    const queue = createBoundedResultQueue({ capacity: 3 });
    queue.offer(result("a"));
    queue.offer(result("b"));
    expect(queue.size).toBe(2);
    expect(queue.drain(1).map((r) => r.uid)).toEqual(["a"]);
    expect(queue.drain().map((r) => r.uid)).toEqual(["b"]);
    expect(queue.size).toBe(0);
  });

  it("drops the oldest beyond its capacity and counts every drop", () => {
    const drops: number[] = [];
    const queue = createBoundedResultQueue({ capacity: 2, onDrop: (n) => drops.push(n) });
    for (const uid of ["a", "b", "c", "d"]) queue.offer(result(uid));
    expect(queue.size).toBe(2);
    expect(queue.dropped).toBe(2);
    expect(drops).toEqual([1, 1]);
    expect(queue.drain().map((r) => r.uid)).toEqual(["c", "d"]);
  });

  it("stays bounded under a flood (memory does not follow the producer)", () => {
    const queue = createBoundedResultQueue({ capacity: 100 });
    for (let i = 0; i < 100_000; i++) queue.offer(result(String(i)));
    expect(queue.size).toBe(100);
    expect(queue.dropped).toBe(99_900);
    expect(queue.drain()[0]?.uid).toBe("99900");
  });

  it("notifies listeners without letting their failures reach the producer", () => {
    const queue = createBoundedResultQueue();
    let calls = 0;
    const stop = queue.onAvailable(() => {
      calls++;
      throw new Error("consumer bug");
    });
    expect(() => queue.offer(result("a"))).not.toThrow();
    stop();
    queue.offer(result("b"));
    expect(calls).toBe(1);
  });
});

import { platform } from "node:os";
import { describe, expect, it } from "vitest";
import {
  lowerPlatformThreads,
  PLATFORM_THREAD_NAME,
  procThreadTable,
  type ThreadTable,
} from "./platform-threads.js";

function fakeTable(threads: Record<number, { name: string; nice: number; locked?: boolean }>): ThreadTable {
  return {
    ids: () => Object.keys(threads).map(Number),
    name: (id) => threads[id]?.name,
    priority: (id) => threads[id]?.nice ?? 0,
    setPriority: (id, nice) => {
      const t = threads[id];
      if (t === undefined || t.locked) throw new Error("EPERM");
      t.nice = nice;
    },
  };
}

describe("lowerPlatformThreads", () => {
  it("lowers V8's platform threads to the worker's priority and leaves the other threads alone", () => {
    const threads = {
      1: { name: "MainThread", nice: 0 },
      2: { name: PLATFORM_THREAD_NAME, nice: 0 },
      3: { name: PLATFORM_THREAD_NAME, nice: 0 },
      4: { name: "libuv-worker", nice: 0 },
      5: { name: "WorkerThread", nice: 5 },
    };
    expect(lowerPlatformThreads(5, fakeTable(threads))).toBe(2);
    expect(Object.values(threads).map((t) => t.nice)).toEqual([0, 5, 5, 0, 5]);
  });

  it("never raises a thread's priority, and skips threads it may not change", () => {
    const threads = {
      2: { name: PLATFORM_THREAD_NAME, nice: 10 },
      3: { name: PLATFORM_THREAD_NAME, nice: 0, locked: true },
      4: { name: PLATFORM_THREAD_NAME, nice: 1 },
    };
    expect(lowerPlatformThreads(5, fakeTable(threads))).toBe(1);
    expect(Object.values(threads).map((t) => t.nice)).toEqual([10, 0, 5]);
  });

  it.runIf(platform() === "linux")("finds V8's platform threads in this process by their name", () => {
    // If Node renames its platform threads, the workers would silently stop lowering them.
    const table = procThreadTable();
    const names = table.ids().map((id) => table.name(id));
    expect(names).toContain(PLATFORM_THREAD_NAME);
  });
});

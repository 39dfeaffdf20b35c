import { existsSync } from "node:fs";
import { platform } from "node:os";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { currentThreadId, type RunCommand, scheduleIdle } from "./idle-scheduling.js";

/** Linux's number of the SCHED_IDLE policy (`policy`, field 41 of /proc/<pid>/task/<tid>/stat). */
const SCHED_IDLE = 5;

describe("scheduleIdle", () => {
  it("asks chrt for SCHED_IDLE on the thread, Debian's path first", () => {
    const calls: string[] = [];
    const run: RunCommand = (file, args) => void calls.push(`${file} ${args.join(" ")}`);
    expect(scheduleIdle(4242, run)).toBe(true);
    expect(calls).toEqual(["/usr/bin/chrt --idle --pid 0 4242"]);
  });

  it("tries chrt on PATH when Debian's path has none, and says false when neither runs", () => {
    const calls: string[] = [];
    const missing: RunCommand = (file) => {
      calls.push(file);
      throw new Error(`spawnSync ${file} ENOENT`);
    };
    expect(scheduleIdle(4242, missing)).toBe(false);
    expect(calls).toEqual(["/usr/bin/chrt", "chrt"]);
    const onPath: RunCommand = (file) => {
      if (file.startsWith("/")) throw new Error("ENOENT");
    };
    expect(scheduleIdle(4242, onPath)).toBe(true);
  });
});

describe("currentThreadId", () => {
  it("reads the thread's id from /proc/thread-self, and is undefined without it", () => {
    expect(currentThreadId(() => "1234/task/1240")).toBe(1240);
    expect(
      currentThreadId(() => {
        throw new Error("ENOENT");
      }),
    ).toBeUndefined();
    expect(currentThreadId(() => "garbage")).toBeUndefined();
  });
});

// A real thread under a real chrt: a worker thread of its own, so the test's thread keeps its policy.
const canSchedule = platform() === "linux" && existsSync("/usr/bin/chrt");
describe.skipIf(!canSchedule)("on Linux with util-linux's chrt", () => {
  it("puts the calling worker thread, and only it, under SCHED_IDLE", async () => {
    const module = new URL("./idle-scheduling.ts", import.meta.url).href;
    const code = `
      const { parentPort } = require("node:worker_threads");
      const { readFileSync } = require("node:fs");
      const policy = (tid) => Number(readFileSync("/proc/self/task/" + tid + "/stat", "utf8").split(") ")[1].split(" ")[38]);
      import(${JSON.stringify(module)}).then(({ currentThreadId, scheduleIdle }) => {
        const tid = currentThreadId();
        const before = policy(tid);
        const done = scheduleIdle(tid);
        parentPort.postMessage({ tid, before, done, after: policy(tid), main: policy(process.pid) });
      });
    `;
    const worker = new Worker(code, { eval: true });
    const seen = await new Promise<{
      tid: number;
      before: number;
      done: boolean;
      after: number;
      main: number;
    }>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    expect(seen.tid).not.toBe(process.pid);
    expect(seen.before).not.toBe(SCHED_IDLE);
    expect(seen.done).toBe(true);
    expect(seen.after).toBe(SCHED_IDLE);
    expect(seen.main).not.toBe(SCHED_IDLE);
  });
});

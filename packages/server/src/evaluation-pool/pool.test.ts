import { existsSync } from "node:fs";
import { platform } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../clock.js";
import type { StepJob } from "../controllers/admission/step.js";
import { recordingLogger } from "../testing/fixtures.js";
import { createEvaluationPool, type EvaluationPool } from "./pool.js";
import { SOURCE_WORKER_EXEC_ARGV, SOURCE_WORKER_URL } from "./testing/index.js";

const STUCK_WORKER = new URL("./testing/stuck-worker.ts", import.meta.url);

function job(remainingMs: number): StepJob {
  const object = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "a" } };
  return {
    step: "validate",
    policies: [],
    request: { resource: object },
    review: {
      request: {
        uid: "u",
        kind: { group: "", version: "v1", kind: "Pod" },
        operation: "CREATE",
      } as StepJob["review"]["request"],
      object,
      oldObject: undefined,
    },
    subject: { kind: "Pod", namespace: "a", name: "p", object },
    remainingMs,
    deadlineMs: remainingMs,
  };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

describe("createEvaluationPool", { timeout: 60_000 }, () => {
  let pool: EvaluationPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it("replaces a worker that overruns its job's deadline and abandons the job", async () => {
    const logger = recordingLogger();
    const p = createEvaluationPool({
      size: 1,
      clock: systemClock(),
      logger,
      settings: { exceptionNamespaces: [] },
      prestart: 1,
      graceMs: 50,
      workerUrl: STUCK_WORKER,
      execArgv: SOURCE_WORKER_EXEC_ARGV,
    });
    pool = p;
    await until(() => p.stats().ready === 1);
    const stuck = p.evaluate(job(200), "a");
    // Queued behind the stuck job, in the same namespace: its deadline passes while it waits.
    const waiting = p.evaluate(job(100), "a");
    await expect(waiting).rejects.toThrow("the deadline passed while the request waited for a worker");
    await expect(stuck).rejects.toThrow("the evaluation overran its deadline; its worker was replaced");
    expect(p.stats()).toMatchObject({ workers: 1, running: 0, queued: 0, replaced: 1, abandoned: 2 });
    expect(logger.lines.map((l) => l.message)).toContain(
      "evaluation worker overran the deadline, replacing it",
    );
    // The replacement gets ready and takes jobs again.
    await until(() => p.stats().ready === 1);
  });

  it("starts a worker only when a job needs one", async () => {
    const p = createEvaluationPool({
      size: 2,
      clock: systemClock(),
      logger: recordingLogger(),
      settings: { exceptionNamespaces: [] },
      workerUrl: SOURCE_WORKER_URL,
      execArgv: SOURCE_WORKER_EXEC_ARGV,
    });
    pool = p;
    expect(p.stats().workers).toBe(0);
    // The job waits for the worker it started (no policies: allowed).
    const result = await p.evaluate(job(30_000), "a");
    expect(result.outcome.allowed).toBe(true);
    // While the first worker was busy, a spare started (one at a time, up to the size).
    expect(p.stats()).toMatchObject({ workers: 2, started: 2, running: 0, abandoned: 0 });
  });

  it("says once how its workers are scheduled: SCHED_IDLE when asked and chrt can set it", async () => {
    const logger = recordingLogger();
    const p = createEvaluationPool({
      size: 1,
      clock: systemClock(),
      logger,
      settings: { exceptionNamespaces: [], scheduling: "idle" },
      workerUrl: SOURCE_WORKER_URL,
      execArgv: SOURCE_WORKER_EXEC_ARGV,
    });
    pool = p;
    expect((await p.evaluate(job(30_000), "a")).outcome.allowed).toBe(true);
    const said = logger.lines.filter((line) => /evaluation workers/.test(line.message));
    expect(said).toHaveLength(1);
    if (platform() === "linux" && existsSync("/usr/bin/chrt"))
      expect(said[0]).toMatchObject({ level: "info", fields: { scheduling: "idle" } });
    else expect(said[0]).toMatchObject({ level: "warn" });
  });

  it("stops a worker that stayed idle", async () => {
    const p = createEvaluationPool({
      size: 2,
      clock: systemClock(),
      logger: recordingLogger(),
      settings: { exceptionNamespaces: [] },
      idleMs: 200,
      workerUrl: SOURCE_WORKER_URL,
      execArgv: SOURCE_WORKER_EXEC_ARGV,
    });
    pool = p;
    await p.evaluate(job(30_000), "a");
    expect(p.stats().workers).toBeGreaterThan(0);
    const started = p.stats().started;
    await until(() => p.stats().workers === 0);
    // Stopped workers stay counted as started.
    expect(p.stats()).toMatchObject({ replaced: 0, abandoned: 0, started });
  });

  it("answers at once when no worker can start", async () => {
    const p = createEvaluationPool({
      size: 1,
      clock: systemClock(),
      logger: recordingLogger(),
      settings: { exceptionNamespaces: [] },
      workerUrl: new URL("./testing/no-such-worker.js", import.meta.url),
    });
    pool = p;
    await until(() => p.stats().workers === 0);
    await expect(p.evaluate(job(5000), "a")).rejects.toThrow("no evaluation worker runs");
  });
});

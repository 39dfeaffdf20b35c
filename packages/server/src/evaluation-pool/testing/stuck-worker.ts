/**
 * Test-only evaluation worker that gets ready and then never answers a job (it spins), as a worker
 * stuck in an evaluation would: the pool must replace it at the job's deadline.
 */
import { parentPort } from "node:worker_threads";
import type { FromWorker } from "../protocol.js";

parentPort?.on("message", (message: { type: string }) => {
  if (message.type === "ping")
    parentPort?.postMessage({ type: "ready", scheduling: "unchanged" } satisfies FromWorker);
  if (message.type === "evaluate") for (;;);
});

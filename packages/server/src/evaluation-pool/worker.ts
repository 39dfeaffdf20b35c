/**
 * An evaluation worker (a `node:worker_threads` thread of the admission server): its own engine and
 * policy cache, kept in step with the main thread's by the policy messages (each policy compiled once
 * per change, here), and step jobs evaluated against them. Nothing here touches the network, metrics
 * or reports.
 */
import { getPriority, setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { createEngine } from "@kyverno-ts/engine";
import { runJob } from "../admission/step.js";
import { engineClock, systemClock } from "../clock.js";
import { createPolicyCache } from "../policycache/policy-cache.js";
import type { FromWorker, ToWorker, WorkerSettings } from "./protocol.js";

/** How much lower than the serving thread's an evaluation worker's priority is (nice steps). */
const WORKER_NICENESS = 5;

const port = parentPort;
if (port === null) throw new Error("the evaluation worker must run in a worker thread");
const settings = workerData as WorkerSettings;
// On Linux a thread has its own nice value: evaluation yields the CPU to the thread that accepts
// connections and answers probes when the machine is short of it. Without the permission, as it is.
try {
  setPriority(Math.min(19, getPriority() + WORKER_NICENESS));
} catch {
  // not permitted (or not Linux): same priority as the serving thread
}
const clock = systemClock();
const engine = createEngine({
  clock: engineClock(clock),
  exceptionNamespaces: settings.exceptionNamespaces,
  ...(settings.limits ? { limits: settings.limits } : {}),
});
const cache = createPolicyCache({ engine });

port.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "setPolicy":
      cache.set(message.policy);
      return;
    case "deletePolicy":
      cache.delete(message.key);
      return;
    case "setExceptions":
      cache.setExceptions(message.exceptions);
      return;
    case "ping":
      port.postMessage({ type: "ready" } satisfies FromWorker);
      return;
    case "evaluate": {
      let reply: FromWorker;
      try {
        reply = { type: "result", id: message.id, result: runJob(engine, cache, clock, message.job) };
      } catch (error) {
        reply = {
          type: "failed",
          id: message.id,
          message: error instanceof Error ? error.message : String(error),
        };
      }
      port.postMessage(reply);
      return;
    }
  }
});

/**
 * An evaluation worker (a `node:worker_threads` thread of the admission server): its own engine and
 * policy cache, kept in step with the main thread's by the policy messages (each policy compiled once
 * per change, here), and step jobs evaluated against them. Nothing here touches the network, metrics
 * or reports.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createEngine } from "@kyverno-ts/engine";
import { runJob } from "../admission/step.js";
import { engineClock, systemClock } from "../clock.js";
import { createPolicyCache } from "../policycache/policy-cache.js";
import type { FromWorker, ToWorker, WorkerSettings } from "./protocol.js";

const port = parentPort;
if (port === null) throw new Error("the evaluation worker must run in a worker thread");
const settings = workerData as WorkerSettings;
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

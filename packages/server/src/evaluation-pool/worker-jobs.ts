/**
 * The job loop of an evaluation worker (started by `worker.ts` once it has lowered its priority): its
 * own engine and policy cache, kept in step with the main thread's by the policy messages (each
 * policy compiled once per change, here), and step jobs evaluated against them. Nothing here touches
 * the network, metrics or reports.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createCelEngine, createEngine } from "@kyverno-ts/engine";
import { systemClock } from "../clock.js";
import { runCelJob } from "../controllers/admission/cel-step.js";
import { fillReviewShells, shellReview } from "../controllers/admission/review-shell.js";
import { runJob } from "../controllers/admission/step.js";
import { createCelPolicyStore } from "../policycache/cel-policy-store.js";
import { createPolicyCache } from "../policycache/policy-cache.js";
import type { WorkerScheduling } from "./idle-scheduling.js";
import type { FromWorker, ToWorker, WorkerSettings } from "./protocol.js";

/** Answers the main thread's messages in this worker; `scheduling` is reported in `ready`. */
export function startJobLoop(scheduling: WorkerScheduling): void {
  const port = parentPort;
  if (port === null) throw new Error("the evaluation worker must run in a worker thread");
  const settings = workerData as WorkerSettings;
  const clock = systemClock();
  const engine = createEngine({
    clock: clock,
    exceptionNamespaces: settings.exceptionNamespaces,
    ...(settings.limits ? { limits: settings.limits } : {}),
  });
  const forceFailurePolicyIgnore = settings.forceFailurePolicyIgnore === true;
  const cache = createPolicyCache({ engine, forceFailurePolicyIgnore });
  // The CEL engine reads namespace labels from the request (the main thread looks them up).
  const celEngine = createCelEngine({
    clock: clock,
    ...(settings.limits?.celCost !== undefined ? { costBudget: settings.limits.celCost } : {}),
  });
  const celStore = createCelPolicyStore({ engine: celEngine, forceFailurePolicyIgnore });

  function reply(id: number, evaluate: () => FromWorker): void {
    let message: FromWorker;
    try {
      message = evaluate();
    } catch (error) {
      message = { type: "failed", id, message: error instanceof Error ? error.message : String(error) };
    }
    port?.postMessage(message);
  }

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
        port.postMessage({ type: "ready", scheduling } satisfies FromWorker);
        return;
      case "setCelPolicy":
        celStore.set(message.policy);
        return;
      case "deleteCelPolicy":
        celStore.delete(message.key);
        return;
      case "setCelException":
        celStore.setException(message.exception);
        return;
      case "deleteCelException":
        celStore.deleteException(message.key);
        return;
      case "evaluate":
        reply(message.id, () => {
          if (message.job.body !== undefined) fillReviewShells(message.job.body);
          const { stopped: _stopped, ...result } = runJob(engine, cache, clock, message.job);
          return { type: "result", id: message.id, result };
        });
        return;
      case "evaluateCel":
        reply(message.id, () => {
          if (message.job.body !== undefined) fillReviewShells(message.job.body);
          return {
            type: "celResult",
            id: message.id,
            result: runCelJob(celEngine, celStore, clock, message.job),
          };
        });
        return;
      case "parseReview":
        reply(message.id, () => ({ type: "parsed", id: message.id, result: shellReview(message.job.text) }));
        return;
    }
  });
}

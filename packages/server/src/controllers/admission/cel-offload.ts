/**
 * Where a CEL request's ValidatingPolicies or MutatingPolicies are evaluated: on the serving thread
 * first, within the inline budget (see inline-budget.ts, shared with the classic handler: the CEL
 * engine stops at that deadline, an evaluation that finished is used, a policy is judged slow by this
 * thread's CPU time), and in the evaluator (the evaluation pool's workers) otherwise.
 */
import type { CelEngine } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import {
  type CelEvaluation,
  type CelEvaluator,
  type CelJob,
  celErrorResponse,
  evaluateCelPolicies,
} from "./cel-step.js";
import type { InlineAttempt, InlineBudget } from "./inline-budget.js";

/** A request's job with the policies it names, as this thread holds them. */
export interface PreparedCelJob {
  job: CelJob;
  policies: readonly CachedCelPolicy[];
}

/** Options of `createCelOffload`. */
export interface CelOffloadOptions {
  engine: CelEngine;
  clock: ServerClock;
  logger: Logger;
  /** The inline budget (0 ms: never inline) and the policies found slow in it. */
  inline: InlineBudget;
}

/** See `createCelOffload`. */
export interface CelOffload {
  /** The evaluations when they finished inline; undefined when the evaluator must do it. */
  inline(prepared: PreparedCelJob): CelEvaluation[] | undefined;
  /** Evaluates in the evaluator; a job it could not finish in time answers `error` for each policy. */
  offThread(evaluator: CelEvaluator, prepared: PreparedCelJob): Promise<CelEvaluation[]>;
}

/**
 * A CEL attempt was cut when a policy ended past the inline deadline with an `error` rule: the CEL
 * engine stops an evaluation at the deadline as `error` (its loops still finish, errors being values).
 */
function judged(evaluations: CelEvaluation[], budgetMs: number): InlineAttempt<CelEvaluation[]> {
  let endedMs = 0;
  let cut = false;
  const policyMs = new Map<string, number>();
  for (const e of evaluations) {
    const ms = e.seconds * 1000;
    endedMs += ms;
    policyMs.set(e.key, ms);
    if (endedMs > budgetMs && e.response.rules.some((r) => r.status === "error")) cut = true;
  }
  return { result: evaluations, cut, policyMs };
}

/** Creates the offload decision of one CEL handler. */
export function createCelOffload(options: CelOffloadOptions): CelOffload {
  const { engine, clock, logger, inline } = options;
  return {
    inline(prepared) {
      const keys = prepared.policies.map((p) => p.key);
      return inline.attempt(keys, prepared.job.remainingMs, (budgetMs) => {
        const request = { ...prepared.job.request, deadline: clock.now() + budgetMs };
        const evaluations = evaluateCelPolicies(engine, clock, prepared.job, prepared.policies, request);
        return judged(evaluations, budgetMs);
      });
    },

    async offThread(evaluator, { job, policies }) {
      try {
        return (await evaluator.evaluateCel(job, job.subject.namespace)).evaluations;
      } catch (error) {
        logger.warn({ policies: job.policies, reason: String(error) }, "CEL admission evaluation abandoned");
        const message = `policy evaluation failed: ${error instanceof Error ? error.message : String(error)}`;
        return policies.map((p) => ({
          key: p.key,
          response: celErrorResponse(job.type, p, job.subject, message, clock.now()),
          seconds: 0,
        }));
      }
    },
  };
}

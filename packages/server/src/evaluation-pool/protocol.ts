/**
 * The messages between the admission server's main thread and its evaluation workers. The worker
 * boundary is narrow: policy changes go in (each worker compiles them once), a step job goes in and
 * its result comes out. Metrics, events and reports stay on the main thread.
 */
import type { CelPolicy, CelPolicyException, Policy, PolicyException } from "@kyverno-ts/api";
import type { EvaluationLimits } from "@kyverno-ts/engine";
import type { CelJob, CelJobResult } from "../controllers/admission/cel-step.js";
import type { ReviewParse } from "../controllers/admission/review.js";
import type { StepJob, StepResult } from "../controllers/admission/step.js";
import type { RequestedScheduling, WorkerScheduling } from "./idle-scheduling.js";

/** A large review's text to parse into its shell (see review-shell.ts); `policies` is empty. */
export interface ParseJob {
  text: string;
  remainingMs: number;
  policies: readonly string[];
}

/** What a worker is started with (`workerData`). */
export interface WorkerSettings {
  /** Namespaces PolicyExceptions are accepted from (`--exceptionNamespace`). */
  exceptionNamespaces: readonly string[];
  /** The engine's evaluation limits (defaults when absent). */
  limits?: Partial<EvaluationLimits>;
  /** `--forceFailurePolicyIgnore`: the workers' caches treat every policy as `Ignore`. */
  forceFailurePolicyIgnore?: boolean;
  /** How a worker yields the CPU to the serving thread (default `nice`; see idle-scheduling.ts). */
  scheduling?: RequestedScheduling;
}

/** Main thread → worker. */
export type ToWorker =
  | { type: "setPolicy"; policy: Policy }
  | { type: "deletePolicy"; key: string }
  | { type: "setExceptions"; exceptions: PolicyException[] }
  /** Answered with `ready` once everything sent before it is done (the start-up policies compiled). */
  | { type: "ping" }
  | { type: "evaluate"; id: number; job: StepJob }
  /** The CEL policies (ValidatingPolicy, MutatingPolicy…) and their CEL PolicyExceptions. */
  | { type: "setCelPolicy"; policy: CelPolicy }
  | { type: "deleteCelPolicy"; key: string }
  | { type: "setCelException"; exception: CelPolicyException }
  | { type: "deleteCelException"; key: string }
  | { type: "evaluateCel"; id: number; job: CelJob }
  | { type: "parseReview"; id: number; job: ParseJob };

/** Worker → main thread. */
export type FromWorker =
  /** Answers `ping`; `scheduling` is what the worker's thread got. */
  | { type: "ready"; scheduling: WorkerScheduling }
  | { type: "result"; id: number; result: StepResult }
  | { type: "celResult"; id: number; result: CelJobResult }
  | { type: "parsed"; id: number; result: ReviewParse }
  /** The step threw (a bug outside the engine): the request is answered per failure policy. */
  | { type: "failed"; id: number; message: string };

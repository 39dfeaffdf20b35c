/** The CEL admission handler's options and interface (see cel-handler.ts). */
import type { CelEngine, PolicyResponse } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { PolicyEvents } from "../../events/policy-events.js";
import type { Logger } from "../../logger.js";
import type { OffloadReason } from "../../metrics/recorder-types.js";
import type { CachedCelPolicy, CelPolicyStore } from "../../policycache/cel-policy-store.js";
import type { BackgroundSink } from "./background.js";
import type { CelOffload } from "./cel-offload.js";
import type { CelWebhookRoute } from "./cel-routes.js";
import type { CelEvaluator } from "./cel-step.js";
import type { KyvernoConfig } from "./filters.js";
import type { ResourceKindOf } from "./request.js";
import type { AdmissionResultSink } from "./results.js";
import type { AdmissionReviewResponse, HandlerReply, ParsedReview } from "./review.js";

/** Options of `createCelAdmissionHandler`. */
export interface CelAdmissionHandlerOptions {
  engine: CelEngine;
  store: CelPolicyStore;
  clock: ServerClock;
  logger: Logger;
  config: () => KyvernoConfig;
  /** Receives results of admitted, non-dry-run requests for reports. */
  sink?: AdmissionResultSink;
  namespaceLabels?: (namespace: string) => Record<string, string> | undefined;
  resourceKind?: ResourceKindOf;
  /** Receives the GeneratingPolicies' work of admitted requests (the UpdateRequest intake). */
  background?: BackgroundSink;
  /** Kubernetes Events of ValidatingPolicy and MutatingPolicy results (as the classic handler's). */
  events?: PolicyEvents;
  /**
   * Evaluates ValidatingPolicies and MutatingPolicies off this thread (the evaluation pool), so an
   * expensive one holds no other request or probe; inline when omitted. Used by `serveBody`.
   */
  evaluator?: CelEvaluator;
  /** With an evaluator: how long (ms) a request is first evaluated inline (default 5; 0: never). */
  inlineMs?: number;
  /** CPU time (ms) of the serving thread, for telling a slow policy from a busy machine (see inline-budget.ts). */
  threadCpuMs?: () => number;
  /** Called with the reason each time a request goes to the evaluator (`kyverno_admission_offloaded_total`). */
  onOffload?: (reason: OffloadReason) => void;
  /**
   * With an evaluator that parses reviews: validate bodies of at least this many characters are parsed
   * and evaluated in its workers, not here (default 32 Ki; see review-shell.ts).
   */
  largeReviewChars?: number;
  /** The request's deadline (ms) for work sent to the evaluator (default 10,000, the webhook timeout). */
  deadlineMs?: number;
  /** Records each policy evaluation (`kyverno_*_policy_execution_duration_seconds`). */
  onEvaluated?: (
    policy: CachedCelPolicy,
    response: PolicyResponse,
    seconds: number,
    review: ParsedReview,
  ) => void;
}

/** The handler; see `createCelAdmissionHandler`. */
export interface CelAdmissionHandler {
  /** Answers a raw body, evaluating on this thread. Never throws. */
  handleBody(route: CelWebhookRoute, body: string): HandlerReply;
  handleReview(route: CelWebhookRoute, review: ParsedReview): AdmissionReviewResponse;
  /**
   * Answers a raw body as the webhook server does: with an evaluator, a request that needs more than
   * `inlineMs` is evaluated there (off this event loop). Never rejects.
   */
  serveBody(
    route: CelWebhookRoute,
    body: string,
    options?: { receivedAt?: number },
  ): HandlerReply | Promise<HandlerReply>;
}

/** What the CEL handler's steps read: its options and what `createCelAdmissionHandler` derived from them. */
export interface CelHandlerDeps {
  readonly options: CelAdmissionHandlerOptions;
  readonly engine: CelEngine;
  readonly store: CelPolicyStore;
  readonly clock: ServerClock;
  readonly logger: Logger;
  /** The request's deadline (ms) for work sent to the evaluator. */
  readonly deadlineMs: number;
  /** Where the policies are evaluated: inline within the budget, or in the evaluator. */
  readonly offload: CelOffload;
}

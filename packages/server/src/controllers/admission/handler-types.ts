/** The admission handler's contract: its routes, options and surface (`createAdmissionHandler`). */
import type { Engine, UserInfo } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { PolicyEvents } from "../../events/policy-events.js";
import type { ScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import type { AdmissionMetrics } from "../../metrics/metrics.js";
import type { OffloadReason } from "../../metrics/recorder-types.js";
import type { FailurePolicy, PolicyCache } from "../../policycache/policy-cache.js";
import type { BackgroundSink } from "./background.js";
import type { KyvernoConfig } from "./filters.js";
import type { RequesterRoles, ResourceKindOf } from "./request.js";
import type { AdmissionResultSink } from "./results.js";
import type { AdmissionReviewResponse, HandlerReply, ParsedReview } from "./review.js";
import type { StepEvaluator } from "./step.js";

/** Which webhook a request came in on: `/validate/fail` is `{ type: "validate", failurePolicy: "Fail" }`. */
export interface WebhookRoute {
  type: "validate" | "mutate";
  /** Only policies with this failure policy are evaluated (upstream's split); all when undefined. */
  failurePolicy?: FailurePolicy;
}

/** Options of `createAdmissionHandler`. */
export interface AdmissionHandlerOptions {
  engine: Engine;
  policyCache: PolicyCache;
  clock: ServerClock;
  logger: Logger;
  metrics?: AdmissionMetrics;
  /** Kyverno's ConfigMap settings, or a getter returning the latest ones (an informer updates them). */
  config: KyvernoConfig | (() => KyvernoConfig);
  /** Receives results of admitted, non-dry-run requests for reports. */
  sink?: AdmissionResultSink;
  /**
   * Kubernetes Events of validate results (upstream's): a denial's policy Events, and for admitted,
   * non-dry-run requests other than DELETE the policy and resource Events. Must only enqueue.
   */
  events?: PolicyEvents;
  /** Labels of a namespace for `namespaceSelector` (from an informer cache); unknown → undefined. */
  namespaceLabels?: (namespace: string) => Record<string, string> | undefined;
  /** Roles and cluster roles of a requester (from RBAC informers). */
  resolveRoles?: (user: UserInfo) => RequesterRoles;
  /**
   * The kind of an addressed resource, for matching subresource requests (`deployments/scale` →
   * `Deployment/scale`); built-in kinds only when omitted.
   */
  resourceKind?: ResourceKindOf;
  /** The webhook timeout the API server uses (default 10 s): the deadline is set below it. */
  webhookTimeoutSeconds?: number;
  /** Overrides the per-request budget in milliseconds (default: the timeout minus min(1 s, 20 %)). */
  deadlineMs?: number;
  /**
   * Creates the loader of one request's external data (`configMap`, `apiCall` and `globalReference`
   * context entries), each fetch bounded by `timeoutMs` (the time left before the deadline). Without
   * it such entries stay unresolved and their rules end in `error`.
   */
  externalData?: (timeoutMs: number) => ScanContext;
  /**
   * Evaluates steps off this thread (the evaluation pool), so a slow evaluation holds no other request
   * or probe; inline when omitted. Requests reading external data are evaluated inline.
   */
  evaluator?: StepEvaluator;
  /**
   * With an evaluator: how long (ms) a request is first evaluated on this thread, which costs no
   * thread hop; one that needs longer is stopped there and evaluated by the evaluator (default 5;
   * 0 sends every request to the evaluator).
   */
  inlineMs?: number;
  /** CPU time (ms) of the serving thread, for telling a slow policy from a busy machine (see inline-budget.ts). */
  threadCpuMs?: () => number;
  /** Called with the reason each time a request goes to the evaluator (`kyverno_admission_offloaded_total`). */
  onOffload?: (reason: OffloadReason) => void;
  /**
   * With an evaluator that parses reviews: bodies of at least this many characters are parsed and
   * evaluated in its workers, not here (default 32 Ki; see review-shell.ts).
   */
  largeReviewChars?: number;
  /**
   * Receives the generate / mutate-existing work of admitted requests (UpdateRequests), computed off
   * the request path; without it such rules do nothing at admission.
   */
  background?: BackgroundSink;
}

/** Per-call options. */
export interface HandleOptions {
  /** Monotonic time the request arrived (time spent queued counts against the deadline). */
  receivedAt?: number;
}

/** The handler; see `createAdmissionHandler`. */
export interface AdmissionHandler {
  /**
   * Answers a raw request body (JSON text). Never throws or rejects. The answer is immediate unless a
   * selected policy reads external data (then a promise, settled within the deadline).
   */
  handleBody(
    route: WebhookRoute,
    body: string,
    options?: HandleOptions,
  ): HandlerReply | Promise<HandlerReply>;
  /** Answers a body that could not be read whole (too large): an AdmissionReview if `head` shows a uid. */
  rejectBody(route: WebhookRoute, head: string, message: string): HandlerReply;
  /** Answers an already parsed review, immediately or (external data) as a promise. Never throws or rejects. */
  handleReview(
    route: WebhookRoute,
    review: ParsedReview,
    options?: HandleOptions,
  ): AdmissionReviewResponse | Promise<AdmissionReviewResponse>;
  /** The per-request evaluation budget in milliseconds. */
  readonly deadlineMs: number;
}

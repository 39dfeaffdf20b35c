/**
 * The contract between the notifier and the notification targets: the result shape a target renders,
 * the `Target` interface, and the dependencies every target is built with.
 */
import type { Clock } from "@kyverno-ts/api";
import type { Logger } from "../logger.js";

/** Outcome of a policy rule for a resource, as in PolicyReport results. */
export type ResultStatus = "pass" | "fail" | "warn" | "error" | "skip";

/** Severity of a result, lowest first: info < low < medium < high < critical. */
export type Severity = "info" | "low" | "medium" | "high" | "critical";

/**
 * Policy Reporter's legacy priority, derived from severity and status (see `resultPriority`).
 * Still part of the shared JSON body and of the `priorities` filter.
 */
export type Priority = "debug" | "info" | "warning" | "error" | "critical";

/** The Kubernetes object a result is about. */
export interface ResourceRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
}

/**
 * One policy result as the targets see it. Self-contained: the reporter's model maps to it, the targets
 * import nothing else. `id` is the result ID (fnv-1a 64 as upstream, or the `resultID` property).
 */
export interface NotifiableResult {
  id: string;
  policy: string;
  rule?: string;
  result: ResultStatus;
  message: string;
  severity?: Severity;
  category?: string;
  /** The engine that produced it, e.g. `kyverno`. */
  source?: string;
  scored?: boolean;
  /** When the result was produced, Unix epoch milliseconds. */
  timestamp?: number;
  resource?: ResourceRef;
  properties?: Readonly<Record<string, string>>;
}

/** The report a batch of results comes from; used for batch headers and the `reportLabels` filter. */
export interface ReportRef {
  id?: string;
  name: string;
  namespace?: string;
  labels?: Readonly<Record<string, string>>;
  /** The object the report is about; Slack sends one message per scoped report. */
  scope?: ResourceRef;
}

/** Why results are sent: they are new failures, or earlier failures that now pass. */
export type NotificationEvent = "new" | "resolved";

/**
 * What a send is about beyond the results themselves. A `resolved` send carries the passing results and,
 * per result ID, the status the result had before (AlertManager needs it to match the open alert).
 */
export type SendContext =
  | { event?: "new"; report?: ReportRef }
  | { event: "resolved"; report?: ReportRef; previousStatus?: Readonly<Record<string, ResultStatus>> };

/**
 * A notification target. `send` delivers one result; `sendBatch` delivers the results of one report in
 * the target's mode (one request per result for single-mode targets, one per report for batch-mode
 * targets). Both reject with a `DeliveryError` once retries are exhausted. Filtering is not part of a
 * target: wrap it with `withFilter`.
 */
export interface Target {
  readonly name: string;
  send(result: NotifiableResult, context?: SendContext): Promise<void>;
  sendBatch(results: readonly NotifiableResult[], context?: SendContext): Promise<void>;
}

/**
 * A target as the notifier drives it: the (filtered) target plus the notifier-side options that
 * decide which results reach it.
 */
export interface TargetBinding {
  target: Target;
  /** Do not send results that existed before start-up (upstream default: true). */
  skipExistingOnStartup: boolean;
  /** Also send a `resolved` notification when a notified failure turns to pass (opt-in). */
  sendResolved?: boolean;
}

/** One outgoing HTTP request. */
export interface HttpRequest {
  method: "POST" | "PUT";
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  signal: AbortSignal;
}

/** The response to an `HttpRequest`; the body is read in full. */
export interface HttpResponse {
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: string;
}

/** The HTTP client targets send through; `createHttpClient` builds one on undici. */
export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** Stable codes of delivery failures; metrics label by them. */
export type DeliveryErrorCode = "HTTP_STATUS" | "TIMEOUT" | "NETWORK" | "QUEUE_FULL" | "INVALID_RESPONSE";

/** A failed delivery attempt, reported to the `onError` hook (one call per attempt). */
export interface DeliveryFailure {
  target: string;
  code: DeliveryErrorCode;
  /** 1-based attempt number; 0 for failures before any request (a full queue). */
  attempt: number;
  /** True when another attempt follows. */
  willRetry: boolean;
  /** HTTP status for `HTTP_STATUS`. */
  status?: number;
  message: string;
}

/** What every target factory receives. The clock stamps payloads and times backoff waits. */
export interface TargetDeps {
  http: HttpClient;
  clock: Clock;
  logger: Logger;
  /** Metric hook: called for every failed attempt. */
  onError?: (failure: DeliveryFailure) => void;
}

/** Timeouts and retries of HTTP delivery; defaults in `DEFAULT_DELIVERY`. */
export interface DeliveryOptions {
  /** Per-request timeout in milliseconds. */
  timeoutMs?: number;
  /** Retries after the first attempt for 5xx, 429, timeouts and network errors. */
  retries?: number;
  /** First backoff in milliseconds; doubles per retry. */
  backoffMs?: number;
  /** Upper bound of a backoff (and of an honoured `Retry-After`). */
  maxBackoffMs?: number;
}

/** Options shared by every target factory. */
export interface BaseTargetOptions {
  /** Name shown in logs, metrics and the targets API. */
  name?: string;
  /** Added to every payload (fields, labels or properties, depending on the target). */
  customFields?: Readonly<Record<string, string>>;
  /** Extra HTTP headers sent with every request. */
  headers?: Readonly<Record<string, string>>;
  delivery?: DeliveryOptions;
}

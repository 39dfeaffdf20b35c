/**
 * Handing admission results to the reports controller without ever letting them pile up: the
 * webhook offers, never waits, and a bounded queue drops the oldest results when the consumer falls
 * behind (upstream once filled etcd with millions of intermediate reports).
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { PolicyResponse, RuleKind, RuleType, UserInfo } from "@kyverno-ts/engine";
import type { RequestSubject } from "./request.js";
import type { AdmissionRequest } from "./review.js";

/**
 * What one admitted request produced, for reports: the validate responses of every evaluated policy
 * (the validating webhook), or the mutate responses (the mutating webhook, `phase: "mutate"`).
 */
export interface AdmissionResult {
  /** The AdmissionRequest uid. */
  uid: string;
  /** Milliseconds since epoch (injected clock). */
  timestamp: number;
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  resource: { apiVersion: string; kind: string; namespace: string; name: string; uid: string };
  userInfo?: UserInfo;
  /** One response per evaluated policy (rules that did not match have no entry). */
  responses: readonly PolicyResponse[];
  /**
   * Which webhook answered: `mutate` results cover the policies' mutate rules only, so they replace
   * earlier mutate results and leave the validate results of the same policies alone. Default `validate`.
   * On CREATE the mutating webhook sees the object before the API server gave it a uid: `resource.uid`
   * is then empty and the consumer looks the object up once it is stored (`resolveCreatedUid`).
   */
  phase?: AdmissionPhase;
}

/**
 * Where a result comes from: the validating or the mutating webhook, or the background controller's
 * generate and mutate-existing work on an UpdateRequest.
 */
export type AdmissionPhase = "validate" | "mutate" | "generate" | "mutateExisting";

/** The rule types whose results each phase reports. */
export const PHASE_RULE_TYPES = {
  validate: ["Validation"],
  mutate: ["Mutation"],
  generate: ["Generation"],
  mutateExisting: ["Mutation"],
} as const satisfies Record<AdmissionPhase, readonly RuleType[]>;

/** The kinds of rule each phase answers for: its results replace earlier ones of these rules only. */
export const PHASE_RULE_KINDS = {
  validate: ["validate", "verifyImages"],
  mutate: ["mutate"],
  generate: ["generate"],
  mutateExisting: ["mutateExisting"],
} as const satisfies Record<AdmissionPhase, readonly RuleKind[]>;

/**
 * The result of an admitted request for the reports, or undefined when it reports nothing: dry runs,
 * DELETEs (the report goes with the resource) and requests no policy rule matched.
 */
export function admissionResultOf(
  request: AdmissionRequest,
  subject: RequestSubject,
  responses: readonly PolicyResponse[],
  phase: AdmissionPhase,
  timestamp: number,
): AdmissionResult | undefined {
  if (request.dryRun === true || request.operation === "DELETE" || responses.length === 0) return undefined;
  const object = subject.object;
  return {
    uid: request.uid,
    timestamp,
    operation: request.operation,
    resource: {
      apiVersion: typeof object.apiVersion === "string" ? object.apiVersion : "",
      kind: subject.kind,
      namespace: subject.namespace,
      name: subject.name,
      uid: typeof object.metadata?.uid === "string" ? object.metadata.uid : "",
    },
    ...(request.userInfo ? { userInfo: request.userInfo } : {}),
    responses,
    ...(phase === "validate" ? {} : { phase }),
  };
}

/**
 * The result of the background controller's generate or mutate-existing work on a trigger, for the
 * reports; undefined when no rule answered.
 */
export function backgroundResultOf(
  trigger: KubeObject,
  response: PolicyResponse,
  phase: "generate" | "mutateExisting",
  timestamp: number,
): AdmissionResult | undefined {
  const meta = trigger.metadata ?? {};
  const uid = typeof meta.uid === "string" ? meta.uid : "";
  if (response.rules.length === 0 || uid === "") return undefined;
  return {
    uid,
    timestamp,
    operation: "UPDATE",
    resource: {
      apiVersion: typeof trigger.apiVersion === "string" ? trigger.apiVersion : "",
      kind: typeof trigger.kind === "string" ? trigger.kind : "",
      namespace: typeof meta.namespace === "string" ? meta.namespace : "",
      name: typeof meta.name === "string" ? meta.name : "",
      uid,
    },
    responses: [response],
    phase,
  };
}

/** Where the webhook hands results; `offer` must return immediately and never throw. */
export interface AdmissionResultSink {
  offer(result: AdmissionResult): void;
}

/** A bounded in-memory queue of results, drained by the reports controller. */
export interface BoundedResultQueue extends AdmissionResultSink {
  /** Removes and returns up to `max` results, oldest first. */
  drain(max?: number): AdmissionResult[];
  /** Results waiting. */
  readonly size: number;
  /** Results dropped since creation. */
  readonly dropped: number;
  /** Calls `listener` (synchronously, once per offer) when a result arrives; returns an unsubscribe function. */
  onAvailable(listener: () => void): () => void;
}

/** Options of `createBoundedResultQueue`. */
export interface BoundedResultQueueOptions {
  /** Most results kept; past it the oldest is dropped (default 10,000). */
  capacity?: number;
  /** Told how many results were dropped (wire it to `AdmissionMetrics.resultsDropped`). */
  onDrop?: (count: number) => void;
  /** Which results are kept at all (`--enableReporting`); default every one. */
  accepts?: (result: AdmissionResult) => boolean;
}

/** Creates a ring buffer of results: `offer` is O(1), drops the oldest when full and counts the drop. */
export function createBoundedResultQueue(options: BoundedResultQueueOptions = {}): BoundedResultQueue {
  const capacity = Math.max(1, options.capacity ?? 10_000);
  const ring: Array<AdmissionResult | undefined> = new Array(capacity);
  const listeners = new Set<() => void>();
  let head = 0;
  let size = 0;
  let dropped = 0;
  return {
    offer(result) {
      if (options.accepts !== undefined && !options.accepts(result)) return;
      if (size === capacity) {
        ring[head] = undefined;
        head = (head + 1) % capacity;
        size--;
        dropped++;
        options.onDrop?.(1);
      }
      ring[(head + size) % capacity] = result;
      size++;
      for (const listener of listeners) {
        try {
          listener();
        } catch {
          // A consumer's failure must not reach the webhook.
        }
      }
    },
    drain(max = Number.POSITIVE_INFINITY) {
      const n = Math.min(size, Math.max(0, max));
      const out: AdmissionResult[] = [];
      for (let i = 0; i < n; i++) {
        out.push(ring[head] as AdmissionResult);
        ring[head] = undefined;
        head = (head + 1) % capacity;
      }
      size -= n;
      return out;
    },
    get size() {
      return size;
    },
    get dropped() {
      return dropped;
    },
    onAvailable(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

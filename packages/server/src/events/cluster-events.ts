/**
 * Events in a cluster: the flags (`--omitEvents`, `--maxQueuedEvents`, `--eventsRateLimitQPS`,
 * `--eventsRateLimitBurst`, upstream's spellings and defaults), and the recorder a controller writes
 * through: its own API client, so Event writes never take the QPS of informers, reports or webhooks
 * (upstream also gives events their own client and limits).
 */
import {
  type Clock,
  createEventRecorder,
  createKubeClient,
  type EventRecorder,
  type EventRecorderStats,
  type KubeClientOptions,
} from "@kyverno-ts/kube";
import type { Logger } from "../logger.js";
import {
  type BackgroundEvents,
  type BackgroundEventsOptions,
  createBackgroundEvents,
} from "./background-events.js";
import {
  createPolicyEvents,
  DEFAULT_OMIT_EVENTS,
  type EventReason,
  type PolicyEvents,
  type PolicyLookup,
  parseOmitEvents,
  policyRefFrom,
} from "./policy-events.js";

/** How a controller emits Events. */
export interface EventSettings {
  /** `--omitEvents` (default `PolicyApplied,PolicySkipped`). */
  omit: readonly EventReason[];
  /** `--maxQueuedEvents` (default 1000). */
  maxQueued: number;
  /** `--eventsRateLimitQPS` (default 1000; 0: unlimited). */
  qps: number;
  /** `--eventsRateLimitBurst` (default 2000). */
  burst: number;
}

/** Upstream's defaults. */
export const DEFAULT_EVENT_SETTINGS: EventSettings = Object.freeze({
  omit: DEFAULT_OMIT_EVENTS,
  maxQueued: 1000,
  qps: 1000,
  burst: 2000,
});

/** Validates the flag values; messages name the flag. */
export function eventSettings(flags: {
  omitEvents: string;
  maxQueuedEvents: number;
  eventsRateLimitQPS?: number;
  eventsRateLimitBurst?: number;
}): { ok: true; settings: EventSettings } | { ok: false; message: string } {
  const omit = parseOmitEvents(flags.omitEvents);
  if (!omit.ok) return omit;
  if (!Number.isInteger(flags.maxQueuedEvents) || flags.maxQueuedEvents < 1)
    return {
      ok: false,
      message: `--maxQueuedEvents must be a whole number above 0, got "${flags.maxQueuedEvents}"`,
    };
  const qps = flags.eventsRateLimitQPS ?? DEFAULT_EVENT_SETTINGS.qps;
  const burst = flags.eventsRateLimitBurst ?? DEFAULT_EVENT_SETTINGS.burst;
  if (!(qps >= 0)) return { ok: false, message: `--eventsRateLimitQPS must not be negative, got "${qps}"` };
  if (!Number.isInteger(burst) || burst < 0)
    return { ok: false, message: `--eventsRateLimitBurst must be a whole number, got "${burst}"` };
  return {
    ok: true,
    // Upstream: zero means the client's default.
    settings: {
      omit: omit.reasons,
      maxQueued: flags.maxQueuedEvents,
      qps: qps === 0 ? DEFAULT_EVENT_SETTINGS.qps : qps,
      burst: burst === 0 ? DEFAULT_EVENT_SETTINGS.burst : burst,
    },
  };
}

/** Options of `startClusterEvents`. */
export interface ClusterEventsOptions {
  /** How to reach the API server (the controller's client options; QPS and burst are replaced). */
  kube: KubeClientOptions;
  /** This replica (the Pod name), for `reportingInstance`. */
  identity: string;
  settings: EventSettings;
  clock: Clock;
  logger: Logger;
}

/** A running recorder and the policy Events written through it. */
export interface ClusterEvents {
  /** The policy Events of a controller; `lookup` finds a policy in its cache (for apiVersion and uid). */
  policyEvents(lookup: PolicyLookup): PolicyEvents;
  /** The background controller's Events (generate and mutate-existing). */
  backgroundEvents(options: Omit<BackgroundEventsOptions, "recorder" | "omit">): BackgroundEvents;
  stats(): EventRecorderStats;
  /** Writes what is queued (at most 5 s), then closes the client. */
  stop(): Promise<void>;
}

/** Creates the Events client and recorder, started. No request is made until an Event is recorded. */
export function startClusterEvents(options: ClusterEventsOptions): ClusterEvents {
  const { settings, logger } = options;
  const client = createKubeClient({ ...options.kube, qps: 0, clientType: "events" });
  const recorder: EventRecorder = createEventRecorder({
    client,
    identity: options.identity,
    clock: options.clock,
    logger,
    maxQueued: settings.maxQueued,
    qps: settings.qps,
    burst: settings.burst,
  });
  recorder.start();
  return {
    policyEvents: (lookup) =>
      createPolicyEvents({ recorder, omit: settings.omit, policyRef: policyRefFrom(lookup) }),
    backgroundEvents: (opts) => createBackgroundEvents({ ...opts, recorder, omit: settings.omit }),
    stats: () => recorder.stats(),
    async stop() {
      await recorder.stop();
      client.close();
    },
  };
}

/**
 * The cleanup controller in a cluster: every replica serves the webhooks (`/validate`, `/verifyttl`)
 * with the certificate stored in the `kyverno-cleanup-controller.<ns>.svc.kyverno-tls-*` Secrets;
 * the replica holding the `kyverno-cleanup-controller` Lease manages those certificates and the two
 * webhook configurations, runs cleanup policies on their schedules and deletes objects whose TTL
 * label has expired. Leadership changes hand all of it over; shutdown steps down first.
 */
import { createCelEngine, createEngine } from "@kyverno-ts/engine";
import {
  createEventRecorder,
  createLeaderElector,
  type KubeClient,
  type LeaderElector,
} from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import { createClusterState } from "../../cluster-state/cluster-state.js";
import { createScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import { createAccessCheck, selfAccess, ttlDeletable } from "./cleanup-access.js";
import { createWebhookDuty, type WebhookDuty } from "./cleanup-webhook-duty.js";
import { createDeletingPolicies } from "./deleting-policies.js";
import { createCleanupEvents } from "./events.js";
import type { CleanupMetrics } from "./metrics.js";
import { createPolicyController } from "./policy-controller.js";
import { runCleanupPolicy } from "./policy-run.js";
import { validateCleanupPolicy } from "./policy-validation.js";
import { createTtlController } from "./ttl-controller.js";
import { type CleanupWebhookServer, createCleanupWebhookServer } from "./webhook.js";

/** Upstream's Lease name. */
export const CLEANUP_LEASE_NAME = "kyverno-cleanup-controller";

/** Options of `startCleanupController`. */
export interface CleanupControllerOptions {
  client: KubeClient;
  clock: ServerClock;
  logger: Logger;
  metrics: CleanupMetrics;
  /** Kyverno's namespace (Secrets, Lease). */
  namespace: string;
  /** The webhook Service (upstream: `kyverno-cleanup-controller`). */
  serviceName: string;
  servicePort: number;
  /** Outside the cluster: the base URL the API server calls, or a function of the listening port. */
  webhookUrl?: string | ((port: number) => string);
  extraHosts?: readonly string[];
  identity: string;
  host?: string;
  /** `--cleanupServerPort` (0 picks a free one). */
  port: number;
  ttlIntervalMs: number;
  webhookTimeoutSeconds?: number;
  /** Leader election timings (upstream's 12 s / 10 s / 2 s by default). */
  leaderTimings?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** Certificate check period (default 12 h). */
  certificateCheckMs?: number;
  signal?: AbortSignal;
}

/** A running controller. */
export interface CleanupController {
  readonly port: number;
  isLeader(): boolean;
  ready(): boolean;
  /** Steps down, stops serving and watching. */
  close(): Promise<void>;
}

/** The controllers the leader runs and what the policy validation webhook uses, created idle. */
function createCleanupParts(options: CleanupControllerOptions) {
  const { client, clock, logger, metrics } = options;
  // The shared cluster state, for Namespace labels and kinds only: cleanup evaluates no policy of
  // the caches (its own policies are the resources it works on), so nothing else is watched.
  const state = createClusterState({ client, logger, clock, exceptionNamespaces: [] });
  const { kinds } = state;
  const context = createScanContext({ client, monotonic: () => clock.monotonic(), maxEntries: 200 });
  const namespaceLabels = (name: string) => state.namespaceLabels(name);
  const engine = createEngine({ clock: clock, contextLoader: context.loader, namespaceLabels });
  const recorder = createEventRecorder({
    client,
    identity: options.identity,
    clock,
    logger,
  });
  const events = createCleanupEvents(recorder);
  const policies = createPolicyController({
    client,
    clock,
    logger,
    metrics,
    run: (policy, s) =>
      runCleanupPolicy(
        { client, engine, context, kinds, namespaceLabels, metrics, events, logger },
        policy,
        s,
      ),
  });
  const cel = createCelEngine({ clock: clock, namespaceLabels });
  const deleting = createDeletingPolicies({ client, clock, logger, metrics, cel, events });
  const ttl = createTtlController({
    client,
    clock,
    logger,
    metrics,
    intervalMs: options.ttlIntervalMs,
    access: async (group, resource, verb, s) =>
      (await selfAccess(client, { group, resource, verb }, s)) === true,
  });
  const can = createAccessCheck(client, kinds);
  return { state, engine, recorder, policies, deleting, ttl, can };
}

type CleanupParts = ReturnType<typeof createCleanupParts>;

/** Rejects once `signal` aborts (a start in progress is given up). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error("start aborted"));
    signal.addEventListener("abort", () => reject(new Error("start aborted")), { once: true });
  });
}

/** Campaigns for the cleanup Lease; `lead` runs for each term. */
function electLeader(options: CleanupControllerOptions, lead: (term: AbortSignal) => void): LeaderElector {
  const { logger } = options;
  const elector = createLeaderElector({
    client: options.client,
    namespace: options.namespace,
    name: CLEANUP_LEASE_NAME,
    identity: options.identity,
    clock: options.clock,
    ...options.leaderTimings,
    onStartedLeading: lead,
    onNewLeader: (leader) => logger.info({ leader }, "leader observed"),
    onError: (failure) =>
      logger.warn({ reason: failure.reason, message: failure.message }, "leader election"),
  });
  elector.start();
  return elector;
}

/** The webhook server with the serving certificate once the TLS Secrets hold one (undefined: aborted). */
async function createServer(
  options: CleanupControllerOptions,
  parts: CleanupParts,
  tls: WebhookDuty["tls"],
  signal: AbortSignal,
): Promise<CleanupWebhookServer | undefined> {
  const { engine, can, ttl } = parts;
  const pair = await tls.whenServing(signal);
  if (pair === undefined) return undefined;
  const server = createCleanupWebhookServer({
    tls: tls.serving() ?? pair,
    ready: () => tls.serving() !== undefined,
    deps: {
      logger: options.logger,
      validatePolicy: (policy) => validateCleanupPolicy(policy, { engine, can }),
      deletable: ttlDeletable(() => ttl.kinds()),
      now: () => options.clock.now(),
    },
  });
  tls.onServingChange((next) => server.setCertificate(next));
  return server;
}

/** Starts the controller; resolves once it serves webhooks. */
export async function startCleanupController(options: CleanupControllerOptions): Promise<CleanupController> {
  const { logger } = options;
  const signal = options.signal ?? new AbortController().signal;
  const parts = createCleanupParts(options);
  const { state, recorder, policies, deleting, ttl } = parts;
  let server: CleanupWebhookServer | undefined;
  let port = options.port;
  const webhooks = createWebhookDuty({ ...options, serving: () => server !== undefined, port: () => port });
  const { tls } = webhooks;

  let term: AbortSignal | undefined;
  const lead = (s: AbortSignal): void => {
    term = s;
    logger.info(
      { identity: options.identity },
      "leading: cleanup policies, TTL label, certificates and webhooks",
    );
    webhooks.lead(s);
    policies.lead(s);
    deleting.lead(s);
    ttl.lead(s);
  };
  let elector: LeaderElector | undefined;
  let closing: Promise<void> | undefined;
  const stopAll = async (): Promise<void> => {
    deleting.stopWatching();
    if (elector) await elector.release();
    await server?.close();
    await Promise.allSettled([policies.stop(), deleting.stop(), ttl.stop(), state.stop(), tls.stop()]);
    await recorder.stop();
  };
  const close = (): Promise<void> => {
    closing ??= stopAll();
    return closing;
  };

  try {
    await deleting.watch();
    await Promise.race([
      Promise.all([policies.start(), state.start(), tls.start(), deleting.start()]),
      aborted(signal),
    ]);
    elector = electLeader(options, lead);
    recorder.start();
    server = await createServer(options, parts, tls, signal);
    if (server === undefined) throw new Error("start aborted");
    port = (await server.listen({ ...(options.host ? { host: options.host } : {}), port: options.port }))
      .port;
    logger.info({ port, identity: options.identity }, "serving the cleanup webhooks");
    // A leader elected before the server listened has not written the webhook configurations yet.
    const current = term;
    if (current !== undefined && !current.aborted)
      void webhooks
        .publish(current)
        .catch((error: unknown) => logger.warn({ err: error }, "webhook configurations not written"));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    port,
    isLeader: () => elector?.isLeader() ?? false,
    ready: () => tls.serving() !== undefined,
    close,
  };
}

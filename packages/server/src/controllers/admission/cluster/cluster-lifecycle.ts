/**
 * Starting and stopping the cluster-mode admission controller's parts (built by `cluster-parts.ts`):
 * the metrics server, the informers, leader election (or leading without it), then serving with the
 * first certificate; the shutdown steps down first and deletes nothing.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createLeaderElector, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { ClusterState } from "../../../cluster-state/cluster-state.js";
import type { RequesterRolesSource } from "../../../cluster-state/requester-roles.js";
import type { ClusterEvents } from "../../../events/cluster-events.js";
import type { EphemeralReportPublisher } from "../../../reports/ephemeral-reports.js";
import { createMetricsServer } from "../../../webhooks/metrics-server.js";
import type { UpdateRequestIntake } from "../../background/ur-intake.js";
import type { AdmissionCore } from "../admission-core.js";
import { type AdmissionServers, serveAdmission } from "../serve.js";
import type { LateParts, LeaderParts } from "./cluster-parts.js";
import { type ClusterAdmissionOptions, StartAborted } from "./cluster-types.js";

/** Everything one start created, for starting and stopping. */
export interface ClusterParts extends LeaderParts {
  readonly options: ClusterAdmissionOptions;
  readonly client: KubeClient;
  readonly requesterRoles: RequesterRolesSource;
  readonly events: ClusterEvents | undefined;
  readonly intake: UpdateRequestIntake;
  readonly core: AdmissionCore;
  readonly publisher: EphemeralReportPublisher | undefined;
  readonly state: ClusterState;
  readonly configInformers: readonly Informer<KubeObject>[];
  /** Aborted when leading without election ends. */
  readonly leading: AbortController;
  readonly late: LateParts;
}

/** Stops everything once, however often it is called: steps down, stops serving and watching. */
export function shutdown(parts: ClusterParts): Promise<void> {
  parts.late.closing ??= stopAll(parts);
  return parts.late.closing;
}

async function stopAll(parts: ClusterParts): Promise<void> {
  const { late, duties } = parts;
  if (late.elector) await late.elector.release();
  else {
    parts.leading.abort();
    await duties.stop();
  }
  await Promise.allSettled([late.servers?.close(), late.metricsServer?.close()]);
  await parts.events?.stop();
  await parts.intake.stop();
  await parts.publisher?.stop();
  await Promise.allSettled([
    parts.state.stop(),
    parts.tls.stop(),
    parts.requesterRoles.stop(),
    ...parts.configInformers.map((i) => i.stop()),
  ]);
  parts.client.close();
}

/** `p`, or `StartAborted` once `signal` aborts. */
function abortable<T>(signal: AbortSignal, p: Promise<T>): Promise<T> {
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(new StartAborted());
      signal.addEventListener("abort", () => reject(new StartAborted()), { once: true });
    }),
  ]);
}

/**
 * Starts the parts and serves: the metrics server, the informers (waited for), the leader's duties,
 * then the admission servers with the first certificate. Returns the servers; the caller shuts down
 * on a failure.
 */
export async function startServing(parts: ClusterParts, signal: AbortSignal): Promise<AdmissionServers> {
  const { options, core, state, tls, late } = parts;
  if (options.metricsPort !== undefined) {
    late.metricsServer = createMetricsServer({ metrics: core.metrics });
    late.metricsPort = (
      await late.metricsServer.listen({ host: options.host ?? "0.0.0.0", port: options.metricsPort })
    ).port;
  }
  // Not waited for: without permission to list bindings, admission still starts (roles stay empty).
  parts.requesterRoles.start();
  await abortable(
    signal,
    Promise.all([state.start(), tls.start(), ...parts.configInformers.map((i) => i.start())]).then(
      () => undefined,
    ),
  );
  options.logger.info(
    { policies: core.cache.policies().length },
    "policies, exceptions and configuration listed",
  );
  startLeading(parts);
  const servers = await serveFirstCertificate(parts, signal);
  parts.duties.notify("webhooks");
  parts.publisher?.start();
  options.logger.info({ port: servers.port, identity: options.identity }, "serving admission requests");
  return servers;
}

/** Starts the leader's duties now (no election), or when the Lease is won. */
function startLeading(parts: ClusterParts): void {
  const { options, duties, late } = parts;
  const { logger } = options;
  if (options.leaderElection === false) {
    duties.start(parts.leading.signal);
    return;
  }
  late.elector = createLeaderElector({
    client: parts.client,
    namespace: options.namespace,
    name: options.leaseName ?? "kyverno",
    identity: options.identity,
    clock: options.clock,
    ...options.leaderElection,
    onStartedLeading: (s) => duties.start(s),
    onStoppedLeading: () => duties.stop(),
    onNewLeader: (leader) => logger.info({ leader }, "leader observed"),
    onError: (failure) =>
      logger.warn({ reason: failure.reason, message: failure.message }, "leader election"),
  });
  late.elector.start();
}

/** Waits for a certificate in the Secrets, then serves admission requests with it (or a newer one). */
async function serveFirstCertificate(parts: ClusterParts, signal: AbortSignal): Promise<AdmissionServers> {
  const { options, state, tls, late } = parts;
  const pair = await tls.whenServing(signal);
  if (pair === undefined) throw new StartAborted();
  const first = tls.serving() ?? pair;
  const servers = await serveAdmission(parts.core, {
    tls: first,
    clock: options.clock,
    logger: options.logger,
    ...(options.host !== undefined ? { host: options.host } : {}),
    port: options.port,
    ready: () => state.synced() && tls.serving() !== undefined,
  });
  late.servers = servers;
  const latest = tls.serving();
  // A pair stored while the server was starting would otherwise wait for the next change.
  if (latest && latest !== first) servers.setCertificate(latest.certPem, latest.keyPem);
  return servers;
}

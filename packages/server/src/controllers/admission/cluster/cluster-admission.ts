/**
 * The admission controller in a cluster (the "kube glue"): informers feed the policy cache, every
 * replica serves requests with the certificate stored in Secrets (hot-reloaded), and the replica
 * holding the `kyverno` Lease manages certificates, webhook configurations and policy statuses.
 *
 * Webhook configurations are never deleted: not at start (the leader computes them only once every
 * policy informer has listed, and updates what exists in place), not on shutdown, not on a leader
 * change (every leader computes the same objects from the same cluster state, so a handover writes
 * nothing). With no policy, the resource configurations are kept with no webhooks, which is correct
 * for "no policies" and never a stale list.
 */
import type { AdmissionServers } from "../serve.js";
import { type ClusterParts, shutdown, startServing } from "./cluster-lifecycle.js";
import {
  createClusterCore,
  createClusterStateOf,
  createLeaderParts,
  createReportPublisher,
  createRequestPath,
  loadMetricsConfiguration,
  noLateParts,
  wireChanges,
} from "./cluster-parts.js";
import type { ClusterAdmission, ClusterAdmissionOptions } from "./cluster-types.js";

export type { ClusterAdmission, ClusterAdmissionOptions, LeaderTimings } from "./cluster-types.js";
export { StartAborted } from "./cluster-types.js";

/** Starts the controller; resolves once it serves requests (informers listed, certificate loaded). */
export async function startClusterAdmission(options: ClusterAdmissionOptions): Promise<ClusterAdmission> {
  const signal = options.signal ?? new AbortController().signal;
  // Set as the parts are created; the request path and the core refer to some before they exist.
  const late = noLateParts();
  const path = createRequestPath(options, late);
  const metricsConfig = await loadMetricsConfiguration(options, path.client, signal);
  const core = createClusterCore(options, path, metricsConfig, late);
  late.core = core;
  const publisher = createReportPublisher(options, path, core);
  const state = createClusterStateOf(options, path.client, core);
  late.state = state;
  const leader = createLeaderParts(options, path.client, core, state, late);
  const configInformers = wireChanges(path.client, core, state, leader, late, options.logger);
  const parts: ClusterParts = {
    ...leader,
    options,
    client: path.client,
    requesterRoles: path.requesterRoles,
    events: path.events,
    intake: path.intake,
    core,
    publisher,
    state,
    configInformers,
    leading: new AbortController(),
    late,
  };

  let listening: AdmissionServers;
  try {
    listening = await startServing(parts, signal);
  } catch (error) {
    await shutdown(parts);
    throw error;
  }

  const { tls, duties } = leader;
  return {
    port: listening.port,
    metricsPort: late.metricsPort,
    results: path.results,
    cache: core.cache,
    isLeader: () => (late.elector ? late.elector.isLeader() : duties.active()),
    ready: () => state.synced() && tls.serving() !== undefined,
    close: () => shutdown(parts),
  };
}

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
import type { KubeObject } from "@kyverno-ts/api";
import { SCORED_ANNOTATION } from "@kyverno-ts/engine";
import {
  createInformer,
  createKubeClient,
  createLeaderElector,
  type Informer,
  type KubeClientOptions,
  type LeaderElector,
} from "@kyverno-ts/kube";
import { createSubjectAccessPermissions } from "../admission/background-permissions.js";
import { defaultKyvernoConfig } from "../admission/filters.js";
import { type BoundedResultQueue, createBoundedResultQueue } from "../admission/results.js";
import {
  type AdmissionServers,
  createAdmissionCore,
  type EvaluationSettings,
  serveAdmission,
} from "../admission-controller.js";
import type { ServerClock } from "../clock.js";
import { type ClusterState, createClusterState } from "../cluster-state/cluster-state.js";
import { createRequesterRoles } from "../cluster-state/requester-roles.js";
import { createUpdateRequestIntake } from "../controllers/background/ur-intake.js";
import { createCertRenewer } from "../controllers/certificates/cert-renewer.js";
import { servingHosts, tlsSecretNames } from "../controllers/certificates/tls-secrets.js";
import { createTlsWatcher } from "../controllers/certificates/tls-watcher.js";
import { createStatusWriter } from "../controllers/policy-status/policy-status.js";
import { reportsDisabled } from "../controllers/reports/reconciler.js";
import { MANAGED_BY_LABEL, type WebhookEndpoint } from "../controllers/webhooks/webhook-configs.js";
import { createWebhookController } from "../controllers/webhooks/webhook-controller.js";
import { type EventSettings, startClusterEvents } from "../events/cluster-events.js";
import { createScanContext } from "../external-data/scan-context.js";
import type { Logger } from "../logger.js";
import { loadMetricsConfig } from "../metrics/configmap.js";
import { admissionConfigProblems } from "../metrics/metrics.js";
import { celPolicyKey } from "../policycache/cel-policy-store.js";
import {
  acceptedExceptionNamespaces,
  EXCEPTIONS_DISABLED,
  type ExceptionSettings,
} from "../policycache/exception-settings.js";
import { type PolicyCache, policyRefKey } from "../policycache/policy-cache.js";
import { createEphemeralReportPublisher } from "../reports/ephemeral-reports.js";
import { type ReportingSettings, reportedResults } from "../reports/reporting.js";
import { createMetricsServer, type MetricsServer } from "../webhooks/metrics-server.js";
import { createLeaderDuties } from "./leader-duties.js";

/** Leader election timings (upstream's 12 s / 10 s / 2 s by default). */
export interface LeaderTimings {
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** Options of `startClusterAdmission`. */
export interface ClusterAdmissionOptions {
  /** How to reach the API server (kubeconfig, in-cluster); the client is created and closed here. */
  kube: KubeClientOptions;
  /** Kyverno's namespace: Secrets, ConfigMap and Lease live there (upstream: `kyverno`). */
  namespace: string;
  /** The webhook Service (upstream: `kyverno-svc`). */
  serviceName: string;
  /** The Service's port (default 443). */
  servicePort?: number;
  /**
   * Outside a cluster: the base URL the API server calls instead of the Service (`--url-override`), or
   * a function of the listening port (`--serverIP`).
   */
  webhookUrl?: string | ((port: number) => string);
  /** Extra host names / IPs for the serving certificate. */
  extraHosts?: readonly string[];
  /** Kyverno's ConfigMap (default `kyverno`). */
  configMapName?: string;
  /** This replica's identity in the Lease (the Pod name). */
  identity: string;
  /** The Lease (default `kyverno`). */
  leaseName?: string;
  /** Leader election timings, or `false` to lead without electing (a single replica). */
  leaderElection?: false | LeaderTimings;
  host?: string;
  /** Webhook HTTPS port (0 picks a free one). */
  port: number;
  /** Metrics port (0 picks a free one); no metrics server when undefined. */
  metricsPort?: number;
  /** The `kyverno-metrics` ConfigMap in `namespace`, read at start; metrics use the defaults when undefined. */
  metricsConfigMapName?: string;
  webhookTimeoutSeconds?: number;
  /** Evaluation worker threads and limits (`--evaluationWorkers`); inline when omitted. */
  evaluation?: EvaluationSettings;
  /** `--enablePolicyException` / `--exceptionNamespace` (PolicyExceptions ignored when omitted). */
  policyExceptions?: ExceptionSettings;
  /** Admission results kept for the reports controller (default 10,000; the oldest are dropped). */
  resultCapacity?: number;
  /**
   * Hand admission results to a reports controller in another process as ephemeral reports
   * (`reports.kyverno.io/v1`, upstream's mechanism; the reports controller merges then deletes them).
   * Default false: the caller drains `results` itself (a reports controller in the same process).
   */
  publishEphemeralReports?: boolean;
  /** `--enableReporting`: the rule types whose admission results are kept for the reports (default all). */
  reporting?: ReportingSettings;
  /** Certificate check period (default 12 h). */
  certificateCheckMs?: number;
  /**
   * Kubernetes Events of validate results (`--omitEvents`, `--maxQueuedEvents`, `--eventsRateLimit*`),
   * written through a client of their own; none when omitted.
   */
  events?: EventSettings;
  /**
   * The background controller's user (`--backgroundServiceAccountName`), which must be allowed what
   * generate and mutate-existing rules need before a policy is accepted (upstream's auth check).
   * Default `system:serviceaccount:<namespace>:kyverno-background-controller`.
   */
  backgroundServiceAccountName?: string;
  /**
   * Most UpdateRequests (generate / mutate-existing work of admitted requests) waiting to be created
   * (default 10,000; identical ones are merged, past the bound new ones are dropped, logged and
   * counted in `kyverno_admission_updaterequests_dropped_total`).
   */
  updateRequestCapacity?: number;
  /** Time for admission (deadlines, reports), leader election, queues and certificates. */
  clock: ServerClock;
  logger: Logger;
  /** Aborts a start still waiting for informers or for the first certificate. */
  signal?: AbortSignal;
}

/** A running cluster-mode admission controller. */
export interface ClusterAdmission {
  readonly port: number;
  readonly metricsPort: number;
  /** Results of admitted (non dry-run) requests, for the reports controller to drain. */
  readonly results: BoundedResultQueue;
  readonly cache: PolicyCache;
  isLeader(): boolean;
  /** Policies listed and a certificate served. */
  ready(): boolean;
  /** Steps down (the Lease is handed back), stops serving and watching. Deletes nothing. */
  close(): Promise<void>;
}

/** Thrown when `signal` aborts the start. */
export class StartAborted extends Error {
  constructor() {
    super("start aborted");
    this.name = "StartAborted";
  }
}

/** Starts the controller; resolves once it serves requests (informers listed, certificate loaded). */
export async function startClusterAdmission(options: ClusterAdmissionOptions): Promise<ClusterAdmission> {
  const { namespace, logger } = options;
  const policyExceptions = options.policyExceptions ?? EXCEPTIONS_DISABLED;
  const { clock } = options;
  const signal = options.signal ?? new AbortController().signal;
  let core: ReturnType<typeof createAdmissionCore> | undefined;
  const client = createKubeClient({ ...options.kube, onQuery: (e) => core?.metrics.clientQuery(e) });
  // request.roles / request.clusterRoles and role-based match, exclude and ConfigMap filters.
  const requesterRoles = createRequesterRoles({ client, logger });
  const events =
    options.events === undefined
      ? undefined
      : startClusterEvents({
          kube: { ...options.kube, onQuery: (e) => core?.metrics.clientQuery(e) },
          identity: options.identity,
          settings: options.events,
          clock,
          logger,
        });
  const results = createBoundedResultQueue({
    capacity: options.resultCapacity ?? 10_000,
    onDrop: (n) => core?.metrics.resultsDropped(n),
    ...(options.reporting === undefined ? {} : { accepts: reportedResults(options.reporting) }),
  });
  let stateRef: ClusterState | undefined;
  // Generate and mutate-existing rules of admitted requests become UpdateRequests, created off the
  // request path for the background controller (`kyverno-ts background`).
  const intake = createUpdateRequestIntake({
    client,
    namespace,
    logger,
    ...(options.updateRequestCapacity !== undefined ? { capacity: options.updateRequestCapacity } : {}),
    onDrop: (n) => core?.metrics.updateRequestsDropped(n),
  });
  const metricsConfig =
    options.metricsConfigMapName === undefined
      ? undefined
      : await loadMetricsConfig(client, namespace, options.metricsConfigMapName, signal);
  if (metricsConfig !== undefined)
    for (const problem of [
      ...metricsConfig.problems,
      ...admissionConfigProblems(
        metricsConfig.config,
        `ConfigMap ${namespace}/${options.metricsConfigMapName}`,
      ),
    ])
      logger.warn({ problem }, "metrics configuration");
  core = createAdmissionCore({
    ...(metricsConfig ? { metricsConfig: metricsConfig.config } : {}),
    config: () => stateRef?.config() ?? defaultKyvernoConfig(),
    namespaceLabels: (ns) => stateRef?.namespaceLabels(ns),
    resolveRoles: (user) => requesterRoles.resolve(user),
    clock,
    logger,
    sink: results,
    ...(events
      ? {
          events: events.policyEvents((p) =>
            p.kind === "ClusterPolicy" || p.kind === "Policy"
              ? core?.cache.get(policyRefKey(p))?.policy
              : core?.celPolicies.get(celPolicyKey(p))?.policy,
          ),
        }
      : {}),
    // Each request that reads ConfigMaps or API calls loads them afresh, within its deadline.
    externalData: (timeoutMs) =>
      createScanContext({
        client,
        monotonic: () => clock.monotonic(),
        timeoutMs,
        maxEntries: 100,
        maxCachedBytes: 8 * 2 ** 20,
        cachedConfigMap: (namespace, name) => stateRef?.cachedConfigMap(namespace, name),
      }),
    ...(options.webhookTimeoutSeconds !== undefined
      ? { webhookTimeoutSeconds: options.webhookTimeoutSeconds }
      : {}),
    policyExceptions,
    ...(options.evaluation ? { evaluation: options.evaluation } : {}),
    // Custom resources' kinds come from discovery, which resolving the policies' kinds filled.
    resourceKind: (apiVersion, resource) => stateRef?.kinds.resourceKind(apiVersion, resource),
    backgroundPermissions: createSubjectAccessPermissions({
      client,
      user:
        options.backgroundServiceAccountName ||
        `system:serviceaccount:${namespace}:kyverno-background-controller`,
      resources: (selector, sig) =>
        stateRef === undefined
          ? Promise.resolve({ ok: false, reason: "ApiError", message: "not started" })
          : stateRef.kinds.resources(selector, sig),
    }),
    background: intake,
  });
  const { cache } = core;
  const publisher = options.publishEphemeralReports
    ? createEphemeralReportPublisher({
        client,
        source: results,
        unscored: (ref) =>
          cache.get(policyRefKey(ref))?.policy.metadata.annotations?.[SCORED_ANNOTATION] === "false",
        reportsDisabled: (ref) => {
          const policy = cache.get(policyRefKey(ref));
          return policy !== undefined && reportsDisabled(policy);
        },
        logger,
      })
    : undefined;
  const state = createClusterState({
    client,
    cache,
    celPolicies: core.celPolicies,
    logger,
    exceptionNamespaces: acceptedExceptionNamespaces(policyExceptions),
    kyvernoConfigMap: { namespace, name: options.configMapName ?? "kyverno" },
    cachedConfigMaps: true,
  });
  stateRef = state;
  const secrets = tlsSecretNames(options.serviceName, namespace);
  const tls = createTlsWatcher({ client, namespace, names: secrets, logger });
  const fixedUrl = typeof options.webhookUrl === "string" ? options.webhookUrl : undefined;
  const urlHost = fixedUrl ? new URL(fixedUrl).hostname.replace(/^\[|\]$/g, "") : undefined;
  const hosts = servingHosts(options.serviceName, namespace, [
    ...(options.extraHosts ?? []),
    ...(urlHost ? [urlHost] : []),
  ]);
  let servers: AdmissionServers | undefined;
  const endpoint = (): WebhookEndpoint => {
    const url = options.webhookUrl;
    if (typeof url === "string") return { url };
    if (url !== undefined) return { url: url(servers?.port ?? options.port) };
    return { service: { namespace, name: options.serviceName, port: options.servicePort ?? 443 } };
  };
  const webhooks = createWebhookController({
    client,
    cache,
    celPolicies: core.celPolicies,
    state,
    namespace,
    secrets,
    endpoint,
    defaultTimeoutSeconds: options.webhookTimeoutSeconds ?? 10,
    clock,
    serving: () => servers !== undefined,
    logger,
  });
  const renewer = createCertRenewer({
    client,
    namespace,
    names: secrets,
    hosts,
    clock,
    logger,
    publishCaBundle: async (s) => void (await webhooks.reconcile(s)),
  });
  let appliedRevision = (): number => -1;
  const status = createStatusWriter({
    client,
    cache,
    celPolicies: core.celPolicies,
    state,
    appliedRevision: () => appliedRevision(),
    clock,
    logger,
  });
  const duties = createLeaderDuties({
    metrics: core.metrics,
    renewer,
    webhooks,
    status,
    state,
    clock,
    logger,
    ...(options.certificateCheckMs !== undefined ? { certificateCheckMs: options.certificateCheckMs } : {}),
  });
  appliedRevision = () => duties.appliedRevision();

  state.subscribe((change) => {
    if (change.type === "policy" || change.type === "config" || change.type === "celPolicy")
      duties.notify("webhooks");
    if (change.type === "policy" || change.type === "celPolicy") duties.notify(`status/${change.key}`);
    if (change.type === "celException") {
      duties.notify("webhooks");
      for (const p of core?.celPolicies.policies() ?? []) duties.notify(`status/${p.key}`);
    }
  });
  tls.onChange(() => {
    duties.notify("certificates");
    duties.notify("webhooks");
  });
  tls.onServingChange((pair) => {
    if (servers === undefined) return;
    try {
      servers.setCertificate(pair.certPem, pair.keyPem);
    } catch (error) {
      logger.error({ err: error }, "the new serving certificate cannot be used; keeping the current one");
    }
  });
  const configInformers: Informer<KubeObject>[] = [
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
  ].map((kind) =>
    createInformer<KubeObject>({
      client,
      apiVersion: "admissionregistration.k8s.io/v1",
      kind,
      labelSelector: Object.entries(MANAGED_BY_LABEL)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
    }),
  );
  for (const informer of configInformers) {
    informer.on("update", () => duties.notify("webhooks"));
    informer.on("delete", () => duties.notify("webhooks"));
  }

  let metricsServer: MetricsServer | undefined;
  let metricsPort = 0;
  let elector: LeaderElector | undefined;
  const leading = new AbortController();
  let closing: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    closing ??= stopAll();
    return closing;
  };
  const stopAll = async (): Promise<void> => {
    if (elector) await elector.release();
    else {
      leading.abort();
      await duties.stop();
    }
    await Promise.allSettled([servers?.close(), metricsServer?.close()]);
    await events?.stop();
    await intake.stop();
    await publisher?.stop();
    await Promise.allSettled([
      state.stop(),
      tls.stop(),
      requesterRoles.stop(),
      ...configInformers.map((i) => i.stop()),
    ]);
    client.close();
  };

  try {
    if (options.metricsPort !== undefined) {
      metricsServer = createMetricsServer({ metrics: core.metrics });
      metricsPort = (
        await metricsServer.listen({ host: options.host ?? "0.0.0.0", port: options.metricsPort })
      ).port;
    }
    const abortable = <T>(p: Promise<T>): Promise<T> =>
      Promise.race([
        p,
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(new StartAborted());
          signal.addEventListener("abort", () => reject(new StartAborted()), { once: true });
        }),
      ]);
    // Not waited for: without permission to list bindings, admission still starts (roles stay empty).
    requesterRoles.start();
    await abortable(
      Promise.all([state.start(), tls.start(), ...configInformers.map((i) => i.start())]).then(
        () => undefined,
      ),
    );
    logger.info({ policies: cache.policies().length }, "policies, exceptions and configuration listed");
    if (options.leaderElection === false) duties.start(leading.signal);
    else {
      elector = createLeaderElector({
        client,
        namespace,
        name: options.leaseName ?? "kyverno",
        identity: options.identity,
        clock,
        ...options.leaderElection,
        onStartedLeading: (s) => duties.start(s),
        onStoppedLeading: () => duties.stop(),
        onNewLeader: (leader) => logger.info({ leader }, "leader observed"),
        onError: (failure) =>
          logger.warn({ reason: failure.reason, message: failure.message }, "leader election"),
      });
      elector.start();
    }
    const pair = await tls.whenServing(signal);
    if (pair === undefined) throw new StartAborted();
    const first = tls.serving() ?? pair;
    servers = await serveAdmission(core, {
      tls: first,
      clock,
      logger,
      ...(options.host !== undefined ? { host: options.host } : {}),
      port: options.port,
      ready: () => state.synced() && tls.serving() !== undefined,
    });
    const latest = tls.serving();
    // A pair stored while the server was starting would otherwise wait for the next change.
    if (latest && latest !== first) servers.setCertificate(latest.certPem, latest.keyPem);
    duties.notify("webhooks");
    publisher?.start();
    logger.info({ port: servers.port, identity: options.identity }, "serving admission requests");
  } catch (error) {
    await shutdown();
    throw error;
  }

  const listening = servers;
  return {
    port: listening.port,
    metricsPort,
    results,
    cache,
    isLeader: () => (elector ? elector.isLeader() : duties.active()),
    ready: () => state.synced() && tls.serving() !== undefined,
    close: shutdown,
  };
}

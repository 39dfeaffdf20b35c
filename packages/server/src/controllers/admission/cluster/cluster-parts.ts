/**
 * The parts of the cluster-mode admission controller, one function per concern, in the order
 * `startClusterAdmission` creates them: the request path (API client, requester roles, Events, the
 * results and UpdateRequest queues), the admission core, the ephemeral report publisher, the informed
 * cluster state, certificate handling with the leader's duties, and the informer wiring that tells the
 * leader what changed. Nothing here starts a watch or opens a socket (see `cluster-lifecycle.ts`).
 */
import type { KubeObject } from "@kyverno-ts/api";
import { SCORED_ANNOTATION } from "@kyverno-ts/engine";
import {
  createInformer,
  createKubeClient,
  type Informer,
  type KubeClient,
  type LeaderElector,
} from "@kyverno-ts/kube";
import { type ClusterState, createClusterState } from "../../../cluster-state/cluster-state.js";
import { createRequesterRoles, type RequesterRolesSource } from "../../../cluster-state/requester-roles.js";
import { type ClusterEvents, startClusterEvents } from "../../../events/cluster-events.js";
import { createScanContext } from "../../../external-data/scan-context.js";
import { type LoadedMetricsConfig, loadMetricsConfig } from "../../../metrics/configmap.js";
import { admissionConfigProblems } from "../../../metrics/metrics.js";
import { celPolicyKey } from "../../../policycache/cel-policy-store.js";
import { acceptedExceptionNamespaces, EXCEPTIONS_DISABLED } from "../../../policycache/exception-settings.js";
import { policyRefKey } from "../../../policycache/policy-cache.js";
import {
  createEphemeralReportPublisher,
  type EphemeralReportPublisher,
} from "../../../reports/ephemeral-reports.js";
import { reportedResults } from "../../../reports/reporting.js";
import type { MetricsServer } from "../../../webhooks/metrics-server.js";
import { createUpdateRequestIntake, type UpdateRequestIntake } from "../../background/ur-intake.js";
import { createCertRenewer } from "../../certificates/cert-renewer.js";
import { servingHosts, tlsSecretNames } from "../../certificates/tls-secrets.js";
import { createTlsWatcher, type TlsWatcher } from "../../certificates/tls-watcher.js";
import { createStatusWriter } from "../../policy-status/policy-status.js";
import { REPORTS_DISABLED_LABEL } from "../../reports/policy-selection.js";
import { MANAGED_BY_LABEL, type WebhookEndpoint } from "../../webhooks/webhook-configs.js";
import { createWebhookController } from "../../webhooks/webhook-controller.js";
import { type AdmissionCore, createAdmissionCore } from "../admission-core.js";
import { createSubjectAccessPermissions } from "../background-permissions.js";
import { defaultKyvernoConfig } from "../filters.js";
import { type BoundedResultQueue, createBoundedResultQueue } from "../results.js";
import type { AdmissionServers } from "../serve.js";
import type { ClusterAdmissionOptions } from "./cluster-types.js";
import { createLeaderDuties, type LeaderDuties } from "./leader-duties.js";

/**
 * What one start sets as it goes: parts that earlier parts refer to before they exist (the core's
 * metrics, the cluster state, the servers), and what the start has begun for the shutdown to end.
 */
export interface LateParts {
  core: AdmissionCore | undefined;
  state: ClusterState | undefined;
  servers: AdmissionServers | undefined;
  metricsServer: MetricsServer | undefined;
  metricsPort: number;
  elector: LeaderElector | undefined;
  closing: Promise<void> | undefined;
}

/** A start's late parts, none set yet. */
export function noLateParts(): LateParts {
  return {
    core: undefined,
    state: undefined,
    servers: undefined,
    metricsServer: undefined,
    metricsPort: 0,
    elector: undefined,
    closing: undefined,
  };
}

/** The request path's parts, created before the admission core that uses them. */
export interface RequestPath {
  client: KubeClient;
  requesterRoles: RequesterRolesSource;
  events: ClusterEvents | undefined;
  results: BoundedResultQueue;
  intake: UpdateRequestIntake;
}

/** The API client, requester roles, Events, the results queue and the UpdateRequest intake. */
export function createRequestPath(options: ClusterAdmissionOptions, late: LateParts): RequestPath {
  const { namespace, logger, clock } = options;
  const client = createKubeClient({ ...options.kube, onQuery: (e) => late.core?.metrics.clientQuery(e) });
  // request.roles / request.clusterRoles and role-based match, exclude and ConfigMap filters.
  const requesterRoles = createRequesterRoles({ client, logger });
  const events =
    options.events === undefined
      ? undefined
      : startClusterEvents({
          kube: { ...options.kube, onQuery: (e) => late.core?.metrics.clientQuery(e) },
          identity: options.identity,
          settings: options.events,
          clock,
          logger,
        });
  const results = createBoundedResultQueue({
    capacity: options.resultCapacity ?? 10_000,
    onDrop: (n) => late.core?.metrics.resultsDropped(n),
    ...(options.reporting === undefined ? {} : { accepts: reportedResults(options.reporting) }),
  });
  // Generate and mutate-existing rules of admitted requests become UpdateRequests, created off the
  // request path for the background controller (`kyverno-ts background`).
  const intake = createUpdateRequestIntake({
    client,
    namespace,
    logger,
    ...(options.updateRequestCapacity !== undefined ? { capacity: options.updateRequestCapacity } : {}),
    onDrop: (n) => late.core?.metrics.updateRequestsDropped(n),
  });
  return { client, requesterRoles, events, results, intake };
}

/** The `kyverno-metrics` ConfigMap when one is named, its problems logged. */
export async function loadMetricsConfiguration(
  options: ClusterAdmissionOptions,
  client: KubeClient,
  signal: AbortSignal,
): Promise<LoadedMetricsConfig | undefined> {
  const { namespace, logger } = options;
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
  return metricsConfig;
}

/** The admission core, reading the cluster state (once there is one) for configuration, labels and kinds. */
export function createClusterCore(
  options: ClusterAdmissionOptions,
  path: RequestPath,
  metricsConfig: LoadedMetricsConfig | undefined,
  late: LateParts,
): AdmissionCore {
  const { namespace, logger, clock } = options;
  const { client, requesterRoles, events, results, intake } = path;
  return createAdmissionCore({
    ...(metricsConfig ? { metricsConfig: metricsConfig.config } : {}),
    config: () => late.state?.config() ?? defaultKyvernoConfig(),
    namespaceLabels: (ns) => late.state?.namespaceLabels(ns),
    resolveRoles: (user) => requesterRoles.resolve(user),
    clock,
    logger,
    sink: results,
    ...(events
      ? {
          events: events.policyEvents((p) =>
            p.kind === "ClusterPolicy" || p.kind === "Policy"
              ? late.core?.cache.get(policyRefKey(p))?.policy
              : late.core?.celPolicies.get(celPolicyKey(p))?.policy,
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
        cachedConfigMap: (namespace, name) => late.state?.cachedConfigMap(namespace, name),
      }),
    ...(options.webhookTimeoutSeconds !== undefined
      ? { webhookTimeoutSeconds: options.webhookTimeoutSeconds }
      : {}),
    policyExceptions: options.policyExceptions ?? EXCEPTIONS_DISABLED,
    ...(options.evaluation ? { evaluation: options.evaluation } : {}),
    // Custom resources' kinds come from discovery, which resolving the policies' kinds filled.
    resourceKind: (apiVersion, resource) => late.state?.kinds.resourceKind(apiVersion, resource),
    backgroundPermissions: createSubjectAccessPermissions({
      client,
      user:
        options.backgroundServiceAccountName ||
        `system:serviceaccount:${namespace}:kyverno-background-controller`,
      resources: (selector, sig) =>
        late.state === undefined
          ? Promise.resolve({ ok: false, reason: "ApiError", message: "not started" })
          : late.state.kinds.resources(selector, sig),
    }),
    background: intake,
  });
}

/** With `publishEphemeralReports`: the publisher handing admission results to a reports controller. */
export function createReportPublisher(
  options: ClusterAdmissionOptions,
  path: RequestPath,
  core: Pick<AdmissionCore, "cache" | "celPolicies">,
): EphemeralReportPublisher | undefined {
  const { cache, celPolicies } = core;
  // Classic and CEL policies alike: an unscored policy's failures are reported as warnings, and a
  // policy labelled reports.kyverno.io/disabled is left out.
  const metadataOf = (ref: { kind: string; name: string; namespace?: string | undefined }) =>
    (ref.kind === "ClusterPolicy" || ref.kind === "Policy"
      ? cache.get(policyRefKey(ref))?.policy
      : celPolicies.get(celPolicyKey(ref))?.policy
    )?.metadata;
  return options.publishEphemeralReports
    ? createEphemeralReportPublisher({
        client: path.client,
        source: path.results,
        unscored: (ref) => metadataOf(ref)?.annotations?.[SCORED_ANNOTATION] === "false",
        reportsDisabled: (ref) => metadataOf(ref)?.labels?.[REPORTS_DISABLED_LABEL] !== undefined,
        logger: options.logger,
      })
    : undefined;
}

/** The informed cluster state feeding the policy caches (policies, exceptions, ConfigMaps, namespaces). */
export function createClusterStateOf(
  options: ClusterAdmissionOptions,
  client: KubeClient,
  core: AdmissionCore,
): ClusterState {
  return createClusterState({
    client,
    cache: core.cache,
    celPolicies: core.celPolicies,
    logger: options.logger,
    exceptionNamespaces: acceptedExceptionNamespaces(options.policyExceptions ?? EXCEPTIONS_DISABLED),
    kyvernoConfigMap: { namespace: options.namespace, name: options.configMapName ?? "kyverno" },
    cachedConfigMaps: true,
  });
}

/** Where the API server calls the webhooks: a fixed URL, one of the listening port, or the Service. */
function webhookEndpoint(options: ClusterAdmissionOptions, late: LateParts): () => WebhookEndpoint {
  return () => {
    const url = options.webhookUrl;
    if (typeof url === "string") return { url };
    if (url !== undefined) return { url: url(late.servers?.port ?? options.port) };
    return {
      service: { namespace: options.namespace, name: options.serviceName, port: options.servicePort ?? 443 },
    };
  };
}

/** The host names the serving certificate is for: the Service's, the extra ones and a fixed URL's. */
function certificateHosts(options: ClusterAdmissionOptions): string[] {
  const fixedUrl = typeof options.webhookUrl === "string" ? options.webhookUrl : undefined;
  const urlHost = fixedUrl ? new URL(fixedUrl).hostname.replace(/^\[|\]$/g, "") : undefined;
  return servingHosts(options.serviceName, options.namespace, [
    ...(options.extraHosts ?? []),
    ...(urlHost ? [urlHost] : []),
  ]);
}

/** Certificate handling and the leader's duties: the TLS Secrets' watcher, and what only the leader writes. */
export interface LeaderParts {
  tls: TlsWatcher;
  duties: LeaderDuties;
}

/**
 * The watcher of the certificate Secrets every replica serves from, and the leader's duties over the
 * certificate renewer, the webhook configurations and the policy statuses.
 */
export function createLeaderParts(
  options: ClusterAdmissionOptions,
  client: KubeClient,
  core: AdmissionCore,
  state: ClusterState,
  late: LateParts,
): LeaderParts {
  const { namespace, clock, logger } = options;
  const { cache, celPolicies } = core;
  const secrets = tlsSecretNames(options.serviceName, namespace);
  const tls = createTlsWatcher({ client, namespace, names: secrets, logger });
  const hosts = certificateHosts(options);
  const webhooks = createWebhookController({
    client,
    cache,
    celPolicies,
    state,
    namespace,
    secrets,
    endpoint: webhookEndpoint(options, late),
    defaultTimeoutSeconds: options.webhookTimeoutSeconds ?? 10,
    clock,
    serving: () => late.servers !== undefined,
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
    celPolicies,
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
  return { tls, duties };
}

/**
 * Tells the leader's duties what changed (policies, configuration, CEL exceptions, certificates, our
 * webhook configurations), and swaps the serving certificate; returns the webhook configurations'
 * informers (created here, started with the others).
 */
export function wireChanges(
  client: KubeClient,
  core: AdmissionCore,
  state: ClusterState,
  { tls, duties }: LeaderParts,
  late: LateParts,
  logger: ClusterAdmissionOptions["logger"],
): Informer<KubeObject>[] {
  state.subscribe((change) => {
    if (change.type === "policy" || change.type === "config" || change.type === "celPolicy")
      duties.notify("webhooks");
    if (change.type === "policy" || change.type === "celPolicy") duties.notify(`status/${change.key}`);
    if (change.type === "celException") {
      duties.notify("webhooks");
      for (const p of core.celPolicies.policies()) duties.notify(`status/${p.key}`);
    }
  });
  tls.onChange(() => {
    duties.notify("certificates");
    duties.notify("webhooks");
  });
  tls.onServingChange((pair) => {
    if (late.servers === undefined) return;
    try {
      late.servers.setCertificate(pair.certPem, pair.keyPem);
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
  return configInformers;
}

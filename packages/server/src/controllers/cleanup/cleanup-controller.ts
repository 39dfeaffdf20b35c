/**
 * The cleanup controller in a cluster: every replica serves the webhooks (`/validate`, `/verifyttl`)
 * with the certificate stored in the `kyverno-cleanup-controller.<ns>.svc.kyverno-tls-*` Secrets;
 * the replica holding the `kyverno-cleanup-controller` Lease manages those certificates and the two
 * webhook configurations, runs cleanup policies on their schedules and deletes objects whose TTL
 * label has expired. Leadership changes hand all of it over; shutdown steps down first.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createCelEngine, createEngine } from "@kyverno-ts/engine";
import {
  createEventRecorder,
  createInformer,
  createLeaderElector,
  type KubeClient,
  type LeaderElector,
} from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import { createKindResolver } from "../../cluster-state/kinds.js";
import { createServedKinds } from "../../cluster-state/served-kinds.js";
import { createScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import { createCertRenewer } from "../certificates/cert-renewer.js";
import { caBundleOf, readTlsSecret, servingHosts, tlsSecretNames } from "../certificates/tls-secrets.js";
import { createTlsWatcher } from "../certificates/tls-watcher.js";
import { MANAGED_BY_LABEL, type WebhookEndpoint } from "../webhooks/webhook-configs.js";
import { DELETING_API_VERSION, DELETING_KINDS, runDeletingPolicy } from "./deleting-run.js";
import { createCleanupEvents } from "./events.js";
import type { CleanupMetrics } from "./metrics.js";
import { createPolicyController } from "./policy-controller.js";
import { runCleanupPolicy } from "./policy-run.js";
import { validateCleanupPolicy } from "./policy-validation.js";
import { createTtlController } from "./ttl-controller.js";
import {
  type CleanupWebhookServer,
  cleanupWebhookConfigurations,
  createCleanupWebhookServer,
} from "./webhook.js";

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

/** Whether this controller may do `verb` on a resource (a SelfSubjectAccessReview). */
async function selfAccess(
  client: KubeClient,
  attributes: { group: string; resource: string; verb: string; namespace?: string },
  signal?: AbortSignal,
): Promise<boolean | { error: string }> {
  const review = await client.create<KubeObject>(
    {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { ...attributes, namespace: attributes.namespace ?? "" } },
    },
    { ...(signal ? { signal } : {}) },
  );
  if (!review.ok) return { error: review.message };
  return (review.value.status as { allowed?: boolean } | undefined)?.allowed === true;
}

/** Starts the controller; resolves once it serves webhooks. */
export async function startCleanupController(options: CleanupControllerOptions): Promise<CleanupController> {
  const { client, clock, logger, metrics, namespace } = options;
  const signal = options.signal ?? new AbortController().signal;
  const kinds = createKindResolver({ client });
  const context = createScanContext({ client, monotonic: () => clock.monotonic(), maxEntries: 200 });
  const namespaces = createInformer<KubeObject>({ client, apiVersion: "v1", kind: "Namespace", clock });
  const namespaceLabels = (name: string) => namespaces.get(undefined, name)?.metadata?.labels;
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
  const deleting = createPolicyController({
    client,
    clock,
    logger,
    metrics,
    kinds: DELETING_KINDS.map((kind) => ({ apiVersion: DELETING_API_VERSION, kind })),
    name: "deleting-controller",
    run: (policy, s) => runDeletingPolicy({ client, cel, metrics, events, logger }, policy, s),
  });
  /** DeletingPolicies run once both their CRDs are installed: at start, or later (no restart). */
  let deletingServed = false;
  let term: AbortSignal | undefined;
  const deletingKinds = createServedKinds({
    client,
    clock,
    apiVersion: DELETING_API_VERSION,
    kinds: DELETING_KINDS,
    logger,
    onServed: (_kind, later) => {
      if (!later || deletingServed || deletingKinds.missing().length > 0) return;
      deletingServed = true;
      logger.info({ kinds: DELETING_KINDS }, "CRDs installed: running DeletingPolicies");
      void deleting.start();
      if (term !== undefined && !term.aborted) deleting.lead(term);
    },
  });
  const ttl = createTtlController({
    client,
    clock,
    logger,
    metrics,
    intervalMs: options.ttlIntervalMs,
    access: async (group, resource, verb, s) =>
      (await selfAccess(client, { group, resource, verb }, s)) === true,
  });
  const can = async (kind: string, ns: string, verb: "list" | "delete") => {
    const parts = kind.split("/");
    const name = parts[parts.length - 1] ?? kind;
    const found =
      parts.length > 1
        ? { ok: true as const, value: { apiVersion: parts.slice(0, -1).join("/"), kind: name } }
        : await kinds.watchable(name);
    if (!found.ok) return { error: `kind ${kind}: ${found.message}` };
    const info = await client.resource(found.value.apiVersion, name);
    if (!info.ok) return { error: `kind ${kind}: ${info.message}` };
    const slash = found.value.apiVersion.lastIndexOf("/");
    const group = slash < 0 ? "" : found.value.apiVersion.slice(0, slash);
    return selfAccess(client, { group, resource: info.value.name, verb, namespace: ns });
  };

  const secrets = tlsSecretNames(options.serviceName, namespace);
  const tls = createTlsWatcher({ client, namespace, names: secrets, logger });
  const fixedUrl = typeof options.webhookUrl === "string" ? options.webhookUrl : undefined;
  const urlHost = fixedUrl ? new URL(fixedUrl).hostname.replace(/^\[|\]$/g, "") : undefined;
  const hosts = servingHosts(options.serviceName, namespace, [
    ...(options.extraHosts ?? []),
    ...(urlHost ? [urlHost] : []),
  ]);
  let server: CleanupWebhookServer | undefined;
  let port = options.port;
  const endpoint = (): WebhookEndpoint => {
    const url = options.webhookUrl;
    if (typeof url === "string") return { url };
    if (url !== undefined) return { url: url(port) };
    return { service: { namespace, name: options.serviceName, port: options.servicePort } };
  };

  /** Writes the two webhook configurations with the CA bundle now stored (leader only). */
  const publishOnce = async (s: AbortSignal): Promise<void> => {
    const ca = await client.get(
      { apiVersion: "v1", kind: "Secret", namespace, name: secrets.ca },
      { signal: s },
    );
    if (!ca.ok) throw new Error(`reading the CA Secret: ${ca.message}`);
    const data = readTlsSecret(ca.value);
    const bundle = data ? caBundleOf(data.certPem, new Date(clock.now())) : undefined;
    if (bundle === undefined || server === undefined) return;
    for (const desired of cleanupWebhookConfigurations({
      endpoint: endpoint(),
      caBundle: bundle,
      timeoutSeconds: options.webhookTimeoutSeconds ?? 10,
      labels: { ...MANAGED_BY_LABEL },
    })) {
      const ref = { apiVersion: desired.apiVersion, kind: desired.kind, name: desired.metadata.name };
      const got = await client.get(ref, { signal: s });
      if (!got.ok && got.status !== 404) throw new Error(`reading ${ref.name}: ${got.message}`);
      const written = got.ok
        ? JSON.stringify(got.value.webhooks) === JSON.stringify(desired.webhooks)
          ? undefined
          : await client.update(
              { ...desired, metadata: { ...got.value.metadata, ...desired.metadata } },
              { signal: s },
            )
        : await client.create(desired, { signal: s });
      if (written !== undefined && !written.ok) throw new Error(`writing ${ref.name}: ${written.message}`);
    }
  };
  /** One write at a time: the start, certificate renewals and Secret changes may ask together. */
  let publishing: Promise<void> = Promise.resolve();
  const publishWebhooks = (s: AbortSignal): Promise<void> => {
    publishing = publishing.catch(() => undefined).then(() => publishOnce(s));
    return publishing;
  };
  const renewer = createCertRenewer({
    client,
    namespace,
    names: secrets,
    hosts,
    clock,
    logger,
    publishCaBundle: publishWebhooks,
  });

  /** The leader's certificate and webhook duty, retried until it succeeds, then every check period. */
  const certificates = (s: AbortSignal): void => {
    const checkMs = options.certificateCheckMs ?? 12 * 60 * 60 * 1000;
    let attempt = 0;
    const once = async (): Promise<void> => {
      if (s.aborted) return;
      try {
        await renewer.reconcile(s);
        await publishWebhooks(s);
        attempt = 0;
        const cancel = clock.after(checkMs, () => void once());
        s.addEventListener("abort", cancel, { once: true });
      } catch (error) {
        if (s.aborted) return;
        attempt++;
        logger.warn({ err: error, attempt }, "certificates or webhook configurations not written; retrying");
        const cancel = clock.after(Math.min(30_000, 250 * 2 ** attempt), () => void once());
        s.addEventListener("abort", cancel, { once: true });
      }
    };
    void once();
    const off = tls.onChange(() => void publishWebhooks(s).catch(() => undefined));
    s.addEventListener("abort", off, { once: true });
  };

  const lead = (s: AbortSignal): void => {
    term = s;
    logger.info(
      { identity: options.identity },
      "leading: cleanup policies, TTL label, certificates and webhooks",
    );
    certificates(s);
    policies.lead(s);
    if (deletingServed) deleting.lead(s);
    ttl.lead(s);
  };
  let elector: LeaderElector | undefined;
  let closing: Promise<void> | undefined;
  const stopAll = async (): Promise<void> => {
    deletingKinds.stop();
    if (elector) await elector.release();
    await server?.close();
    await Promise.allSettled([policies.stop(), deleting.stop(), ttl.stop(), namespaces.stop(), tls.stop()]);
    await recorder.stop();
  };
  const close = (): Promise<void> => {
    closing ??= stopAll();
    return closing;
  };

  try {
    await deletingKinds.start();
    deletingServed = deletingKinds.missing().length === 0;
    await Promise.race([
      Promise.all([
        policies.start(),
        namespaces.start(),
        tls.start(),
        ...(deletingServed ? [deleting.start()] : []),
      ]),
      new Promise((_, reject) => {
        if (signal.aborted) reject(new Error("start aborted"));
        signal.addEventListener("abort", () => reject(new Error("start aborted")), { once: true });
      }),
    ]);
    elector = createLeaderElector({
      client,
      namespace,
      name: CLEANUP_LEASE_NAME,
      identity: options.identity,
      clock,
      ...options.leaderTimings,
      onStartedLeading: (s) => lead(s),
      onNewLeader: (leader) => logger.info({ leader }, "leader observed"),
      onError: (failure) =>
        logger.warn({ reason: failure.reason, message: failure.message }, "leader election"),
    });
    elector.start();
    recorder.start();
    const pair = await tls.whenServing(signal);
    if (pair === undefined) throw new Error("start aborted");
    server = createCleanupWebhookServer({
      tls: tls.serving() ?? pair,
      ready: () => tls.serving() !== undefined,
      deps: {
        logger,
        validatePolicy: (policy) => validateCleanupPolicy(policy, { engine, can }),
        deletable: (group, kind) => {
          const watched = ttl.kinds();
          if (watched.length === 0) return undefined;
          return watched.some(
            (k) =>
              k.kind === kind && (k.apiVersion.includes("/") ? k.apiVersion.split("/")[0] : "") === group,
          );
        },
      },
    });
    tls.onServingChange((next) => server?.setCertificate(next));
    port = (await server.listen({ ...(options.host ? { host: options.host } : {}), port: options.port }))
      .port;
    logger.info({ port, identity: options.identity }, "serving the cleanup webhooks");
    // A leader elected before the server listened has not written the webhook configurations yet.
    const current = term;
    if (current !== undefined && !current.aborted)
      void publishWebhooks(current).catch((error: unknown) =>
        logger.warn({ err: error }, "webhook configurations not written"),
      );
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

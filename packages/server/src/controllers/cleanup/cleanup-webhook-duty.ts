/**
 * The cleanup controller's certificates and webhook configurations: every replica watches the TLS
 * Secrets it serves with; the leader renews the certificates and writes the two
 * ValidatingWebhookConfigurations with the CA bundle stored (one write at a time), retrying until it
 * succeeds and then once per check period, and again whenever the Secrets change.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import { createCertRenewer } from "../certificates/cert-renewer.js";
import { caBundleOf, readTlsSecret, servingHosts, tlsSecretNames } from "../certificates/tls-secrets.js";
import { createTlsWatcher, type TlsWatcher } from "../certificates/tls-watcher.js";
import { MANAGED_BY_LABEL, type WebhookEndpoint } from "../webhooks/webhook-configs.js";
import { cleanupWebhookConfigurations } from "./webhook.js";

/** Options of `createWebhookDuty` (the controller's own options, and where its server listens). */
export interface WebhookDutyOptions {
  client: KubeClient;
  clock: ServerClock;
  logger: Logger;
  namespace: string;
  serviceName: string;
  servicePort: number;
  webhookUrl?: string | ((port: number) => string);
  extraHosts?: readonly string[];
  webhookTimeoutSeconds?: number;
  /** Certificate check period (default 12 h). */
  certificateCheckMs?: number;
  /** Whether the webhook server exists yet (no configuration is written before). */
  serving(): boolean;
  /** The port the webhook server listens on (for a `webhookUrl` function). */
  port(): number;
}

/** The certificate and webhook configuration duty; see `createWebhookDuty`. */
export interface WebhookDuty {
  /** The serving certificate, from the TLS Secrets. */
  readonly tls: TlsWatcher;
  /** Writes the webhook configurations now (queued behind a write in progress). */
  publish(signal: AbortSignal): Promise<void>;
  /** The leader's duty for one term (`signal` ends it). */
  lead(signal: AbortSignal): void;
}

/** Creates the duty; `tls` must be started by the caller. */
export function createWebhookDuty(options: WebhookDutyOptions): WebhookDuty {
  const { client, clock, logger, namespace } = options;
  const secrets = tlsSecretNames(options.serviceName, namespace);
  const tls = createTlsWatcher({ client, namespace, names: secrets, logger });
  const fixedUrl = typeof options.webhookUrl === "string" ? options.webhookUrl : undefined;
  const urlHost = fixedUrl ? new URL(fixedUrl).hostname.replace(/^\[|\]$/g, "") : undefined;
  const hosts = servingHosts(options.serviceName, namespace, [
    ...(options.extraHosts ?? []),
    ...(urlHost ? [urlHost] : []),
  ]);
  const endpoint = (): WebhookEndpoint => {
    const url = options.webhookUrl;
    if (typeof url === "string") return { url };
    if (url !== undefined) return { url: url(options.port()) };
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
    if (bundle === undefined || !options.serving()) return;
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
  const publish = (s: AbortSignal): Promise<void> => {
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
    publishCaBundle: publish,
  });

  /** The leader's certificate and webhook duty, retried until it succeeds, then every check period. */
  const lead = (s: AbortSignal): void => {
    const checkMs = options.certificateCheckMs ?? 12 * 60 * 60 * 1000;
    let attempt = 0;
    const once = async (): Promise<void> => {
      if (s.aborted) return;
      try {
        await renewer.reconcile(s);
        await publish(s);
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
    const off = tls.onChange(() => void publish(s).catch(() => undefined));
    s.addEventListener("abort", off, { once: true });
  };

  return { tls, publish, lead };
}

/**
 * The leader's webhook duty: make the four webhook configurations equal to what the loaded policies
 * need. Configurations are only ever created or updated in place, never deleted (not at start, not on
 * shutdown, not on a leader change), and nothing is computed before every policy informer has listed,
 * so the API server never sees an empty or partial configuration while the cache fills up.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { ClusterState } from "../../cluster-state/cluster-state.js";
import type { ResolvedResource } from "../../cluster-state/kinds.js";
import type { Logger } from "../../logger.js";
import type { CelPolicyStore } from "../../policycache/cel-policy-store.js";
import type { PolicyCache } from "../../policycache/policy-cache.js";
import { caBundleOf, readTlsSecret, type TlsSecretNames } from "../certificates/tls-secrets.js";
import {
  buildWebhookConfigurations,
  type WebhookConfigurationJson,
  type WebhookEndpoint,
  webhookSelectors,
} from "./webhook-configs.js";
import { policyWebhookNeeds, selectorsOf } from "./webhook-rules.js";

/** Options of `createWebhookController`. */
export interface WebhookControllerOptions {
  client: KubeClient;
  cache: PolicyCache;
  /** The CEL policies whose webhooks are registered too (none when omitted). */
  celPolicies?: CelPolicyStore;
  /** Whether the policies are listed, the ConfigMap's settings, the revision, and kinds. */
  state: Pick<ClusterState, "synced" | "config" | "revision" | "kinds">;
  /** Kyverno's namespace (excluded from the resource webhooks; holds the CA Secret). */
  namespace: string;
  secrets: TlsSecretNames;
  /** Where the API server sends requests (read at each reconcile). */
  endpoint: () => WebhookEndpoint;
  /** `--webhookTimeout`. */
  defaultTimeoutSeconds: number;
  /** Wall-clock time (injected), for which CAs are still valid. */
  clock: Pick<ServerClock, "now">;
  /**
   * Whether this replica serves requests. A configuration that does not exist yet is only created
   * once it does (updates of existing ones are not held back).
   */
  serving: () => boolean;
  logger: Logger;
}

/** What one reconcile did. */
export interface WebhookReconcile {
  /** The source revision the configurations were computed from (-1 when skipped). */
  revision: number;
  /** Configurations created or updated. */
  written: string[];
  /** Configurations left alone until this replica serves. */
  deferred: string[];
  /** Kind selectors that could not be resolved (left out; retry later). */
  unresolved: string[];
  /** Why nothing was computed, when nothing was. */
  skipped?: string;
}

/** The leader's webhook reconciler; see `createWebhookController`. */
export interface WebhookController {
  /** Computes the configurations and writes the ones that differ; throws when a write fails. */
  reconcile(signal: AbortSignal): Promise<WebhookReconcile>;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function upToDate(existing: KubeObject, desired: WebhookConfigurationJson): boolean {
  const labels = existing.metadata?.labels ?? {};
  const labelled = Object.entries(desired.metadata.labels).every(([k, v]) => labels[k] === v);
  return labelled && canonical(existing.webhooks ?? []) === canonical(desired.webhooks);
}

/** Creates the controller; the leader runs `reconcile` on every policy, configuration or CA change. */
export function createWebhookController(options: WebhookControllerOptions): WebhookController {
  const { client, cache, state, logger } = options;
  /** Unresolvable kinds already logged (each is logged once, not at every retry). */
  const reported = new Set<string>();

  const caBundle = async (signal: AbortSignal): Promise<string | undefined> => {
    const got = await client.get(
      { apiVersion: "v1", kind: "Secret", namespace: options.namespace, name: options.secrets.ca },
      { signal },
    );
    if (!got.ok && got.status !== 404) throw new Error(`reading the CA Secret: ${got.message}`);
    const data = got.ok ? readTlsSecret(got.value) : undefined;
    return data ? caBundleOf(data.certPem, new Date(options.clock.now())) : undefined;
  };

  const apply = async (
    desired: WebhookConfigurationJson,
    signal: AbortSignal,
  ): Promise<"written" | "deferred" | "same"> => {
    const ref = { apiVersion: desired.apiVersion, kind: desired.kind, name: desired.metadata.name };
    const got = await client.get(ref, { signal });
    if (!got.ok && got.status !== 404) throw new Error(`reading ${desired.kind} ${ref.name}: ${got.message}`);
    if (!got.ok) {
      if (!options.serving()) return "deferred";
      const created = await client.create(desired, { signal });
      if (!created.ok) throw new Error(`creating ${desired.kind} ${ref.name}: ${created.message}`);
      return "written";
    }
    const existing = got.value;
    if (upToDate(existing, desired)) return "same";
    const next: WebhookConfigurationJson = {
      ...desired,
      metadata: {
        ...existing.metadata,
        name: desired.metadata.name,
        labels: { ...(existing.metadata?.labels ?? {}), ...desired.metadata.labels },
      },
    };
    const updated = await client.update(next, { signal });
    if (!updated.ok) throw new Error(`updating ${desired.kind} ${ref.name}: ${updated.message}`);
    return "written";
  };

  return {
    async reconcile(signal) {
      const none = { revision: -1, written: [], deferred: [], unresolved: [] };
      if (!state.synced()) return { ...none, skipped: "the policy informers have not listed yet" };
      const bundle = await caBundle(signal);
      if (bundle === undefined) return { ...none, skipped: "no CA yet" };
      // Read the cache and its revision together (no await in between), so the revision is exact.
      const revision = state.revision();
      const config = state.config();
      const needs = cache.policies().map(policyWebhookNeeds);
      const cel = options.celPolicies?.policies() ?? [];
      const resolved = new Map<string, readonly ResolvedResource[]>();
      const unresolved: string[] = [];
      for (const selector of selectorsOf(needs)) {
        const result = await state.kinds.resources(selector, signal);
        if (result.ok) resolved.set(selector, result.resources);
        // Never write a configuration narrowed by a failed discovery request: retry instead.
        else if (result.reason === "ApiError") throw new Error(`resolving ${selector}: ${result.message}`);
        else {
          unresolved.push(selector);
          if (!reported.has(selector))
            logger.warn({ kind: selector, reason: result.message }, "kind left out of the webhooks");
          reported.add(selector);
        }
      }
      const selectors = webhookSelectors(config, options.namespace);
      const desired = buildWebhookConfigurations({
        needs,
        resolved,
        endpoint: options.endpoint(),
        caBundle: bundle,
        defaultTimeoutSeconds: options.defaultTimeoutSeconds,
        ...selectors,
        cel,
      });
      const written: string[] = [];
      const deferred: string[] = [];
      for (const configuration of desired) {
        const outcome = await apply(configuration, signal);
        if (outcome === "written") written.push(configuration.metadata.name);
        if (outcome === "deferred") deferred.push(configuration.metadata.name);
      }
      if (written.length > 0) logger.info({ written, revision }, "webhook configurations updated");
      return { revision, written, deferred, unresolved };
    },
  };
}

/**
 * `createPolicyWatcher`: read-only informers on `kyverno.io/v1` ClusterPolicy and Policy feeding
 * the policy catalog (the Policy Reporter Kyverno plugin's job, done in-process). Needs only
 * get/list/watch on `clusterpolicies` and `policies` of `kyverno.io`. Kinds the API server does not
 * serve are skipped (discovery is asked once, at start; a CRD installed later needs a restart), and
 * watching never holds up the reporter's readiness.
 */
import { createInformer, type Informer, type InformerError, type KubeClient } from "@kyverno-ts/kube";
import type { PolicyDetailsKind } from "../api/contract.js";
import type { Logger } from "../logger.js";
import type { PolicyCatalog } from "./catalog.js";

/** The API version of the watched policy kinds. */
export const KYVERNO_POLICY_API_VERSION = "kyverno.io/v1";

/** The kinds watched when served. */
export const KYVERNO_POLICY_KINDS: readonly PolicyDetailsKind[] = ["ClusterPolicy", "Policy"];

/** Options of {@link createPolicyWatcher}. */
export interface PolicyWatcherOptions {
  client: KubeClient;
  catalog: PolicyCatalog;
  logger: Logger;
  /** Informer retry delay per attempt (default the informer's exponential backoff). */
  retryDelay?: (attempt: number) => number;
}

/** Watches the Kyverno policy kinds; create with {@link createPolicyWatcher}. */
export interface PolicyWatcher {
  /** Asks discovery, starts an informer per served kind; resolves once they listed. */
  start(): Promise<void>;
  /** Stops the informers. */
  stop(): Promise<void>;
}

type RawPolicy = { kind?: string; metadata?: { name?: string; namespace?: string } };

/** Creates the watcher; nothing happens before `start()`. */
export function createPolicyWatcher(options: PolicyWatcherOptions): PolicyWatcher {
  const { client, catalog, logger } = options;
  const informers: Informer<RawPolicy>[] = [];
  let stopped = false;

  const watch = (kind: PolicyDetailsKind): Informer<RawPolicy> => {
    const informer = createInformer<RawPolicy>({
      client,
      apiVersion: KYVERNO_POLICY_API_VERSION,
      kind,
      ...(options.retryDelay ? { delay: options.retryDelay } : {}),
    });
    // Listed objects may carry no apiVersion and kind: set them from the informer's (first, for the YAML).
    const put = (object: RawPolicy) => {
      const outcome = catalog.upsert({ apiVersion: KYVERNO_POLICY_API_VERSION, kind, ...object });
      if (outcome === "full")
        logger.warn({ kind, name: object.metadata?.name }, "policy catalog full; policy details not kept");
    };
    informer.on("add", put);
    informer.on("update", put);
    informer.on("delete", (object) => {
      const name = object.metadata?.name;
      if (name) catalog.remove(kind, name, object.metadata?.namespace);
    });
    informer.on("error", (error: InformerError) => {
      if (error.source === "handler") {
        logger.error({ kind, event: error.event, err: String(error.error) }, "policy event handler failed");
        return;
      }
      logger.warn(
        {
          kind,
          status: error.failure.status,
          reason: error.failure.reason,
          attempt: error.attempt,
          retryInMs: error.retryInMs,
          err: error.failure.message,
        },
        `${error.source} of ${kind} failed; retrying`,
      );
    });
    return informer;
  };

  return {
    async start() {
      const served: PolicyDetailsKind[] = [];
      for (const kind of KYVERNO_POLICY_KINDS) {
        const found = await client.resource(KYVERNO_POLICY_API_VERSION, kind);
        if (found.ok) served.push(kind);
        else
          logger.info(
            { kind, apiVersion: KYVERNO_POLICY_API_VERSION, status: found.status },
            "Kyverno policy kind not served; no policy details for it",
          );
      }
      if (stopped) return;
      for (const kind of served) informers.push(watch(kind));
      catalog.setWatched(served);
      await Promise.all(informers.map((i) => i.start()));
      if (served.length > 0)
        logger.info({ kinds: served, policies: catalog.size() }, "policy details synced");
    },
    async stop() {
      stopped = true;
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}

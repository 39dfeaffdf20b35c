/**
 * Every replica's view of the certificate Secrets: informers on the CA and serving pair Secrets, so a
 * renewed pair is served without a restart (`setCertificate`), and the leader hears of any change
 * (a Secret edited or deleted by hand is checked and repaired at once, not at the next 12-hour check).
 */
import { createSecureContext } from "node:tls";
import type { KubeObject } from "@kyverno-ts/api";
import { createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import { readTlsSecret, type TlsData, type TlsSecretNames } from "./tls-secrets.js";

/** Options of `createTlsWatcher`. */
export interface TlsWatcherOptions {
  client: KubeClient;
  namespace: string;
  names: TlsSecretNames;
  logger: Logger;
}

/** The watched certificates; see `createTlsWatcher`. */
export interface TlsWatcher {
  /** Starts both informers; resolves once they have listed. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The stored serving pair, when it is a usable certificate and key. */
  serving(): TlsData | undefined;
  /** Resolves with the first usable pair, or undefined when `signal` aborts first. */
  whenServing(signal: AbortSignal): Promise<TlsData | undefined>;
  /** Called with each new usable pair; returns an unsubscribe function. */
  onServingChange(listener: (pair: TlsData) => void): () => void;
  /** Called when either Secret is added, changed or deleted; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}

function usable(data: TlsData | undefined): data is TlsData {
  if (data === undefined) return false;
  try {
    createSecureContext({ cert: data.certPem, key: data.keyPem });
    return true;
  } catch {
    return false;
  }
}

/** Creates the watcher (nothing is read until `start`). */
export function createTlsWatcher(options: TlsWatcherOptions): TlsWatcher {
  const { client, namespace, names, logger } = options;
  const secretInformer = (name: string): Informer<KubeObject> =>
    createInformer<KubeObject>({
      client,
      apiVersion: "v1",
      kind: "Secret",
      namespace,
      fieldSelector: `metadata.name=${name}`,
    });
  const caInformer = secretInformer(names.ca);
  const pairInformer = secretInformer(names.pair);
  const servingListeners = new Set<(pair: TlsData) => void>();
  const changeListeners = new Set<() => void>();
  let current: TlsData | undefined;

  const onPair = (secret: KubeObject): void => {
    const data = readTlsSecret(secret);
    if (!usable(data)) {
      logger.warn({ secret: names.pair }, "the serving certificate Secret does not hold a usable pair");
      return;
    }
    if (current && current.certPem === data.certPem && current.keyPem === data.keyPem) return;
    current = data;
    for (const listener of servingListeners) {
      try {
        listener(data);
      } catch (error) {
        logger.error({ err: error }, "serving certificate listener failed");
      }
    }
  };
  const changed = (): void => {
    for (const listener of changeListeners) {
      try {
        listener();
      } catch (error) {
        logger.error({ err: error }, "certificate Secret listener failed");
      }
    }
  };
  pairInformer.on("add", onPair);
  pairInformer.on("update", onPair);
  for (const informer of [caInformer, pairInformer]) {
    for (const event of ["add", "update", "delete"] as const) informer.on(event, changed);
    informer.on("error", (e) => {
      if (e.source !== "handler") logger.warn({ reason: e.failure.message }, "watching certificate Secrets");
    });
  }

  return {
    async start() {
      await Promise.all([caInformer.start(), pairInformer.start()]);
    },
    async stop() {
      await Promise.all([caInformer.stop(), pairInformer.stop()]);
    },
    serving: () => current,
    whenServing(signal) {
      if (current) return Promise.resolve(current);
      return new Promise((resolve) => {
        const done = (value: TlsData | undefined): void => {
          unsubscribe();
          signal.removeEventListener("abort", aborted);
          resolve(value);
        };
        const aborted = (): void => done(undefined);
        const unsubscribe = (() => {
          const listener = (pair: TlsData): void => done(pair);
          servingListeners.add(listener);
          return () => void servingListeners.delete(listener);
        })();
        if (signal.aborted) done(undefined);
        else signal.addEventListener("abort", aborted, { once: true });
      });
    },
    onServingChange(listener) {
      servingListeners.add(listener);
      return () => void servingListeners.delete(listener);
    },
    onChange(listener) {
      changeListeners.add(listener);
      return () => void changeListeners.delete(listener);
    },
  };
}

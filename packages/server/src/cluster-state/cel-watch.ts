/**
 * The informers of the `policies.kyverno.io` kinds a controller asked for, behind their CRDs: each
 * kind the server serves at `start` is watched (and `start` waits for it to list), a kind whose CRD
 * is installed later is watched from then on (`synced` does not wait for it). Their events go to the
 * CEL feed, which compiles them into the controller's CEL policy store.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { Clock, Informer, KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../logger.js";
import { CEL_POLICY_API_VERSION, type CelFeed, celPolicyObjectKey } from "./cel-feed.js";
import { createServedKinds } from "./served-kinds.js";

/** Creates an informer the cluster state logs the failures of. */
export type WatchFactory = (
  apiVersion: string,
  kind: string,
  scope?: { namespace?: string; fieldSelector?: string; labelSelector?: string },
) => Informer<KubeObject>;

/** Options of `createCelWatch`. */
export interface CelWatchOptions {
  client: KubeClient;
  logger: Logger;
  feed: CelFeed;
  watch: WatchFactory;
  /** The policy kinds to watch (`CEL_POLICY_KINDS` or a controller's share of them). */
  kinds: readonly string[];
  /** Whether CEL PolicyExceptions are watched, and where (undefined: every namespace). */
  exceptions: false | { namespace: string | undefined };
  /** Delays between looks at kinds whose CRD is not installed yet (default `SERVED_KINDS_BACKOFF`). */
  crdDelay?: (attempt: number) => number;
  clock?: Clock;
}

/** The CEL informers; see `createCelWatch`. */
export interface CelWatch {
  /** Asks discovery, then waits for the informers of the kinds served now to list. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** True once the informers created at `start` have listed. */
  synced(): boolean;
  /** True once the kind is watched and its informer has listed (false while its CRD is not seen yet). */
  kindSynced(kind: string): boolean;
  /** The stored object of a CEL policy key; null when the key is not a watched CEL policy kind's. */
  policyObject(key: string): KubeObject | undefined | null;
}

/** Registers the feed's handlers on one informer (policies or exceptions). */
function feedFrom(informer: Informer<KubeObject>, feed: CelFeed, exception: boolean): void {
  informer.on("add", exception ? feed.upsertException : feed.upsertPolicy);
  informer.on("update", exception ? feed.upsertException : feed.upsertPolicy);
  informer.on("delete", exception ? feed.removeException : feed.removePolicy);
}

/** Creates the watch (nothing is asked until `start`). */
export function createCelWatch(options: CelWatchOptions): CelWatch {
  const { logger, feed } = options;
  /** The informers by kind, created for the kinds the server serves (at `start` or when their CRD comes). */
  const informers = new Map<string, Informer<KubeObject>>();
  /** Those created at `start`, which `start` and `synced` wait for. */
  const atStart: Informer<KubeObject>[] = [];
  let stopping = false;

  const watchKind = (kind: string, later: boolean): void => {
    if (stopping || informers.has(kind)) return;
    const exception = kind === "PolicyException";
    const namespace = exception && options.exceptions !== false ? options.exceptions.namespace : undefined;
    const watched = options.watch(CEL_POLICY_API_VERSION, kind, namespace ? { namespace } : {});
    feedFrom(watched, feed, exception);
    informers.set(kind, watched);
    if (!later) {
      atStart.push(watched);
      return;
    }
    // A CRD installed after start: its policies come in as the informer lists them, each a change.
    logger.info({ kind, apiVersion: CEL_POLICY_API_VERSION }, "CRD installed: watching the kind");
    void watched.start();
  };

  const served = createServedKinds({
    client: options.client,
    apiVersion: CEL_POLICY_API_VERSION,
    kinds: [...options.kinds, ...(options.exceptions === false ? [] : ["PolicyException"])],
    logger,
    onServed: watchKind,
    ...(options.crdDelay === undefined ? {} : { delay: options.crdDelay }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });

  return {
    async start() {
      await served.start();
      await Promise.all(atStart.map((i) => i.start()));
    },
    async stop() {
      stopping = true;
      served.stop();
      await Promise.all([...informers.values()].map((i) => i.stop()));
    },
    synced: () => atStart.every((i) => i.hasSynced()),
    kindSynced: (kind) => informers.get(kind)?.hasSynced() === true,
    policyObject(key) {
      const [kind, ...rest] = key.split("/");
      const watched = kind === undefined ? undefined : informers.get(kind);
      if (watched === undefined || kind === "PolicyException") return null;
      const object =
        rest.length === 2 ? watched.get(rest[0], rest[1] ?? "") : watched.get(undefined, rest[0] ?? "");
      return object !== undefined && celPolicyObjectKey(object) === key ? object : undefined;
    },
  };
}

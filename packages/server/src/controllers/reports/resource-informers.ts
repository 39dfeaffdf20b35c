/**
 * One informer per kind that background policies match, added and removed as policies change. Kinds
 * are watched by name (as the policy cache indexes them); each is resolved to an apiVersion once per
 * change of the wanted set, and unresolvable kinds are retried at the next change or rescan. The
 * caches keep each resource in its compact form (`compact-object.ts`).
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { KindResolver, WatchableKind } from "../../cluster-state/kinds.js";
import type { Logger } from "../../logger.js";
import { type CompactObject, compactObject } from "./compact-object.js";

/** A watched kind and its informer. */
export interface WatchedKind extends WatchableKind {
  informer: Informer<CompactObject>;
}

/** What happened to a watched resource. */
export type ResourceEvent = "add" | "update" | "delete";

/** The set of resource informers; see `createResourceInformers`. */
export interface ResourceInformers {
  /**
   * Makes the watched kinds exactly `kinds` (informers for new ones start, those of dropped ones stop).
   * Calls are serialized; resolves when informers are started (not necessarily synced) and returns the
   * kinds that were dropped, with the objects their caches held. Kinds that could not be resolved
   * are only tried again with `retryUnresolved` (the controller passes it at each full scan).
   */
  sync(
    kinds: readonly string[],
    options?: { retryUnresolved?: boolean },
  ): Promise<Array<{ kind: WatchableKind; objects: CompactObject[] }>>;
  /** The watched kind of this name, if any. */
  get(kind: string): WatchedKind | undefined;
  /** Every watched kind. */
  all(): WatchedKind[];
  /** Kinds wanted but not watched (unknown to the server, or not listable). */
  unresolved(): string[];
  /** Resolves once every current informer has synced (or stopped). */
  synced(): Promise<void>;
  /** Stops every informer. */
  stop(): Promise<void>;
}

/** Options of `createResourceInformers`. */
export interface ResourceInformersOptions {
  client: KubeClient;
  kinds: Pick<KindResolver, "watchable">;
  logger: Logger;
  /** Called for every informer event (the initial list included). */
  onEvent: (event: ResourceEvent, object: CompactObject, kind: WatchedKind) => void;
  /** Informer retry delays (default: the kube package's exponential backoff). */
  delay?: (attempt: number) => number;
}

/** Creates the (empty) set; call `sync` with the wanted kinds. */
export function createResourceInformers(options: ResourceInformersOptions): ResourceInformers {
  const { client, logger } = options;
  const watched = new Map<string, WatchedKind>();
  const starting = new Map<string, Promise<void>>();
  let missing: string[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  let stopped = false;

  const watch = (kind: WatchableKind): void => {
    const informer = createInformer<CompactObject, KubeObject>({
      client,
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      transform: compactObject,
      ...(options.delay === undefined ? {} : { delay: options.delay }),
    });
    const entry: WatchedKind = { ...kind, informer };
    informer.on("add", (o) => options.onEvent("add", o, entry));
    informer.on("update", (o) => options.onEvent("update", o, entry));
    informer.on("delete", (o) => options.onEvent("delete", o, entry));
    let reported = false;
    informer.on("error", (e) => {
      if (e.source === "handler")
        logger.error({ kind: kind.kind, error: String(e.error) }, "event handler failed");
      else if (!reported) {
        reported = true; // once per informer; it keeps retrying with backoff
        logger.warn(
          { kind: kind.kind, reason: e.failure.reason, message: e.failure.message },
          "cannot watch",
        );
      }
    });
    informer.on("synced", () => {
      reported = false;
    });
    watched.set(kind.kind, entry);
    starting.set(kind.kind, informer.start());
  };

  const doSync = async (kinds: readonly string[], retryUnresolved: boolean) => {
    if (stopped) return [];
    const skip = retryUnresolved ? new Set<string>() : new Set(missing);
    const wanted = new Set(kinds);
    const dropped: Array<{ kind: WatchableKind; objects: CompactObject[] }> = [];
    for (const [name, entry] of watched) {
      if (wanted.has(name)) continue;
      watched.delete(name);
      starting.delete(name);
      await entry.informer.stop();
      dropped.push({ kind: entry, objects: entry.informer.list() });
      logger.info({ kind: name }, "stopped watching kind");
    }
    const unresolved: string[] = [];
    for (const name of wanted) {
      if (watched.has(name)) continue;
      if (skip.has(name)) {
        unresolved.push(name);
        continue;
      }
      const resolved = await options.kinds.watchable(name);
      if (!resolved.ok) {
        unresolved.push(name);
        logger.debug({ kind: name, reason: resolved.reason, message: resolved.message }, "kind not watched");
        continue;
      }
      if (stopped) break;
      watch(resolved.value);
      logger.info({ kind: name, apiVersion: resolved.value.apiVersion }, "watching kind");
    }
    missing = unresolved.sort();
    return dropped;
  };

  return {
    sync(kinds, syncOptions) {
      const next = chain.then(() => doSync(kinds, syncOptions?.retryUnresolved === true));
      chain = next.catch(() => undefined);
      return next;
    },
    get: (kind) => watched.get(kind),
    all: () => [...watched.values()],
    unresolved: () => [...missing],
    async synced() {
      await chain;
      await Promise.all(starting.values());
    },
    async stop() {
      stopped = true;
      await chain;
      const all = [...watched.values()];
      watched.clear();
      starting.clear();
      await Promise.all(all.map((w) => w.informer.stop()));
    },
  };
}

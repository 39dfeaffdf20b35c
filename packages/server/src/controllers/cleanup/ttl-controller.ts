/**
 * The TTL controller (upstream's `ttl` manager): every `--ttlReconciliationInterval` it finds the
 * kinds the server serves with `list`, `watch` and `delete` and that this controller may list, watch
 * and delete everywhere (a SelfSubjectAccessReview per verb), and keeps one informer per such kind on
 * objects carrying the `cleanup.kyverno.io/ttl` label. Each labelled object is queued for the time
 * its label gives and deleted then (propagation from `cleanup.kyverno.io/propagation-policy`, the uid
 * as precondition). A value that is neither a Go duration nor a time is logged once per object and
 * value (`failed to parse label`), never guessed; the TTL webhook warns about it at admission.
 */
import type { KubeObject } from "@kyverno-ts/api";
import {
  createInformer,
  createWorkQueue,
  type Informer,
  type KubeClient,
  type WorkQueue,
} from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import type { CleanupMetrics } from "./metrics.js";
import { TTL_LABEL } from "./ttl.js";
import { deleteExpired } from "./ttl-delete.js";
import { type AccessCheck, discoverTtlKinds, type TtlKind } from "./ttl-kinds.js";

export type { AccessCheck, TtlKind } from "./ttl-kinds.js";

/** The `controller_name` of the TTL queue. */
export const TTL_CONTROLLER_NAME = "ttl-controller";

/** Options of `createTtlController`. */
export interface TtlControllerOptions {
  client: KubeClient;
  clock: ServerClock;
  logger: Logger;
  metrics: CleanupMetrics;
  /** `--ttlReconciliationInterval` (upstream: 1m). */
  intervalMs: number;
  access: AccessCheck;
  workers?: number;
}

/** The controller; see `createTtlController`. */
export interface TtlController {
  /** Starts a term (this replica leads): discovery, informers and deletions until `signal` aborts. */
  lead(signal: AbortSignal): void;
  /** The kinds watched now (the webhook warns about labels on other kinds). */
  kinds(): TtlKind[];
  /** Resolves once the first discovery of the current term is done and its informers have listed. */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

/** One leadership term: its queue, informers and discovery timer. */
interface Term {
  queue: WorkQueue<string>;
  done: Promise<void>;
  informers: Map<string, { kind: TtlKind; informer: Informer<KubeObject> }>;
  cancel: () => void;
  first: Promise<void>;
}

/** Creates the controller (no I/O until `lead`). */
export function createTtlController(options: TtlControllerOptions): TtlController {
  const { client, clock, logger, metrics } = options;
  let term: Term | undefined;
  /** `uid\0value` of labels already reported as invalid. */
  const reported = new Set<string>();
  const discover = (signal: AbortSignal) => discoverTtlKinds(client, options.access, signal);
  const reconcile = (current: Term, key: string, signal: AbortSignal) =>
    deleteExpired({ client, clock, logger, metrics, reported }, current.informers, key, signal);

  const keyOf = (k: TtlKind, o: KubeObject) =>
    `${k.apiVersion}|${k.kind}|${o.metadata?.namespace ?? ""}|${o.metadata?.name ?? ""}`;

  const sync = async (current: Term, signal: AbortSignal): Promise<void> => {
    const wanted = await discover(signal);
    // The term may have ended while discovery ran: its informers are stopped, start no new one.
    if (signal.aborted || term !== current) return;
    const ids = new Set(wanted.map((k) => `${k.apiVersion}|${k.kind}`));
    for (const [id, entry] of current.informers)
      if (!ids.has(id)) {
        current.informers.delete(id);
        await entry.informer.stop();
      }
    if (signal.aborted || term !== current) return;
    const started: Promise<void>[] = [];
    for (const kind of wanted) {
      const id = `${kind.apiVersion}|${kind.kind}`;
      if (current.informers.has(id)) continue;
      const informer = createInformer<KubeObject>({
        client,
        apiVersion: kind.apiVersion,
        kind: kind.kind,
        labelSelector: TTL_LABEL,
        clock,
      });
      informer.on("add", (o) => current.queue.add(keyOf(kind, o)));
      informer.on("update", (o) => current.queue.add(keyOf(kind, o)));
      current.informers.set(id, { kind, informer });
      started.push(informer.start());
    }
    await Promise.all(started);
    logger.debug({ kinds: current.informers.size }, "TTL label watched");
  };

  let stopping: Promise<void> = Promise.resolve();
  const endTerm = (): Promise<void> => {
    const current = term;
    term = undefined;
    if (current !== undefined) {
      current.cancel();
      stopping = current.queue
        .shutdown({ drain: false })
        .then(() => current.done)
        .then(() => Promise.all([...current.informers.values()].map((e) => e.informer.stop())))
        .then(() => undefined);
    }
    return stopping;
  };

  return {
    lead(signal) {
      if (term !== undefined || signal.aborted) return;
      const queue = createWorkQueue<string>({
        name: TTL_CONTROLLER_NAME,
        clock,
        onReconcile: (e) => metrics.reconcile(e.controller),
        onRequeue: (e) => metrics.requeue(e.controller, e.retries),
        onDrop: (e) => metrics.drop(e.controller),
      });
      let cancelTimer = (): void => {};
      const current: Term = {
        queue,
        done: Promise.resolve(),
        informers: new Map(),
        cancel: () => cancelTimer(),
        first: Promise.resolve(),
      };
      current.done = queue.process(options.workers ?? 3, (key, ctx) => reconcile(current, key, ctx.signal));
      const round = async (): Promise<void> => {
        try {
          await sync(current, signal);
        } catch (error) {
          if (!signal.aborted)
            logger.warn({ err: error }, "TTL kinds not refreshed; retrying at the next interval");
        }
        if (!signal.aborted && term === current)
          cancelTimer = clock.after(options.intervalMs, () => void round());
      };
      current.first = round();
      term = current;
      signal.addEventListener("abort", () => void endTerm(), { once: true });
    },
    kinds: () => [...(term?.informers.values() ?? [])].map((e) => e.kind),
    ready: () => term?.first ?? Promise.resolve(),
    stop: endTerm,
  };
}

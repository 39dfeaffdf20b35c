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
  BUILTIN_RESOURCES,
  createInformer,
  createWorkQueue,
  type Informer,
  type KubeClient,
  type WorkQueue,
} from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import type { CleanupMetrics } from "./metrics.js";
import { propagationPolicyOf, TTL_LABEL, ttlDeletionTime } from "./ttl.js";

/** The `controller_name` of the TTL queue. */
export const TTL_CONTROLLER_NAME = "ttl-controller";

/** A kind the controller watches for the label. */
export interface TtlKind {
  apiVersion: string;
  kind: string;
  /** The plural resource name. */
  resource: string;
  namespaced: boolean;
}

/** Whether this controller may do `verb` on a resource everywhere (a SelfSubjectAccessReview). */
export type AccessCheck = (
  group: string,
  resource: string,
  verb: string,
  signal: AbortSignal,
) => Promise<boolean>;

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

const splitApiVersion = (apiVersion: string) => {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
};

/** The kinds worth asking about: the built-in table (preferred versions) and every CRD's served version. */
async function candidates(
  client: KubeClient,
  signal: AbortSignal,
): Promise<Array<{ apiVersion: string; kind: string }>> {
  const out = BUILTIN_RESOURCES.flatMap((b) =>
    b.apiVersions[0] ? [{ apiVersion: b.apiVersions[0], kind: b.kind }] : [],
  );
  const crds = await client.list({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    signal,
  });
  if (!crds.ok) throw new Error(`listing CustomResourceDefinitions: ${crds.message}`);
  for (const crd of crds.value.items) {
    const spec = crd.spec as {
      group?: string;
      names?: { kind?: string };
      versions?: Array<{ name?: string; served?: boolean; storage?: boolean }>;
    };
    const versions = (spec.versions ?? []).filter((v) => v.served !== false);
    const version = versions.find((v) => v.storage) ?? versions[0];
    if (spec.group && spec.names?.kind && version?.name)
      out.push({ apiVersion: `${spec.group}/${version.name}`, kind: spec.names.kind });
  }
  return out;
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
  const REQUIRED = ["list", "watch", "delete"];
  let term: Term | undefined;
  /** `uid\0value` of labels already reported as invalid. */
  const reported = new Set<string>();

  const discover = async (signal: AbortSignal): Promise<TtlKind[]> => {
    const found: TtlKind[] = [];
    for (const c of await candidates(client, signal)) {
      const info = await client.resource(c.apiVersion, c.kind, signal);
      if (!info.ok || info.value.name.includes("/") || !REQUIRED.every((v) => info.value.verbs.includes(v)))
        continue;
      const { group } = splitApiVersion(c.apiVersion);
      const allowed = await Promise.all(
        REQUIRED.map((verb) => options.access(group, info.value.name, verb, signal)),
      );
      if (allowed.every(Boolean))
        found.push({ ...c, resource: info.value.name, namespaced: info.value.namespaced });
    }
    return found;
  };

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

  const reconcile = async (current: Term, key: string, signal: AbortSignal) => {
    const [apiVersion = "", kindName = "", namespace = "", name = ""] = key.split("|");
    const entry = current.informers.get(`${apiVersion}|${kindName}`);
    const object = entry?.informer.get(namespace || undefined, name);
    if (entry === undefined || object === undefined || object.metadata?.deletionTimestamp) return undefined;
    const value = object.metadata?.labels?.[TTL_LABEL];
    if (value === undefined) return undefined;
    const created = Date.parse(String(object.metadata?.creationTimestamp ?? ""));
    const parsed = ttlDeletionTime(value, Number.isNaN(created) ? clock.now() : created);
    const id = { apiVersion, kind: kindName, namespace, name };
    if (!parsed.ok) {
      const seen = `${String(object.metadata?.uid ?? key)}\u0000${value}`;
      if (!reported.has(seen)) {
        if (reported.size > 10_000) reported.clear();
        reported.add(seen);
        logger.error({ ...id, value, message: parsed.message }, "failed to parse label");
      }
      return undefined;
    }
    const wait = parsed.deleteAtMs - clock.now();
    if (wait > 0) return { requeueAfterMs: wait };
    const propagation = propagationPolicyOf(object.metadata?.annotations);
    if (propagation.problem) logger.warn({ ...id, message: propagation.problem }, "propagation policy");
    const uid = object.metadata?.uid;
    const deleted = await client.delete(
      { apiVersion, kind: kindName, name, ...(namespace ? { namespace } : {}) },
      {
        ...(propagation.policy ? { propagationPolicy: propagation.policy } : {}),
        ...(typeof uid === "string" ? { preconditions: { uid } } : {}),
        signal,
      },
    );
    const { group, version } = splitApiVersion(apiVersion);
    const labels = { group, version, resource: entry.kind.resource, namespace };
    if (deleted.ok) {
      metrics.ttlDeleted(labels);
      logger.info({ ...id, ttl: value }, "resource has been deleted");
      return undefined;
    }
    if (deleted.status === 404 || deleted.status === 409) return undefined;
    metrics.ttlError(labels);
    logger.error({ ...id, reason: deleted.reason, message: deleted.message }, "failed to delete resource");
    return { error: new Error(deleted.message) };
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

/**
 * Deleting one labelled object once its TTL is over: the time from its `cleanup.kyverno.io/ttl` label
 * (a value that parses neither as a Go duration nor as a time is logged once per object and value),
 * propagation from its annotation, the uid as precondition; counted in the TTL metrics.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { Informer, KubeClient } from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import type { CleanupMetrics } from "./metrics.js";
import { propagationPolicyOf, TTL_LABEL, ttlDeletionTime } from "./ttl.js";
import { splitApiVersion, type TtlKind } from "./ttl-kinds.js";

/** What `deleteExpired` uses; `reported` holds `uid\0value` of labels already reported as invalid. */
export interface TtlDeleteDeps {
  client: KubeClient;
  clock: ServerClock;
  logger: Logger;
  metrics: CleanupMetrics;
  reported: Set<string>;
}

/**
 * Reconciles the queue key `apiVersion|kind|namespace|name`: deletes the object when its TTL is over,
 * asks to be called again when it is not yet, or reports the failed delete (retried by the queue).
 */
export async function deleteExpired(
  deps: TtlDeleteDeps,
  informers: ReadonlyMap<string, { kind: TtlKind; informer: Informer<KubeObject> }>,
  key: string,
  signal: AbortSignal,
): Promise<{ requeueAfterMs: number } | { error: Error } | undefined> {
  const { client, clock, logger, metrics, reported } = deps;
  const [apiVersion = "", kindName = "", namespace = "", name = ""] = key.split("|");
  const entry = informers.get(`${apiVersion}|${kindName}`);
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
}

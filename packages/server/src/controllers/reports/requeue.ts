/**
 * What the reports controller queues when something changes: a resource (informer events), every
 * resource of a kind (a policy that matches it changed), every resource whose report names a policy
 * (also those of kinds it no longer matches), everything (resource filters changed). And which kinds
 * are watched: those the background policies match, less those the resource filters leave out
 * everywhere.
 */
import { matchWildcard } from "@kyverno-ts/engine";
import type { ClusterChange } from "../../cluster-state/changes.js";
import type { CachedPolicy } from "../../policycache/policy-cache.js";
import type { ControllerState } from "./controller-state.js";
import { kindFilteredEverywhere } from "./filtered-kinds.js";
import { type ObjectIdentity, refOfObject, refOfScope, resourceKey } from "./resource-key.js";

/** Queues a key in the running term (dropped when none runs: the next term's full scan covers it). */
export function enqueue(s: ControllerState, key: string): void {
  s.term?.queue.add(key);
}

/** Queues a key named by admission: kept for the next term when none runs (bounded). */
export function enqueueAdmitted(s: ControllerState, key: string): void {
  if (s.term !== undefined) s.term.queue.add(key);
  else if (s.pendingKeys.size < s.maxPending) s.pendingKeys.add(key);
}

/** Queues a resource of a watched kind. */
export function enqueueObject(
  s: ControllerState,
  object: ObjectIdentity,
  kind: { apiVersion: string; kind: string },
): void {
  const ref = refOfObject(object, kind.apiVersion, kind.kind);
  if (ref !== undefined) enqueue(s, resourceKey(ref));
}

/** Queues every resource of a watched kind (by name). */
function enqueueKind(s: ControllerState, name: string): void {
  const watched = s.informers.get(name);
  if (watched !== undefined) for (const o of watched.informer.list()) enqueueObject(s, o, watched);
}

/** Queues the resource of every known report. */
export function enqueueReports(s: ControllerState, mentioning?: string): void {
  for (const entry of s.index.entries()) {
    if (mentioning !== undefined && !entry.policies.includes(mentioning)) continue;
    const ref = refOfScope(entry.scope);
    if (ref !== undefined) enqueue(s, resourceKey(ref));
  }
}

/** Kinds to watch: those of background validate policies and CEL policies, less the filtered ones. */
function wantedKinds(s: ControllerState): string[] {
  const kinds = new Set<string>(s.celReports.kinds());
  for (const p of s.cache.policies()) {
    if (!p.policy.spec.background || !p.types.validate) continue;
    for (const k of p.kinds) if (k !== "*") kinds.add(k);
  }
  // Kinds the resource filters leave out everywhere get no report: not watched at all.
  const config = s.cluster.config();
  return [...kinds].filter((k) => !kindFilteredEverywhere(config, k)).sort();
}

/**
 * Makes the informers watch the wanted kinds; what the caches of dropped kinds held is queued (their
 * reports go). `retryUnresolved`: try kinds that could not be resolved before again.
 */
export async function syncKinds(s: ControllerState, retryUnresolved = false): Promise<void> {
  try {
    for (const dropped of await s.informers.sync(wantedKinds(s), { retryUnresolved }))
      for (const o of dropped.objects) enqueueObject(s, o, dropped.kind);
  } catch (error) {
    s.logger.error({ error: String(error) }, "cannot update the watched kinds");
  }
}

/** A classic policy changed: watch its kinds, requeue what it matched and matches, and its reports. */
function onPolicy(
  s: ControllerState,
  key: string,
  before: CachedPolicy | undefined,
  after: CachedPolicy | undefined,
): void {
  if (after?.kinds[0] === "*" && after.policy.spec.background && !s.warnedAnyKind.has(key)) {
    s.warnedAnyKind.add(key);
    s.logger.warn(
      { policy: key },
      "wildcard policy not allowed in background mode: not scanned (as upstream; set spec.background=false)",
    );
  }
  void syncKinds(s);
  for (const k of new Set([...(before?.kinds ?? []), ...(after?.kinds ?? [])])) enqueueKind(s, k);
  enqueueReports(s, key);
}

/** Requeues what a change of the cluster state (policies, exceptions, namespaces, config) affects. */
export function onClusterChange(s: ControllerState, change: ClusterChange): void {
  if (change.type === "policy") onPolicy(s, change.key, change.before, change.after);
  else if (change.type === "celPolicy" || change.type === "celException") {
    void syncKinds(s);
    for (const k of s.celReports.kinds()) enqueueKind(s, k);
    // Reports name a CEL policy `name` (`namespace/name` when namespaced): the key without its kind.
    if (change.type === "celPolicy") enqueueReports(s, change.key.slice(change.key.indexOf("/") + 1));
  } else if (change.type === "exception") {
    for (const p of s.cache.policies()) {
      if (!change.policyNames.some((n) => matchWildcard(n, p.key))) continue;
      for (const k of p.kinds) enqueueKind(s, k);
      enqueueReports(s, p.key);
    }
  } else if (change.type === "namespace") {
    for (const w of s.informers.all())
      for (const o of w.informer.list(change.namespace)) enqueueObject(s, o, w);
  } else if (change.type === "config") {
    // Resource filters changed: every resource may gain or lose its report, and kinds filtered
    // everywhere are watched or not (a kind no longer watched requeues what its cache held).
    void syncKinds(s);
    for (const w of s.informers.all()) for (const o of w.informer.list()) enqueueObject(s, o, w);
    enqueueReports(s);
  }
}

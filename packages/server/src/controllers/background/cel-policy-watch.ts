/**
 * The CEL policies the background controller processes (GeneratingPolicies and mutate-existing
 * MutatingPolicies, cluster-wide and namespaced): their kinds are watched when their CRDs are
 * installed (at start or later) and compiled into the controller's CEL policy store with the CEL
 * PolicyExceptions of the accepted namespaces (when exceptions are enabled), so an exempted trigger
 * gets no background work either. Every load, failure and removal is announced by its store key.
 * Also: the existing triggers of a policy (`existingTriggers`), for generateExisting and
 * mutateExisting.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { matchWildcard } from "@kyverno-ts/engine";
import { type Clock, createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import { CEL_POLICY_API_VERSION, createCelFeed } from "../../cluster-state/cel-feed.js";
import { createServedKinds, type ServedKinds } from "../../cluster-state/served-kinds.js";
import type { Logger } from "../../logger.js";
import type { CachedCelPolicy, CelPolicyStore } from "../../policycache/cel-policy-store.js";
import { kindOfResource } from "./resource-data.js";

/** The policy kinds the background controller watches. */
export const BACKGROUND_CEL_KINDS = [
  "GeneratingPolicy",
  "NamespacedGeneratingPolicy",
  "MutatingPolicy",
  "NamespacedMutatingPolicy",
] as const;

/** Options of `createCelPolicyWatch`. */
export interface CelPolicyWatchOptions {
  client: KubeClient;
  store: CelPolicyStore;
  logger: Logger;
  /** Namespaces CEL PolicyExceptions are accepted from, with wildcards (none: not watched). */
  exceptionNamespaces?: readonly string[];
  /** For the wait on CRDs installed after start. */
  clock?: Clock;
  /** A policy was loaded, changed, failed to load or went (its store key). */
  onChange: (key: string) => void;
}

/** The watch; see the module comment. */
export interface CelPolicyWatch {
  /** Starts the informers; resolves once the policy kinds served at start have listed. */
  start(): Promise<void>;
  synced(): boolean;
  stop(): Promise<void>;
}

/** Creates the watch (nothing runs before `start()`). */
export function createCelPolicyWatch(options: CelPolicyWatchOptions): CelPolicyWatch {
  const { client, logger } = options;
  const exceptionNamespaces = options.exceptionNamespaces ?? [];
  const policyInformers: Informer<KubeObject>[] = [];
  let exceptionInformer: Informer<KubeObject> | undefined;
  let served: ServedKinds | undefined;
  let stopped = false;
  let revision = 0;
  const feed = createCelFeed({
    store: options.store,
    logger,
    acceptsExceptionsFrom: (ns) => exceptionNamespaces.some((p) => matchWildcard(p, ns)),
    nextRevision: () => ++revision,
    emit: (change) => {
      if (change.type === "celPolicy") options.onChange(change.key);
    },
  });

  /** The informer of one CEL kind, feeding the store (policies) or the exceptions. */
  const watchCelKind = (kind: string): Informer<KubeObject> => {
    const [only] = exceptionNamespaces;
    const namespace =
      kind === "PolicyException" && exceptionNamespaces.length === 1 && only && !/[*?]/.test(only)
        ? only
        : undefined;
    const informer = createInformer<KubeObject>({
      client,
      apiVersion: CEL_POLICY_API_VERSION,
      kind,
      ...(namespace ? { namespace } : {}),
    });
    const exception = kind === "PolicyException";
    informer.on("add", exception ? feed.upsertException : feed.upsertPolicy);
    informer.on("update", exception ? feed.upsertException : feed.upsertPolicy);
    informer.on("delete", exception ? feed.removeException : feed.removePolicy);
    informer.on("error", (e) => {
      if (e.source !== "handler") logger.warn({ watch: kind, reason: e.failure.reason }, "cannot watch");
    });
    if (exception) exceptionInformer = informer;
    else policyInformers.push(informer);
    return informer;
  };

  return {
    async start() {
      const kinds: string[] = [...BACKGROUND_CEL_KINDS];
      if (exceptionNamespaces.length > 0) kinds.push("PolicyException");
      served = createServedKinds({
        client,
        apiVersion: CEL_POLICY_API_VERSION,
        kinds,
        logger,
        ...(options.clock ? { clock: options.clock } : {}),
        onServed: (kind, later) => {
          if (stopped) return;
          const informer = watchCelKind(kind);
          // Exceptions and kinds whose CRD came later are not waited for (a missing grant, or a
          // controller already running, must not be held up).
          if (later || kind === "PolicyException") void informer.start();
        },
      });
      await served.start();
      await Promise.all(policyInformers.map((i) => i.start()));
    },
    synced: () => policyInformers.every((i) => i.hasSynced()),
    async stop() {
      stopped = true;
      served?.stop();
      const all = [...policyInformers];
      if (exceptionInformer) all.push(exceptionInformer);
      await Promise.all(all.map((i) => i.stop()));
    },
  };
}

/**
 * The existing objects of a policy's resource rules (in its namespace when namespaced): the
 * candidates of generateExisting and mutateExisting, which the caller evaluates. Rules with wildcards
 * or subresources, resources the server does not serve and failed lists are logged and left out.
 */
export async function existingTriggers(
  client: KubeClient,
  policy: CachedCelPolicy,
  logger: Logger,
): Promise<Array<{ object: KubeObject; apiVersion: string; kind: string }>> {
  const out: Array<{ object: KubeObject; apiVersion: string; kind: string }> = [];
  for (const rule of policy.compiled.resourceRules)
    for (const group of rule.apiGroups ?? [""])
      for (const version of rule.apiVersions ?? [])
        for (const resource of rule.resources ?? []) {
          const apiVersion = group ? `${group}/${version}` : version;
          const where = { policy: policy.key, apiVersion, resource };
          if ([group, version, resource].some((s) => s.includes("*") || s.includes("/"))) {
            logger.warn(where, "existing resources of this resource rule cannot be listed");
            continue;
          }
          const kind = await kindOfResource(client, apiVersion, resource, new AbortController().signal);
          if (kind === undefined) {
            logger.warn(where, "existing triggers not listed: the server does not serve this resource");
            continue;
          }
          const namespace = policy.compiled.namespace;
          const listed = await client.list<KubeObject>({
            apiVersion,
            kind,
            ...(namespace ? { namespace } : {}),
          });
          if (!listed.ok) {
            logger.error({ ...where, message: listed.message }, "cannot list existing triggers");
            continue;
          }
          for (const object of listed.value.items) out.push({ object, apiVersion, kind });
        }
  return out;
}

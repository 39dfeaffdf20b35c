/**
 * What mutate-existing MutatingPolicy changes ask of the background controller (leader only): when
 * one is loaded or its spec changes (and when a new leader starts), each existing trigger it matches
 * gets a `cel-mutate` UpdateRequest, so existing resources are mutated without being recreated or
 * updated (upstream's `mutateExisting.enabled`, as `mutateExistingOnPolicyUpdate` for classic rules).
 */
import type { CelEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import type { CachedCelPolicy, CelPolicyStore } from "../../policycache/cel-policy-store.js";
import { celMutateIntent } from "./cel-mutate.js";
import type { IntentSink } from "./downstream-watch.js";
import { existingTriggers } from "./existing-triggers.js";

/** Options of `createCelMutating`. */
export interface CelMutatingOptions {
  client: KubeClient;
  store: CelPolicyStore;
  engine: CelEngine;
  logger: Logger;
  intents: IntentSink;
  isLeader: () => boolean;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
}

/** The reactions; see the module comment. */
export interface CelMutating {
  /** A CEL policy was loaded, changed, failed to load or went (its store key). */
  changed(key: string): Promise<void>;
  leaderStarted(): Promise<void>;
}

const mutatesExisting = (policy: CachedCelPolicy | undefined): policy is CachedCelPolicy =>
  policy !== undefined && policy.compiled.type === "mutate" && policy.compiled.mutateExisting;

/** Creates the reactions. */
export function createCelMutating(options: CelMutatingOptions): CelMutating {
  const { client, store, engine, logger, intents } = options;

  /** UpdateRequests for the existing triggers of a mutate-existing policy. */
  const applyToExisting = async (policy: CachedCelPolicy): Promise<void> => {
    let offered = 0;
    for (const { object, apiVersion, kind } of await existingTriggers(client, policy, logger)) {
      const namespace = object.metadata?.namespace ?? "";
      const labels = namespace ? options.namespaceLabels(namespace) : undefined;
      const request = {
        resource: object,
        operation: "CREATE" as const,
        ...(labels ? { namespaceLabels: labels } : {}),
      };
      const trigger = {
        apiVersion: object.apiVersion ?? apiVersion,
        kind: object.kind ?? kind,
        namespace,
        name: object.metadata?.name ?? "",
        uid: String(object.metadata?.uid ?? ""),
      };
      const intent = celMutateIntent(engine, policy, request, trigger, { operation: "CREATE" });
      if (intent !== undefined && intents.add(intent)) offered++;
    }
    logger.info({ policy: policy.key, updateRequests: offered }, "policy applied to existing resources");
  };

  const apply = (policy: CachedCelPolicy): Promise<void> =>
    applyToExisting(policy).catch((error: unknown) =>
      logger.error({ policy: policy.key, err: error }, "cannot apply a policy to existing resources"),
    );

  return {
    async changed(key) {
      const policy = store.get(key);
      if (!options.isLeader() || !mutatesExisting(policy)) return;
      await apply(policy);
    },
    async leaderStarted() {
      for (const policy of store.policies()) {
        if (!options.isLeader()) return;
        if (mutatesExisting(policy)) await apply(policy);
      }
    },
  };
}

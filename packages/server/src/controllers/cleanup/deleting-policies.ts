/**
 * DeletingPolicies in the cleanup controller: they run once both their CRDs are installed, at start or
 * later (a served-kinds watch, no restart needed); a leader elected before the CRDs came leads them
 * from then on.
 */
import type { CelEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import { createServedKinds } from "../../cluster-state/served-kinds.js";
import type { Logger } from "../../logger.js";
import { DELETING_API_VERSION, DELETING_KINDS, runDeletingPolicy } from "./deleting-run.js";
import type { CleanupEvents } from "./events.js";
import type { CleanupMetrics } from "./metrics.js";
import { createPolicyController } from "./policy-controller.js";

/** The DeletingPolicy controller behind its CRDs; see `createDeletingPolicies`. */
export interface DeletingPolicies {
  /** Starts watching for the CRDs; resolves once it is known whether they are served. */
  watch(): Promise<void>;
  /** Starts the controller's informers when the CRDs are served (else resolves at once). */
  start(): Promise<void>;
  /** Leads for one term (from when the CRDs are served). */
  lead(signal: AbortSignal): void;
  /** Stops watching for the CRDs. */
  stopWatching(): void;
  /** Stops the controller. */
  stop(): Promise<void>;
}

/** Creates the DeletingPolicy controller and the watch for its CRDs. */
export function createDeletingPolicies(options: {
  client: KubeClient;
  clock: ServerClock;
  logger: Logger;
  metrics: CleanupMetrics;
  cel: CelEngine;
  events: CleanupEvents;
}): DeletingPolicies {
  const { client, clock, logger, metrics, cel, events } = options;
  const deleting = createPolicyController({
    client,
    clock,
    logger,
    metrics,
    kinds: DELETING_KINDS.map((kind) => ({ apiVersion: DELETING_API_VERSION, kind })),
    name: "deleting-controller",
    run: (policy, s) => runDeletingPolicy({ client, cel, metrics, events, logger }, policy, s),
  });
  let served = false;
  let term: AbortSignal | undefined;
  const kinds = createServedKinds({
    client,
    clock,
    apiVersion: DELETING_API_VERSION,
    kinds: DELETING_KINDS,
    logger,
    onServed: (_kind, later) => {
      if (!later || served || kinds.missing().length > 0) return;
      served = true;
      logger.info({ kinds: DELETING_KINDS }, "CRDs installed: running DeletingPolicies");
      void deleting.start();
      if (term !== undefined && !term.aborted) deleting.lead(term);
    },
  });
  return {
    async watch() {
      await kinds.start();
      served = kinds.missing().length === 0;
    },
    start: () => (served ? deleting.start() : Promise.resolve()),
    lead(s) {
      term = s;
      if (served) deleting.lead(s);
    },
    stopWatching: () => kinds.stop(),
    stop: () => deleting.stop(),
  };
}

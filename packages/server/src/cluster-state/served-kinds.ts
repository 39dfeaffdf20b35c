/**
 * Kinds whose CustomResourceDefinitions may be installed after a controller started (the
 * `policies.kyverno.io` CRDs of the kyverno-ts-crds chart, installed before or after kyverno-ts):
 * discovery is asked once at start, and the kinds it does not serve yet are asked again on a backoff
 * until it serves them, each handed to `onServed` once. One round is one discovery request (the
 * client coalesces the lookups of one group-version), and no extra RBAC is needed.
 */
import { type Clock, exponentialBackoff, type KubeClient, systemClock } from "@kyverno-ts/kube";
import type { Logger } from "../logger.js";

/** Options of `createServedKinds`. */
export interface ServedKindsOptions {
  client: KubeClient;
  /** The group-version the kinds are served under. */
  apiVersion: string;
  kinds: readonly string[];
  logger: Logger;
  /** Called once for each kind when discovery serves it: at `start`, or `later` (its CRD came after). */
  onServed: (kind: string, later: boolean) => void;
  /**
   * Delay before the n-th (from 1) new look at the kinds not served yet (default: 1 s doubling to
   * 15 s, jittered, then every ~15 s: a CRD installed later is picked up within about 15 s).
   */
  delay?: (attempt: number) => number;
  clock?: Clock;
}

/** The kinds of one group-version being waited for; see `createServedKinds`. */
export interface ServedKinds {
  /**
   * Asks discovery once and calls `onServed` for the kinds it serves (and for those it could not be
   * asked about: their informers retry on their own); then keeps waiting for the others in the
   * background. Resolves after that first answer.
   */
  start(): Promise<void>;
  /** Kinds not served yet. */
  missing(): string[];
  /** Stops waiting. */
  stop(): void;
}

/** The default delays between looks at the kinds not served yet. */
export const SERVED_KINDS_BACKOFF = exponentialBackoff({ initialMs: 1000, maxMs: 15000, jitter: 0.2 });

/** Creates the watch (nothing is asked until `start`). */
export function createServedKinds(options: ServedKindsOptions): ServedKinds {
  const { client, apiVersion, logger } = options;
  const clock = options.clock ?? systemClock;
  const delay = options.delay ?? SERVED_KINDS_BACKOFF;
  const missing = new Set(options.kinds);
  const stopped = new AbortController();

  /** One look at the missing kinds. */
  const look = async (later: boolean): Promise<void> => {
    const kinds = [...missing];
    const answers = await Promise.all(kinds.map((kind) => client.resource(apiVersion, kind, stopped.signal)));
    kinds.forEach((kind, i) => {
      const answer = answers[i];
      if (stopped.signal.aborted || (answer !== undefined && !answer.ok && answer.reason === "UnknownKind"))
        return;
      missing.delete(kind);
      options.onServed(kind, later);
    });
  };

  const wait = (ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      if (stopped.signal.aborted) return resolve(false);
      const onAbort = (): void => {
        cancel();
        resolve(false);
      };
      const cancel = clock.after(ms, () => {
        stopped.signal.removeEventListener("abort", onAbort);
        resolve(true);
      });
      stopped.signal.addEventListener("abort", onAbort, { once: true });
    });

  const keepLooking = async (): Promise<void> => {
    for (let attempt = 1; missing.size > 0; attempt++) {
      if (!(await wait(delay(attempt)))) return;
      const before = missing.size;
      await look(true);
      if (missing.size < before) attempt = 0;
    }
  };

  return {
    async start() {
      await look(false);
      if (missing.size === 0 || stopped.signal.aborted) return;
      logger.warn(
        { apiVersion, kinds: [...missing] },
        "kinds not served (CRDs not installed): watched as soon as their CRDs are installed",
      );
      void keepLooking().catch((error: unknown) =>
        logger.error({ err: error, apiVersion }, "waiting for CRDs failed"),
      );
    },
    missing: () => [...missing],
    stop: () => stopped.abort(),
  };
}

/**
 * `createLeaderElector`: client-go's leader election on a `coordination.k8s.io/v1` Lease.
 *
 * - Writes are conditional (the Lease's resourceVersion); a 409 means someone else wrote first: retry later.
 * - Another holder's lease counts as expired only after this replica has seen the same record, unchanged,
 *   for the lease duration by its own clock (never by comparing clocks across machines).
 * - The leader renews every retry period and stops leading (aborting the signal given to
 *   `onStartedLeading`, then calling `onStoppedLeading`) once `renewDeadline` has passed since the start
 *   of its last successful renewal, by a timer, even while a request hangs. As `renewDeadline` is shorter
 *   than the lease duration, a replica that takes over an unrenewed lease does so only after the old
 *   leader has stopped: never two leaders, given clocks that run at the same rate.
 * - After losing the lease it campaigns again; `release()` stops campaigning and, when leading, steps
 *   down first and then empties the Lease's holder so another replica takes over at once.
 */

import { type Clock, sleep, systemClock } from "@kyverno-ts/api";
import type { KubeClient } from "../client/client.js";
import type { ApiFailure } from "../client/types.js";
import { type LeaderRecord, type Lease, leaseWith, microTime, recordOf, sameRecord } from "./lease.js";

/** Options of `createLeaderElector`; durations default to upstream Kyverno's 12 s / 10 s / 2 s. */
export interface LeaderElectorOptions {
  client: KubeClient;
  namespace: string;
  /** The Lease's name, e.g. `kyverno-reports-controller`. */
  name: string;
  /** This replica's identity (the Pod name, usually). */
  identity: string;
  /** How long a lease holds without renewal (default 12000 ms). */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it steps down (default 10000 ms). */
  renewDeadlineMs?: number;
  /** Wait between attempts (default 2000 ms; candidates add up to 20 % jitter). */
  retryPeriodMs?: number;
  clock?: Clock;
  /** This replica became leader; `signal` aborts when it stops leading. */
  onStartedLeading?: (signal: AbortSignal) => void;
  /** This replica stopped leading (lost the lease, or `release()`; awaited before the lease is released). */
  onStoppedLeading?: () => void | Promise<void>;
  /** The observed holder changed (including to this replica). */
  onNewLeader?: (identity: string) => void;
  /** A request failed for another reason than a lost race (a 409). */
  onError?: (failure: ApiFailure) => void;
}

/** Campaigns for one Lease; create with `createLeaderElector`. */
export interface LeaderElector {
  /** Starts campaigning (and renewing once leader) until `release()`; an elector runs once. */
  start(): void;
  /** Stops campaigning; if leading, steps down and hands the lease back. Resolves when done. */
  release(): Promise<void>;
  /** True while this replica leads: check it before each leader-only write. */
  isLeader(): boolean;
  /** The last observed holder (`undefined` before the first observation or when nobody holds it). */
  leader(): string | undefined;
}

interface Observed {
  lease: Lease;
  record: LeaderRecord;
  /** When this replica first saw `record` (its own clock). */
  at: number;
}

interface Leading {
  /** Start of the last successful acquire/renew request. */
  renewedAt: number;
  abort: AbortController;
  cancelDeadline: () => void;
}

/** Runs a callback; neither a throw nor a rejected promise may stop the election. */
function safely(callback: () => unknown): void {
  try {
    const result = callback();
    if (result instanceof Promise) result.catch(() => undefined);
  } catch {
    // ignored, as above
  }
}

/** The lease duration, renew deadline and retry period, checked against each other. */
function timingsOf(options: LeaderElectorOptions): {
  leaseMs: number;
  renewDeadlineMs: number;
  retryMs: number;
} {
  const leaseMs = options.leaseDurationMs ?? 12000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10000;
  const retryMs = options.retryPeriodMs ?? 2000;
  if (!(leaseMs > renewDeadlineMs))
    throw new Error("leader election: leaseDurationMs must exceed renewDeadlineMs");
  if (!(renewDeadlineMs > retryMs * 1.2))
    throw new Error("leader election: renewDeadlineMs must exceed retryPeriodMs × 1.2");
  if (options.identity === "") throw new Error("leader election: identity is required");
  return { leaseMs, renewDeadlineMs, retryMs };
}

/** This replica's view of the Lease and the conditional writes on it; see `createLeaseAccess`. */
interface LeaseAccess {
  /**
   * One attempt to acquire or renew, as client-go's `tryAcquireOrRenew`; `renewing`: this replica
   * leads, so a Lease it wrote last is updated without reading it first.
   */
  tryAcquireOrRenew(now: number, renewing: boolean, signal: AbortSignal): Promise<boolean>;
  /** Empties the holder of a lease this replica holds (one retry after a conflict). */
  handBack(): Promise<void>;
  /** Forgets that the observed Lease is this replica's own last write (read it before the next update). */
  stale(): void;
  /** The last observed holder. */
  leader(): string | undefined;
}

/** The Lease as this replica last saw it, read and written conditionally. */
function createLeaseAccess(options: LeaderElectorOptions, leaseMs: number, clock: Clock): LeaseAccess {
  const { client, namespace, name, identity } = options;
  const ref = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", namespace, name };
  let observed: Observed | undefined;
  let reportedLeader: string | undefined;
  let fresh = false; // `observed` is the lease as this replica last wrote it: update without reading

  const observe = (lease: Lease): void => {
    const record = recordOf(lease);
    const at = observed !== undefined && sameRecord(observed.record, record) ? observed.at : clock.now();
    observed = { lease, record, at };
    const holder = record.holderIdentity === "" ? undefined : record.holderIdentity;
    if (holder !== reportedLeader) {
      reportedLeader = holder;
      if (holder !== undefined) safely(() => options.onNewLeader?.(holder));
    }
  };

  const failed = (failure: ApiFailure): false => {
    fresh = false;
    if (failure.status !== 409 && failure.reason !== "Aborted") safely(() => options.onError?.(failure));
    return false;
  };

  const heldByOther = (o: Observed): boolean => {
    const holder = o.record.holderIdentity;
    if (holder === "" || holder === identity) return false;
    const duration = Math.max(leaseMs, o.record.leaseDurationSeconds * 1000);
    return clock.now() < o.at + duration;
  };

  /** Reads the Lease (creating it when there is none: then acquired); undefined to go on with `observed`. */
  const read = async (record: LeaderRecord, signal: AbortSignal): Promise<boolean | undefined> => {
    const got = await client.get<Lease>(ref, { signal });
    if (!got.ok && got.status === 404 && got.reason === "NotFound") {
      const created = await client.create(leaseWith(namespace, name, record), { signal });
      if (!created.ok) return failed(created);
      observe(created.value);
      fresh = true;
      return true;
    }
    if (!got.ok) return failed(got);
    observe(got.value);
    return undefined;
  };

  return {
    async tryAcquireOrRenew(now, renewing, signal) {
      const record: LeaderRecord = {
        holderIdentity: identity,
        leaseDurationSeconds: Math.ceil(leaseMs / 1000),
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      };
      if (!(fresh && renewing && observed !== undefined)) {
        const done = await read(record, signal);
        if (done !== undefined) return done;
      }
      const current = observed as Observed;
      if (heldByOther(current)) return false;
      if (current.record.holderIdentity === identity) {
        record.acquireTime = current.record.acquireTime;
        record.leaseTransitions = current.record.leaseTransitions;
      } else record.leaseTransitions = current.record.leaseTransitions + 1;
      const updated = await client.update(leaseWith(namespace, name, record, current.lease), { signal });
      if (!updated.ok) return failed(updated);
      observe(updated.value);
      fresh = true;
      return true;
    },
    async handBack() {
      for (let attempt = 0; attempt < 2; attempt++) {
        if (observed === undefined || observed.record.holderIdentity !== identity) return;
        const now = microTime(clock.now());
        const record: LeaderRecord = {
          holderIdentity: "",
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: observed.record.leaseTransitions,
        };
        const updated = await client.update(leaseWith(namespace, name, record, observed.lease));
        if (updated.ok) return observe(updated.value);
        if (updated.status !== 409) return void failed(updated);
        const got = await client.get<Lease>(ref);
        if (!got.ok) return void failed(got);
        observe(got.value);
      }
    },
    stale() {
      fresh = false;
    },
    leader: () => reportedLeader,
  };
}

/** Creates an elector; call `start()` to campaign and `release()` on shutdown. */
export function createLeaderElector(options: LeaderElectorOptions): LeaderElector {
  const clock = options.clock ?? systemClock;
  const { leaseMs, renewDeadlineMs, retryMs } = timingsOf(options);
  const lease = createLeaseAccess(options, leaseMs, clock);
  let leading: Leading | undefined;
  let loop: { abort: AbortController; done: Promise<void> } | undefined;
  let releasing: Promise<void> | undefined;

  const stopLeading = (): boolean => {
    const current = leading;
    if (current === undefined) return false;
    leading = undefined;
    lease.stale();
    current.cancelDeadline();
    current.abort.abort();
    return true;
  };

  const lose = (): void => {
    if (stopLeading()) safely(() => options.onStoppedLeading?.());
  };

  const renewed = (at: number): void => {
    const deadline = at + renewDeadlineMs;
    if (leading !== undefined) {
      leading.cancelDeadline();
      leading.renewedAt = at;
      leading.cancelDeadline = clock.after(deadline - clock.now(), lose);
      return;
    }
    const abort = new AbortController();
    leading = { renewedAt: at, abort, cancelDeadline: clock.after(deadline - clock.now(), lose) };
    safely(() => options.onStartedLeading?.(abort.signal));
  };

  const campaign = async (signal: AbortSignal): Promise<void> => {
    while (!signal.aborted) {
      const start = clock.now();
      const limit = leading === undefined ? renewDeadlineMs : leading.renewedAt + renewDeadlineMs - start;
      const attempt = new AbortController();
      const cancelTimeout = clock.after(limit, () => attempt.abort());
      const ok = await lease.tryAcquireOrRenew(
        start,
        leading !== undefined,
        AbortSignal.any([signal, attempt.signal]),
      );
      cancelTimeout();
      if (signal.aborted) break;
      if (ok && clock.now() < start + renewDeadlineMs) renewed(start);
      else if (leading !== undefined && clock.now() >= leading.renewedAt + renewDeadlineMs) lose();
      const wait = leading === undefined ? retryMs * (1 + 0.2 * Math.random()) : retryMs;
      await sleep(clock, wait, signal);
    }
  };

  return {
    start() {
      if (loop !== undefined || releasing !== undefined) return;
      const abort = new AbortController();
      loop = { abort, done: campaign(abort.signal) };
    },
    release() {
      releasing ??= (async () => {
        const current = loop;
        current?.abort.abort();
        await current?.done;
        if (stopLeading()) {
          try {
            await options.onStoppedLeading?.();
          } catch {
            // stepping down failed; the lease is handed back regardless
          }
          await lease.handBack();
        }
      })();
      return releasing;
    },
    isLeader: () => leading !== undefined && clock.now() < leading.renewedAt + renewDeadlineMs,
    leader: lease.leader,
  };
}

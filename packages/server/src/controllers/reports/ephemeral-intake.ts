/**
 * The reports controller's side of the cross-process hand-over (see `reports/ephemeral-reports.ts`):
 * every replica watches the ephemeral reports the admission controller writes and merges their
 * results into its admission result store; once the leader has written a resource's report, it
 * deletes the ephemeral report it merged (only that version: a newer one is merged first). A crash in
 * between loses nothing: the ephemeral report is still there and is merged again after the restart.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createInformer, type Informer, type KubeClient } from "@kyverno-ts/kube";
import type { Logger } from "../../logger.js";
import {
  asEphemeralReport,
  EPHEMERAL_REPORT_API_VERSION,
  EPHEMERAL_SELECTOR,
  type EphemeralReport,
} from "../../reports/ephemeral-reports.js";

/** Options of `createEphemeralIntake`. */
export interface EphemeralIntakeOptions {
  client: KubeClient;
  logger: Logger;
  /** A new or changed ephemeral report: merge its results and requeue its resource. */
  onReport: (report: EphemeralReport) => void;
  delay?: (attempt: number) => number;
}

/** The watchers and the deletions they owe; see `createEphemeralIntake`. */
export interface EphemeralIntake {
  /** Starts watching (does not wait for the lists: a missing CRD must not hold the controller up). */
  start(): void;
  stop(): Promise<void>;
  /** The ephemeral report merged for resource `uid` so far (take it before reconciling the resource). */
  owed(uid: string): OwedDeletion | undefined;
  /** The resource's report now holds what `owed` said: delete that version of the ephemeral report. */
  settled(owed: OwedDeletion, signal?: AbortSignal): Promise<void>;
  /** Ephemeral reports merged and not deleted yet. */
  readonly pending: number;
}

const KINDS = ["EphemeralReport", "ClusterEphemeralReport"] as const;

/** One merged version of an ephemeral report, to delete once its resource's report holds it. */
export interface OwedDeletion {
  uid: string;
  kind: string;
  namespace: string;
  name: string;
  resourceVersion: string;
}

/** Creates the intake; nothing is read before `start()`. */
export function createEphemeralIntake(options: EphemeralIntakeOptions): EphemeralIntake {
  const { client, logger } = options;
  /** By resource uid: the version merged, to delete once the report holds it. */
  const merged = new Map<string, OwedDeletion>();
  const informers: Array<Informer<KubeObject>> = [];

  for (const kind of KINDS) {
    const informer = createInformer<KubeObject>({
      client,
      apiVersion: EPHEMERAL_REPORT_API_VERSION,
      kind,
      labelSelector: EPHEMERAL_SELECTOR,
      ...(options.delay === undefined ? {} : { delay: options.delay }),
    });
    const seen = (o: KubeObject): void => {
      const report = asEphemeralReport(o);
      if (report === undefined) return;
      merged.set(report.spec.owner.uid, {
        uid: report.spec.owner.uid,
        kind,
        namespace: report.metadata.namespace ?? "",
        name: report.metadata.name,
        resourceVersion: report.metadata.resourceVersion ?? "",
      });
      options.onReport(report);
    };
    informer.on("add", seen);
    informer.on("update", seen);
    informer.on("delete", (o) => {
      const report = asEphemeralReport(o);
      const known = report === undefined ? undefined : merged.get(report.spec.owner.uid);
      if (report !== undefined && known?.name === report.metadata.name) merged.delete(report.spec.owner.uid);
    });
    let reported = false;
    informer.on("error", (e) => {
      if (e.source === "handler") logger.error({ kind, error: String(e.error) }, "event handler failed");
      else if (!reported) {
        reported = true;
        logger.warn(
          { kind, reason: e.failure.reason, message: e.failure.message },
          "cannot watch ephemeral reports: admission results of other processes will not be merged",
        );
      }
    });
    informer.on("synced", () => {
      reported = false;
    });
    informers.push(informer);
  }

  return {
    start() {
      for (const informer of informers) void informer.start();
    },
    async stop() {
      await Promise.all(informers.map((i) => i.stop()));
    },
    owed: (uid) => merged.get(uid),
    async settled(at, signal) {
      const { uid } = at;
      const deleted = await client.delete(
        {
          apiVersion: EPHEMERAL_REPORT_API_VERSION,
          kind: at.kind,
          name: at.name,
          ...(at.namespace === "" ? {} : { namespace: at.namespace }),
        },
        {
          preconditions: { resourceVersion: at.resourceVersion },
          ...(signal === undefined ? {} : { signal }),
        },
      );
      // A conflict means a newer version arrived: its event merges it and owes a new deletion.
      const failure = deleted.ok ? undefined : deleted;
      if (failure !== undefined && failure.status !== 404 && failure.status !== 409) {
        logger.debug(
          { uid, reason: failure.reason, message: failure.message },
          "cannot delete ephemeral report",
        );
        return;
      }
      if (merged.get(uid) === at) merged.delete(uid);
    },
    get pending() {
      return merged.size;
    },
  };
}

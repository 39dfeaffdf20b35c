/**
 * What the policy feeds (classic and CEL) know of each stored policy object, and the one way a
 * changed object is loaded: skipped when its spec and annotations did not change (the fingerprint),
 * otherwise loaded and compiled into its store once, at a new revision, with the outcome logged.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { Logger } from "../logger.js";
import { type DocumentLoad, policyFingerprint } from "./documents.js";

/** Where a feed keeps its compiled policies. */
export interface PolicySink<T> {
  set(policy: T): { ready: boolean; message?: string };
  delete(key: string): void;
}

/** The records of one feed; see `createPolicyRecords`. */
export interface PolicyRecords {
  /**
   * Loads `object` into `sink` unless it is unchanged; returns false when it was (nothing done).
   * A failed load removes the key from the sink and is remembered as the load failure.
   */
  upsert<T>(key: string, object: KubeObject, load: () => DocumentLoad<T>, sink: PolicySink<T>): boolean;
  /** Forgets a removed object (at a new revision). */
  remove(key: string): void;
  /** The revision at which a policy last changed (undefined for unknown keys). */
  revision(key: string): number | undefined;
  /** Keys of every stored policy, loadable or not, sorted. */
  keys(): string[];
  /** Why a stored policy could not be loaded, if it could not. */
  failure(key: string): string | undefined;
}

interface PolicyRecord {
  fingerprint: string;
  /** The state revision at which it last changed. */
  revision: number;
  /** Why it cannot be loaded, when it cannot. */
  failure?: string;
}

/** Creates the records of one feed; `nextRevision` bumps the cluster state's revision. */
export function createPolicyRecords(options: { logger: Logger; nextRevision: () => number }): PolicyRecords {
  const { logger } = options;
  const records = new Map<string, PolicyRecord>();
  return {
    upsert(key, object, load, sink) {
      const fingerprint = policyFingerprint(object);
      if (records.get(key)?.fingerprint === fingerprint) return false;
      const revision = options.nextRevision();
      const result = load();
      if (result.ok) {
        const status = sink.set(result.value);
        records.set(key, { fingerprint, revision });
        if (status.ready) logger.info({ policy: key }, "policy loaded");
        else logger.warn({ policy: key, reason: status.message }, "policy not ready");
      } else {
        sink.delete(key);
        records.set(key, { fingerprint, revision, failure: result.reason });
        logger.warn({ policy: key, reason: result.reason }, "policy cannot be loaded");
      }
      return true;
    },
    remove(key) {
      options.nextRevision();
      records.delete(key);
    },
    revision: (key) => records.get(key)?.revision,
    keys: () => [...records.keys()].sort(),
    failure: (key) => records.get(key)?.failure,
  };
}

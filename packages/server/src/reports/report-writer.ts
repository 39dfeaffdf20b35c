/**
 * Writes per-resource reports only when their content changed: the index says what each report
 * holds, so an unchanged report costs no request. A report written for a scan carries the digest of
 * the scan's inputs bound to its content (`SCAN_INPUTS_ANNOTATION`), so `answers` can tell, also after
 * a restart, that a scan with the same inputs need not run. Stale knowledge is repaired on the way (a report
 * gone under the index is created again, a conflict or an existing name is re-read and compared).
 */

import { hash } from "node:crypto";
import type { AnyPolicyReport } from "@kyverno-ts/api";
import {
  type ApiResult,
  isConflict,
  isNotFound,
  type KubeClient,
  type ObjectHeader,
  type ObjectRef,
} from "@kyverno-ts/kube";
import { SCAN_INPUTS_ANNOTATION } from "./report-builder.js";
import { reportDigest } from "./report-digest.js";
import type { ReportIndex } from "./report-index.js";

/** What a write did. `skipped`: this replica may not write (not the leader). */
export type WriteOutcome = "created" | "updated" | "deleted" | "unchanged" | "skipped";

/** Where a resource's report lives. */
export interface ReportLocation {
  /** `""` for cluster-scoped resources (a ClusterPolicyReport). */
  namespace: string;
  /** The report's name: the resource's uid. */
  name: string;
}

/** The writer; see `createReportWriter`. */
export interface ReportWriter {
  /**
   * Makes the report exist with this content; `inputs`: the digest of the scan that produced it
   * (`ScanInputs`), recorded with it.
   */
  apply(report: AnyPolicyReport, signal?: AbortSignal, inputs?: string): Promise<ApiResult<WriteOutcome>>;
  /** Whether the known report at `at` is what a scan with these inputs produced (and still says it). */
  answers(at: ReportLocation, inputs: string): boolean;
  /**
   * Removes a resource's report. With `known: true`, only when the index has it (for resources that
   * simply have no results: no request per result-less resource); otherwise unconditionally.
   */
  remove(
    at: ReportLocation,
    options: { known: boolean; signal?: AbortSignal },
  ): Promise<ApiResult<WriteOutcome>>;
  /** Reads a resource's report (undefined when there is none). */
  read(at: ReportLocation, signal?: AbortSignal): Promise<ApiResult<AnyPolicyReport | undefined>>;
}

/** Options of `createReportWriter`. */
export interface ReportWriterOptions {
  client: KubeClient;
  index: ReportIndex;
  /** Checked before every write: false on replicas that do not lead. */
  canWrite: () => boolean;
  /** Told about every write that happened. */
  onWrite?: (outcome: WriteOutcome, report: ReportLocation) => void;
}

const API_VERSION = "wgpolicyk8s.io/v1alpha2";
const kindAt = (at: ReportLocation) => (at.namespace === "" ? "ClusterPolicyReport" : "PolicyReport");
const refAt = (at: ReportLocation): ObjectRef => ({
  apiVersion: API_VERSION,
  kind: kindAt(at),
  name: at.name,
  ...(at.namespace === "" ? {} : { namespace: at.namespace }),
});
const ok = <T>(value: T): ApiResult<T> => ({ ok: true, status: 200, value });
const locate = (r: AnyPolicyReport): ReportLocation => ({
  namespace: typeof r.metadata.namespace === "string" ? r.metadata.namespace : "",
  name: r.metadata.name,
});

/** The scan inputs bound to the content digest of the report they produced. */
const stampOf = (inputs: string, digest: string): string =>
  hash("sha1", `${inputs}\u0000${digest}`, "base64");

/** The report with its stamp annotation. */
function stamped(report: AnyPolicyReport, stamp: string): AnyPolicyReport {
  const annotations = { ...report.metadata.annotations, [SCAN_INPUTS_ANNOTATION]: stamp };
  return { ...report, metadata: { ...report.metadata, annotations } };
}

/**
 * The report as written: what was sent, with the server's metadata (its answer is decoded no further:
 * the results of a report are most of its bytes, and the index needs only its metadata).
 */
const withMetadata = (sent: AnyPolicyReport, answer: ObjectHeader): AnyPolicyReport =>
  answer.metadata === undefined ? sent : { ...sent, metadata: { ...sent.metadata, ...answer.metadata } };

/** Creates a writer over the client and the index it keeps current. */
export function createReportWriter(options: ReportWriterOptions): ReportWriter {
  const { client, index, canWrite } = options;
  const done = (outcome: WriteOutcome, at: ReportLocation): ApiResult<WriteOutcome> => {
    if (outcome !== "unchanged" && outcome !== "skipped") options.onWrite?.(outcome, at);
    return ok(outcome);
  };
  const opts = (signal?: AbortSignal) => (signal === undefined ? {} : { signal });

  const read = async (at: ReportLocation, signal?: AbortSignal) => {
    const got = await client.get<AnyPolicyReport>(refAt(at), opts(signal));
    if (got.ok) return ok<AnyPolicyReport | undefined>(got.value);
    return isNotFound(got) ? ok<AnyPolicyReport | undefined>(undefined) : got;
  };

  /** Re-reads the report and writes ours over it unless it already says the same. */
  const reconcileWith = async (
    report: AnyPolicyReport,
    digest: string,
    signal?: AbortSignal,
  ): Promise<ApiResult<WriteOutcome>> => {
    const at = locate(report);
    const current = await read(at, signal);
    if (!current.ok) return current;
    if (current.value === undefined) return create(report, digest, signal, false);
    if (reportDigest(current.value) === digest) {
      index.set(current.value);
      const stamp = report.metadata.annotations?.[SCAN_INPUTS_ANNOTATION];
      if (typeof stamp === "string") index.setInputs(at.namespace, at.name, stamp);
      return ok("unchanged");
    }
    return update(report, digest, current.value.metadata.resourceVersion, signal, false);
  };

  const create = async (
    report: AnyPolicyReport,
    digest: string,
    signal: AbortSignal | undefined,
    retry: boolean,
  ): Promise<ApiResult<WriteOutcome>> => {
    if (!canWrite()) return ok("skipped");
    const created = await client.create(report, { ...opts(signal), decode: "header" });
    if (created.ok) {
      index.set(withMetadata(report, created.value), digest);
      return done("created", locate(report));
    }
    if (retry && created.status === 409) return reconcileWith(report, digest, signal);
    return created;
  };

  const update = async (
    report: AnyPolicyReport,
    digest: string,
    resourceVersion: unknown,
    signal: AbortSignal | undefined,
    retry: boolean,
  ): Promise<ApiResult<WriteOutcome>> => {
    if (!canWrite()) return ok("skipped");
    const rv = typeof resourceVersion === "string" ? { resourceVersion } : {};
    const updated = await client.update(
      { ...report, metadata: { ...report.metadata, ...rv } },
      { ...opts(signal), decode: "header" },
    );
    if (updated.ok) {
      index.set(withMetadata(report, updated.value), digest);
      return done("updated", locate(report));
    }
    if (isNotFound(updated)) return create(report, digest, signal, retry);
    if (retry && isConflict(updated)) return reconcileWith(report, digest, signal);
    return updated;
  };

  return {
    async apply(unstamped, signal, inputs) {
      const at = locate(unstamped);
      const digest = reportDigest(unstamped);
      const stamp = inputs === undefined ? undefined : stampOf(inputs, digest);
      const report = stamp === undefined ? unstamped : stamped(unstamped, stamp);
      const known = index.get(at.namespace, at.name);
      if (known !== undefined && known.digest === digest) {
        // Same content: only this process learns that the new inputs give it (no write for that).
        if (stamp !== undefined) index.setInputs(at.namespace, at.name, stamp);
        return ok("unchanged");
      }
      if (known !== undefined) return update(report, digest, known.resourceVersion, signal, true);
      if (!index.loaded) return reconcileWith(report, digest, signal);
      return create(report, digest, signal, true);
    },
    answers(at, inputs) {
      const known = index.get(at.namespace, at.name);
      return known?.inputs !== undefined && known.inputs === stampOf(inputs, known.digest);
    },
    async remove(at, { known, signal }) {
      if (known && index.loaded && index.get(at.namespace, at.name) === undefined) return ok("unchanged");
      if (!canWrite()) return ok("skipped");
      const deleted = await client.delete(refAt(at), opts(signal));
      if (!deleted.ok && !isNotFound(deleted)) return deleted;
      index.delete(at.namespace, at.name);
      return deleted.ok ? done("deleted", at) : ok("unchanged");
    },
    read,
  };
}

/**
 * Admission results handed from `kyverno-ts admission` to `kyverno-ts reports` when they run as
 * separate processes: upstream's EphemeralReport / ClusterEphemeralReport (`reports.kyverno.io/v1`),
 * written by the admission side and merged, then deleted, by the reports controller.
 *
 * Bounded, so nothing accumulates in the API server: there is at most one ephemeral report per
 * resource (named after its uid; a newer admission merges into it, newest answer per policy), it is
 * owned by the resource (deleted with it), and the reports controller deletes it once the resource's
 * report holds its results. On the admission side, results wait in the webhook's bounded queue (which
 * drops the oldest when full) and at most `concurrency` writes are in flight.
 */
import type { PolicyReportResult } from "@kyverno-ts/api";
import { type PolicyResponse, policyReportResults, reportSummary } from "@kyverno-ts/engine";
import { type ApiResult, isConflict, type KubeClient } from "@kyverno-ts/kube";
import {
  type AdmissionPhase,
  type AdmissionResult,
  type BoundedResultQueue,
  PHASE_RULE_TYPES,
} from "../controllers/admission/results.js";
import type { Logger } from "../logger.js";
import { silentLogger } from "../logger.js";
import { awaitsUid, resolveCreatedUid } from "./created-uid.js";
import { mergePhased, PHASE_ANNOTATIONS, phaseAnnotations, policiesByPhase } from "./ephemeral-phases.js";

/** The API version of ephemeral reports. */
export const EPHEMERAL_REPORT_API_VERSION = "reports.kyverno.io/v1";

/** Labels and annotations of ephemeral reports (upstream's `audit.kyverno.io/*`, plus ours). */
export const EPHEMERAL_LABELS = {
  managedBy: "app.kubernetes.io/managed-by",
  source: "audit.kyverno.io/source",
  uid: "audit.kyverno.io/resource.uid",
  group: "audit.kyverno.io/resource.group",
  version: "audit.kyverno.io/resource.version",
  kind: "audit.kyverno.io/resource.kind",
  /** Annotation: the resource's name. */
  name: "audit.kyverno.io/resource.name",
  /** Annotation: JSON list of the policies evaluated (a policy may answer with no result). */
  policies: PHASE_ANNOTATIONS.validated,
} as const;

/** The label selector of the ephemeral reports this package writes. */
export const EPHEMERAL_SELECTOR = `${EPHEMERAL_LABELS.managedBy}=kyverno,${EPHEMERAL_LABELS.source}=admission`;

/** The `process` property of results from admission reviews, as upstream. */
export const ADMISSION_PROCESS = "admission review";

/** An ephemeral report as written and read here. */
export interface EphemeralReport {
  apiVersion: typeof EPHEMERAL_REPORT_API_VERSION;
  kind: "EphemeralReport" | "ClusterEphemeralReport";
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string }>;
  };
  spec: {
    owner: { apiVersion: string; kind: string; name: string; uid: string };
    results: PolicyReportResult[];
    summary: ReturnType<typeof reportSummary>;
  };
}

const policyKeyOf = (p: PolicyResponse["policy"]): string =>
  p.namespace ? `${p.namespace}/${p.name}` : p.name;

/**
 * Results of one admission response as reports carry them (no `resources`, `process: admission review`):
 * its validate rules, or the rules of `phase` (the mutating webhook's mutate rules, the background
 * controller's generate and mutate-existing rules). The background controller's work answers an
 * admission (an UpdateRequest), and upstream reports it as one: the exceptions guide's GeneratingPolicy
 * report has `process: admission review` beside `generated-resources`.
 */
export function admissionReportResults(
  response: PolicyResponse,
  unscored = false,
  phase: AdmissionPhase = "validate",
): PolicyReportResult[] {
  const ruleTypes = PHASE_RULE_TYPES[phase];
  return policyReportResults(response, { unscored, ruleTypes }).map(({ resources: _resources, ...r }) => ({
    ...r,
    properties: { ...r.properties, process: ADMISSION_PROCESS },
  }));
}

/** The policies an ephemeral report says were evaluated, in any phase. */
export function evaluatedPolicies(report: Pick<EphemeralReport, "metadata" | "spec">): string[] {
  const all = new Set<string>();
  for (const policies of policiesByPhase(report).values()) for (const p of policies) all.add(p);
  return [...all].sort();
}

/** Builds the ephemeral report of one admission (`unscored` tells which policies are unscored). */
export function ephemeralReportOf(
  result: AdmissionResult,
  unscored: (policy: PolicyResponse["policy"]) => boolean = () => false,
): EphemeralReport {
  const { apiVersion, kind, namespace, name, uid } = result.resource;
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const phase = result.phase ?? "validate";
  const results = result.responses.flatMap((r) => admissionReportResults(r, unscored(r.policy), phase));
  const policies = [...new Set(result.responses.map((r) => policyKeyOf(r.policy)))].sort();
  const annotations = phaseAnnotations(
    new Map([[phase, new Set(policies)]]),
    results.map((r) => [r, phase] as const),
  );
  return {
    apiVersion: EPHEMERAL_REPORT_API_VERSION,
    kind: namespace ? "EphemeralReport" : "ClusterEphemeralReport",
    metadata: {
      name: uid,
      ...(namespace ? { namespace } : {}),
      labels: {
        [EPHEMERAL_LABELS.managedBy]: "kyverno",
        [EPHEMERAL_LABELS.source]: "admission",
        [EPHEMERAL_LABELS.uid]: uid,
        [EPHEMERAL_LABELS.group]: group ?? "",
        [EPHEMERAL_LABELS.version]: version ?? "",
        [EPHEMERAL_LABELS.kind]: kind,
      },
      annotations: { [EPHEMERAL_LABELS.name]: name, ...annotations },
      ownerReferences: [{ apiVersion, kind, name, uid }],
    },
    spec: { owner: { apiVersion, kind, name, uid }, results, summary: reportSummary(results) },
  };
}

/**
 * Merges a newer ephemeral report into an older one: the newer answer of each policy it evaluated
 * wins, per phase (a mutating webhook's answer replaces the policy's mutate results only).
 */
export function mergeEphemeral(older: EphemeralReport, newer: EphemeralReport): EphemeralReport {
  const { results, annotations } = mergePhased(older, newer);
  const {
    [PHASE_ANNOTATIONS.policies]: _p,
    [PHASE_ANNOTATIONS.results]: _r,
    ...base
  } = newer.metadata.annotations;
  return {
    ...newer,
    metadata: {
      ...newer.metadata,
      annotations: { ...base, ...annotations },
      ...(older.metadata.resourceVersion === undefined
        ? {}
        : { resourceVersion: older.metadata.resourceVersion }),
    },
    spec: { ...newer.spec, results, summary: reportSummary(results) },
  };
}

/** Options of `createEphemeralReportPublisher`. */
export interface EphemeralReportPublisherOptions {
  client: KubeClient;
  /** The admission controller's bounded result queue. */
  source: Pick<BoundedResultQueue, "drain" | "onAvailable">;
  /** Whether a policy's results are unscored (its `policies.kyverno.io/scored: "false"` annotation). */
  unscored?: (policy: PolicyResponse["policy"]) => boolean;
  /** Whether a policy is kept out of every report (its `reports.kyverno.io/disabled` label). */
  reportsDisabled?: (policy: PolicyResponse["policy"]) => boolean;
  /** Writes in flight at once (default 4). */
  concurrency?: number;
  /** Resources waiting for their write at most (default 10,000); further results stay in `source`. */
  maxPending?: number;
  logger?: Logger;
}

/** Writes admission results as ephemeral reports; see `createEphemeralReportPublisher`. */
export interface EphemeralReportPublisher {
  /** Starts draining the queue. */
  start(): void;
  /** Stops draining; resolves when the writes in flight are done. */
  stop(): Promise<void>;
  /** Resolves once everything queued so far is written (or failed). */
  flush(): Promise<void>;
  stats(): { written: number; failed: number };
}

const refOf = (r: EphemeralReport) => ({
  apiVersion: EPHEMERAL_REPORT_API_VERSION,
  kind: r.kind,
  name: r.metadata.name,
  ...(r.metadata.namespace === undefined ? {} : { namespace: r.metadata.namespace }),
});

/**
 * Creates the admission side of the hand-over: results offered to `source` become (or merge into) the
 * ephemeral report of their resource. DELETE admissions write nothing (the report goes with the
 * resource). A failed write is logged and dropped, as a full queue drops: reports stay correct at
 * the next background scan.
 */
export function createEphemeralReportPublisher(
  options: EphemeralReportPublisherOptions,
): EphemeralReportPublisher {
  const { client, source } = options;
  const logger = options.logger ?? silentLogger();
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const maxPending = Math.max(1, options.maxPending ?? 10_000);
  const pending = new Map<string, EphemeralReport>();
  const counts = { written: 0, failed: 0 };
  let running = 0;
  /** Results waiting for their object's uid (`resolveCreatedUid`). */
  let resolving = 0;
  /** Set when the cluster does not serve the kind: results are then dropped, and said so once. */
  let unserved = false;
  let unsubscribe: (() => void) | undefined;
  let idle: Array<() => void> = [];

  const upsert = async (report: EphemeralReport): Promise<ApiResult<unknown>> => {
    const created = await client.create<EphemeralReport>(report);
    if (created.ok || created.status !== 409) return created;
    for (let attempt = 0; ; attempt++) {
      // An older report of the resource is there: merge into it.
      const current = await client.get<EphemeralReport>(refOf(report));
      if (!current.ok) return current.status === 404 ? client.create<EphemeralReport>(report) : current;
      const updated = await client.update<EphemeralReport>(mergeEphemeral(current.value, report));
      if (updated.ok || attempt >= 2) return updated;
      // The reports controller deletes a report once it has merged it, which can happen between the
      // read and the update: then this report is created on its own (the older one is merged).
      if (updated.status === 404) {
        const again = await client.create<EphemeralReport>(report);
        if (again.ok || again.status !== 409) return again;
      } else if (!isConflict(updated)) return updated;
    }
  };

  const enqueue = (result: AdmissionResult): void => {
    const report = ephemeralReportOf(result, options.unscored);
    const key = `${report.metadata.namespace ?? ""}/${report.metadata.name}`;
    const waiting = pending.get(key);
    pending.set(key, waiting === undefined ? report : mergeEphemeral(waiting, report));
  };

  const pump = (): void => {
    // Take no more than the pending map can hold: the rest waits in the bounded source queue, which
    // drops its oldest entries when full, so a slow API server cannot grow memory here.
    for (const drained of source.drain(Math.max(0, maxPending - pending.size - resolving))) {
      if (unserved) continue;
      const disabled = options.reportsDisabled;
      const result =
        disabled === undefined
          ? drained
          : { ...drained, responses: drained.responses.filter((r) => !disabled(r.policy)) };
      if (result.operation === "DELETE" || result.responses.length === 0) continue;
      if (awaitsUid(result)) {
        // A CREATE's mutating webhook results: written once the API server stored the object.
        resolving++;
        void resolveCreatedUid(client, result).then((resolved) => {
          resolving--;
          if (resolved !== undefined) enqueue(resolved);
          pump();
        });
        continue;
      }
      if (result.resource.uid !== "") enqueue(result);
    }
    while (running < concurrency && pending.size > 0) {
      const [key, report] = pending.entries().next().value as [string, EphemeralReport];
      pending.delete(key);
      running++;
      void upsert(report).then((written) => {
        running--;
        if (written.ok) counts.written++;
        else if (written.reason === "UnknownKind") {
          counts.failed++;
          if (!unserved)
            logger.error(
              { kind: report.kind, apiVersion: EPHEMERAL_REPORT_API_VERSION },
              "the cluster does not serve ephemeral reports (install Kyverno's reports.kyverno.io CRDs, then restart): admission results are not handed to the reports controller; background scans still report every resource",
            );
          unserved = true;
          pending.clear();
        } else {
          counts.failed++;
          logger.warn(
            { report: key, reason: written.reason, message: written.message },
            "cannot write ephemeral report",
          );
        }
        pump();
      });
    }
    if (running === 0 && pending.size === 0 && resolving === 0) {
      const waiters = idle;
      idle = [];
      for (const resolve of waiters) resolve();
    }
  };

  return {
    start() {
      unsubscribe ??= source.onAvailable(() => queueMicrotask(pump));
      pump();
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      await this.flush();
    },
    flush() {
      pump();
      if (running === 0 && pending.size === 0 && resolving === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
    stats: () => ({ ...counts }),
  };
}

/** Narrows a listed object to an ephemeral report with the fields the reports controller reads. */
export function asEphemeralReport(o: unknown): EphemeralReport | undefined {
  const r = o as Partial<EphemeralReport> | undefined;
  const owner = r?.spec?.owner;
  if (r?.metadata?.name === undefined || owner === undefined || typeof owner.uid !== "string")
    return undefined;
  if (!Array.isArray(r.spec?.results)) return undefined;
  return {
    ...(r as EphemeralReport),
    metadata: { ...r.metadata, labels: r.metadata.labels ?? {}, annotations: r.metadata.annotations ?? {} },
  };
}

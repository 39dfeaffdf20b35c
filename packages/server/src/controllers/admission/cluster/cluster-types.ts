/** The cluster-mode admission controller's contract: its options and surface (`startClusterAdmission`). */
import type { KubeClientOptions } from "@kyverno-ts/kube";
import type { ServerClock } from "../../../clock.js";
import type { EventSettings } from "../../../events/cluster-events.js";
import type { Logger } from "../../../logger.js";
import type { ExceptionSettings } from "../../../policycache/exception-settings.js";
import type { PolicyCache } from "../../../policycache/policy-cache.js";
import type { ReportingSettings } from "../../../reports/reporting.js";
import type { EvaluationSettings } from "../admission-core.js";
import type { BoundedResultQueue } from "../results.js";

/** Leader election timings (upstream's 12 s / 10 s / 2 s by default). */
export interface LeaderTimings {
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** Options of `startClusterAdmission`. */
export interface ClusterAdmissionOptions {
  /** How to reach the API server (kubeconfig, in-cluster); the client is created and closed here. */
  kube: KubeClientOptions;
  /** Kyverno's namespace: Secrets, ConfigMap and Lease live there (upstream: `kyverno`). */
  namespace: string;
  /** The webhook Service (upstream: `kyverno-svc`). */
  serviceName: string;
  /** The Service's port (default 443). */
  servicePort?: number;
  /**
   * Outside a cluster: the base URL the API server calls instead of the Service (`--url-override`), or
   * a function of the listening port (`--serverIP`).
   */
  webhookUrl?: string | ((port: number) => string);
  /** Extra host names / IPs for the serving certificate. */
  extraHosts?: readonly string[];
  /** Kyverno's ConfigMap (default `kyverno`). */
  configMapName?: string;
  /** This replica's identity in the Lease (the Pod name). */
  identity: string;
  /** The Lease (default `kyverno`). */
  leaseName?: string;
  /** Leader election timings, or `false` to lead without electing (a single replica). */
  leaderElection?: false | LeaderTimings;
  host?: string;
  /** Webhook HTTPS port (0 picks a free one). */
  port: number;
  /** Metrics port (0 picks a free one); no metrics server when undefined. */
  metricsPort?: number;
  /** The `kyverno-metrics` ConfigMap in `namespace`, read at start; metrics use the defaults when undefined. */
  metricsConfigMapName?: string;
  webhookTimeoutSeconds?: number;
  /** Evaluation worker threads and limits (`--evaluationWorkers`); inline when omitted. */
  evaluation?: EvaluationSettings;
  /** `--enablePolicyException` / `--exceptionNamespace` (PolicyExceptions ignored when omitted). */
  policyExceptions?: ExceptionSettings;
  /** Admission results kept for the reports controller (default 10,000; the oldest are dropped). */
  resultCapacity?: number;
  /**
   * Hand admission results to a reports controller in another process as ephemeral reports
   * (`reports.kyverno.io/v1`, upstream's mechanism; the reports controller merges then deletes them).
   * Default false: the caller drains `results` itself (a reports controller in the same process).
   */
  publishEphemeralReports?: boolean;
  /** `--enableReporting`: the rule types whose admission results are kept for the reports (default all). */
  reporting?: ReportingSettings;
  /** Certificate check period (default 12 h). */
  certificateCheckMs?: number;
  /**
   * Kubernetes Events of validate results (`--omitEvents`, `--maxQueuedEvents`, `--eventsRateLimit*`),
   * written through a client of their own; none when omitted.
   */
  events?: EventSettings;
  /**
   * The background controller's user (`--backgroundServiceAccountName`), which must be allowed what
   * generate and mutate-existing rules need before a policy is accepted (upstream's auth check).
   * Default `system:serviceaccount:<namespace>:kyverno-background-controller`.
   */
  backgroundServiceAccountName?: string;
  /**
   * Most UpdateRequests (generate / mutate-existing work of admitted requests) waiting to be created
   * (default 10,000; identical ones are merged, past the bound new ones are dropped, logged and
   * counted in `kyverno_admission_updaterequests_dropped_total`).
   */
  updateRequestCapacity?: number;
  /** Time for admission (deadlines, reports), leader election, queues and certificates. */
  clock: ServerClock;
  logger: Logger;
  /** Aborts a start still waiting for informers or for the first certificate. */
  signal?: AbortSignal;
}

/** A running cluster-mode admission controller. */
export interface ClusterAdmission {
  readonly port: number;
  readonly metricsPort: number;
  /** Results of admitted (non dry-run) requests, for the reports controller to drain. */
  readonly results: BoundedResultQueue;
  readonly cache: PolicyCache;
  isLeader(): boolean;
  /** Policies listed and a certificate served. */
  ready(): boolean;
  /** Steps down (the Lease is handed back), stops serving and watching. Deletes nothing. */
  close(): Promise<void>;
}

/** Thrown when `signal` aborts the start. */
export class StartAborted extends Error {
  constructor() {
    super("start aborted");
    this.name = "StartAborted";
  }
}

/**
 * The in-process mode of the end-to-end suites (`startE2eCluster({ inProcess })`): the admission
 * controller (cluster mode) and, when asked, the reports controller run in the test's own process
 * against the sandbox, with the options every such suite used to repeat; the sandbox calls the
 * admission webhooks through its Service resolver.
 */
import { createEngine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import { systemClock } from "../clock.js";
import {
  type ClusterAdmission,
  type ClusterAdmissionOptions,
  startClusterAdmission,
} from "../controllers/admission/cluster/cluster-admission.js";
import { createReportsController } from "../controllers/reports/reports-controller.js";
import type { ReportsController } from "../controllers/reports/types.js";
import { recordingLogger } from "./fixtures.js";

/** Which controllers run in the test's process, and their options beyond the shared ones. */
export interface InProcessControllers {
  /**
   * The admission controller's own settings; the rest is shared: namespace `kyverno`, Service
   * `kyverno-svc`, identity `kyverno-admission-controller-0`, no leader election, a free port on
   * 127.0.0.1, the system clock, a recording logger.
   */
  admission?: Pick<ClusterAdmissionOptions, "policyExceptions" | "publishEphemeralReports" | "events">;
  /**
   * Also the reports controller, started after the admission controller: no leader election, merging
   * ephemeral reports, informer events handled after 100 ms.
   */
  reports?: boolean;
}

/** The controllers running in the test's process; see `startInProcessControllers`. */
export interface RunningInProcess {
  readonly admission: ClusterAdmission;
  readonly reports: ReportsController | undefined;
  /** The admission controller's recent log lines, for failure messages. */
  logs(): string;
  /** Stops the reports controller, then the admission controller. */
  stop(): Promise<void>;
}

/** The sandbox's Service resolver for webhooks served in this process (before and after they start). */
export interface InProcessWebhookRoute {
  resolveService(): string;
  /** Points the resolver at the admission controller once it serves. */
  serve(admission: ClusterAdmission): void;
}

/** A resolver that answers a closed port until `serve` (as the suites' own `admission?.port ?? 1`). */
export function inProcessWebhookRoute(): InProcessWebhookRoute {
  let served: ClusterAdmission | undefined;
  return {
    resolveService: () => `https://127.0.0.1:${served?.port ?? 1}`,
    serve: (admission) => {
      served = admission;
    },
  };
}

/** Starts the controllers `options` asks for against the sandbox behind `kubeconfigPath`. */
export async function startInProcessControllers(
  kubeconfigPath: string,
  client: KubeClient,
  route: InProcessWebhookRoute,
  options: InProcessControllers,
): Promise<RunningInProcess> {
  const logger = recordingLogger();
  const admission = await startClusterAdmission({
    kube: { kubeconfigPath, qps: 0 },
    namespace: "kyverno",
    serviceName: "kyverno-svc",
    identity: "kyverno-admission-controller-0",
    leaderElection: false,
    host: "127.0.0.1",
    port: 0,
    ...options.admission,
    clock: systemClock(),
    logger,
  });
  route.serve(admission);
  let reports: ReportsController | undefined;
  if (options.reports === true) {
    reports = createReportsController({
      client,
      engine: (contextLoader) => createEngine({ contextLoader }),
      leaderElection: false,
      ephemeralReports: true,
      informerDelay: () => 100,
    });
    await reports.start();
  }
  return {
    admission,
    reports,
    logs: () =>
      logger.lines
        .slice(-40)
        .map((l) => `${l.level} ${l.message} ${JSON.stringify(l.fields)}`)
        .join("\n"),
    async stop() {
      await reports?.stop();
      await admission.close();
    },
  };
}

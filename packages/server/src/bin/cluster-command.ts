/**
 * `kyverno-ts admission` without `--standalone`: the admission controller against a cluster, until
 * SIGINT / SIGTERM (or the caller's signal), then a clean step-down that hands the Lease over and
 * leaves the webhook configurations in place for the other replicas.
 */
import type { ServerClock } from "../clock.js";
import {
  type ClusterAdmission,
  type LeaderTimings,
  StartAborted,
  startClusterAdmission,
} from "../controllers/admission/cluster/cluster-admission.js";
import type { Logger } from "../logger.js";
import type { AdmissionArgs } from "./args.js";

/** Programmatic settings of the cluster mode that have no flag (tests and embedding). */
export interface ClusterHooks {
  /** Leader election timings instead of upstream's 12 s / 10 s / 2 s. */
  leaderTimings?: LeaderTimings;
  /** Certificate check period instead of 12 h. */
  certificateCheckMs?: number;
  /** Called once the controller serves requests. */
  onStarted?: (admission: ClusterAdmission) => void;
}

/** What the cluster mode needs from the command. */
export interface ClusterCommandContext {
  args: AdmissionArgs;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  signal: AbortSignal;
  clock: ServerClock;
  logger: Logger;
  hooks?: ClusterHooks;
}

/** Flags that only make sense in standalone mode, and why. */
function standaloneOnly(args: AdmissionArgs): string | undefined {
  if (args.policies.length > 0)
    return "--policies is for --standalone; in a cluster, policies are read from the API";
  if (args.configFile !== undefined)
    return "--config is for --standalone; in a cluster, the ConfigMap is watched";
  if (args.metricsConfigFile !== undefined)
    return "--metricsConfig is for --standalone; in a cluster, the kyverno-metrics ConfigMap is read (--metricsConfigMap)";
  if (args.tlsCertFile !== undefined)
    return "--tls-cert-file is for --standalone; in a cluster, certificates live in Secrets";
  return undefined;
}

/** `--url-override` / `--serverIP` as the controller's `webhookUrl` (the port added once listening). */
function webhookUrlOf(args: AdmissionArgs): { webhookUrl?: string | ((port: number) => string) } {
  if (args.webhookUrl !== undefined) return { webhookUrl: args.webhookUrl };
  const host = args.serverHost;
  if (host === undefined) return {};
  const bracketed = host.includes(":") ? `[${host}]` : host;
  return { webhookUrl: (port) => `https://${bracketed}:${port}` };
}

/** Runs the cluster mode; resolves with the exit status (0 after a clean stop, 2 for unusable input). */
export async function runClusterMode(context: ClusterCommandContext): Promise<number> {
  const { args, stdout, stderr, signal, hooks } = context;
  const problem = standaloneOnly(args);
  if (problem !== undefined) {
    stderr.write(`error: ${problem}\n`);
    return 2;
  }
  let admission: ClusterAdmission;
  try {
    admission = await startClusterAdmission({
      kube: {
        ...(args.kubeconfig !== undefined ? { kubeconfigPath: args.kubeconfig } : {}),
        qps: args.clientQps,
        burst: args.clientBurst,
        clientType: "admission-controller",
      },
      namespace: args.namespace,
      serviceName: args.serviceName,
      servicePort: args.servicePort,
      ...webhookUrlOf(args),
      extraHosts: [...args.extraHosts, ...(args.serverHost !== undefined ? [args.serverHost] : [])],
      configMapName: args.configMapName,
      metricsConfigMapName: args.metricsConfigMapName,
      identity: args.identity,
      leaderElection: args.leaderElection
        ? {
            ...(args.leaderRetryPeriodMs !== undefined ? { retryPeriodMs: args.leaderRetryPeriodMs } : {}),
            ...hooks?.leaderTimings,
          }
        : false,
      host: args.host,
      port: args.port,
      ...(args.disableMetrics ? {} : { metricsPort: args.metricsPort }),
      webhookTimeoutSeconds: args.webhookTimeoutSeconds,
      evaluation: {
        workers: args.evaluationWorkers,
        limits: args.evaluationLimits,
        inlineMs: args.evaluationInlineMs,
        workerScheduling: args.evaluationWorkerScheduling,
        forceFailurePolicyIgnore: args.forceFailurePolicyIgnore,
      },
      // The reports controller runs in its own process: results cross over as ephemeral reports.
      publishEphemeralReports: args.admissionReports,
      events: args.events,
      reporting: args.reporting,
      policyExceptions: args.policyExceptions,
      backgroundServiceAccountName: args.backgroundServiceAccountName,
      ...(hooks?.certificateCheckMs !== undefined ? { certificateCheckMs: hooks.certificateCheckMs } : {}),
      clock: context.clock,
      logger: context.logger,
      signal,
    });
  } catch (error) {
    if (error instanceof StartAborted) return 0;
    stderr.write(`error: cannot start: ${(error as Error).message}\n`);
    return 2;
  }
  const url = webhookUrlOf(args).webhookUrl;
  const target =
    typeof url === "function"
      ? url(admission.port)
      : (url ?? `service ${args.serviceName}.${args.namespace}:${args.servicePort}`);
  stdout.write(
    `kyverno-ts admission (cluster): ${admission.cache.policies().length} policies, serving on ` +
      `https://${args.host}:${admission.port} as ${args.identity}; webhooks call ${target}\n` +
      (args.disableMetrics
        ? "metrics: disabled\n"
        : `metrics: http://${args.host}:${admission.metricsPort}/metrics\n`),
  );
  // --admissionReports=false: no ephemeral reports; results are discarded as they arrive.
  const discard = args.admissionReports
    ? undefined
    : admission.results.onAvailable(() => admission.results.drain());
  hooks?.onStarted?.(admission);
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
  discard?.();
  await admission.close();
  return 0;
}

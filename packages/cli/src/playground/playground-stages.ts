/**
 * The stages of the playground's start, one function each, in the order `startPlayground` runs them:
 * the local API server (with the namespaces and Kyverno's ConfigMap), the admission controller, the
 * background controller, the policies, the reports controller, the cleanup controller, and Policy
 * Reporter with the dashboard (the examples are in `playground-examples.ts`). Each reports its progress
 * and registers how it stops.
 */
import { join } from "node:path";
import type { KubeObject } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { loadReporterConfig, type RunningReporter, startReporter } from "@kyverno-ts/reporter";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import {
  acceptedExceptionNamespaces,
  type BackgroundController,
  type ClusterAdmission,
  createBackgroundController,
  createBackgroundMetrics,
  createMetricsServer,
  createReportsController,
  createReportsMetrics,
  type ReportsController,
  startClusterAdmission,
  systemClock,
} from "@kyverno-ts/server";
import type { pino } from "pino";
import { type PlaygroundCleanup, startPlaygroundCleanup } from "./cleanup.js";
import { playgroundCrds } from "./crds.js";
import {
  BACKGROUND_RBAC,
  BACKGROUND_USER,
  playgroundConfigMap,
  policyExceptions,
  refOf,
} from "./playground-objects.js";
import type { PlaygroundOptions, PlaygroundProgress } from "./playground-types.js";
import { ARGOCD_USER, type Scenario } from "./scenario.js";
import { waitFor, webhooksCover } from "./waiting.js";

/** What every stage reads, and where it registers how it stops. */
export interface StageContext {
  readonly options: PlaygroundOptions;
  /** Listen address of every server. */
  readonly host: string;
  /** The state folder. */
  readonly dir: string;
  readonly scenario: Scenario;
  readonly signal: AbortSignal;
  readonly progress: PlaygroundProgress;
  /** A logger of one component, writing to the playground's log file. */
  readonly log: (component: string) => pino.Logger;
  /** How to stop what was started so far, run in reverse. */
  readonly stops: Array<() => Promise<void> | void>;
}

/** The local API server and its clients. */
export interface ApiServerStage {
  sandbox: Sandbox;
  /** Client as `admin` (cluster administrator), and as Argo CD's service account. */
  admin: KubeClient;
  argocd: KubeClient;
}

/** Starts the local API server, then creates the scenario's namespaces, `kyverno` and its ConfigMap. */
export async function startApiServer({
  dir,
  scenario,
  progress,
  stops,
}: StageContext): Promise<ApiServerStage> {
  const done = progress.begin("local Kubernetes API server");
  const sandbox: Sandbox = await startSandbox({
    dataDir: join(dir, "cluster"),
    crds: playgroundCrds(),
    users: [
      {
        username: ARGOCD_USER,
        groups: ["system:serviceaccounts", "system:serviceaccounts:argocd"],
        // As a default Argo CD install binds its application controller (the sandbox enforces RBAC).
        clusterRoles: ["cluster-admin"],
      },
    ],
  });
  stops.push(() => sandbox.stop());
  const admin = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  const argocd = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, context: ARGOCD_USER, qps: 0 });
  stops.push(() => {
    admin.close();
    argocd.close();
  });
  for (const ns of scenario.namespaces) {
    const created = await admin.create(ns as KubeObject);
    if (!created.ok && created.status !== 409) throw new Error(`namespace: ${created.message}`);
  }
  const kyverno = await admin.create({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "kyverno" },
  });
  if (!kyverno.ok && kyverno.status !== 409) throw new Error(`namespace kyverno: ${kyverno.message}`);
  const configMap = await admin.create(playgroundConfigMap());
  if (!configMap.ok) throw new Error(`ConfigMap kyverno/kyverno: ${configMap.message}`);
  done(sandbox.url);
  return { sandbox, admin, argocd };
}

/** Starts the admission controller; resolves once its policy validation webhook is registered. */
export async function startAdmission(
  ctx: StageContext,
  sandbox: Sandbox,
  admin: KubeClient,
): Promise<ClusterAdmission> {
  const { host, signal } = ctx;
  const done = ctx.progress.begin("admission controller");
  const admission: ClusterAdmission = await startClusterAdmission({
    policyExceptions,
    kube: { kubeconfigPath: sandbox.kubeconfigPath, clientType: "admission-controller" },
    namespace: "kyverno",
    serviceName: "kyverno-svc",
    webhookUrl: (port) => `https://${host}:${port}`,
    extraHosts: [host],
    identity: "playground",
    leaderElection: false,
    host,
    port: 0,
    metricsPort: 0,
    clock: systemClock(),
    logger: ctx.log("admission-controller"),
    signal,
  });
  ctx.stops.push(() => admission.close());
  await waitFor(() => admission.ready(), { what: "the admission controller to be ready", signal });
  await waitFor(async () => webhooksCover(admin, [{ apiVersion: "kyverno.io/v1", kind: "ClusterPolicy" }]), {
    what: "the policy validation webhook",
    signal,
  });
  done(`webhooks on https://${host}:${admission.port}, metrics on :${admission.metricsPort}`);
  return admission;
}

/** A controller and the port of its metrics server. */
export interface ControllerStage<C> {
  controller: C;
  metricsPort: number;
}

/** Grants the background controller's permissions, then starts it and its metrics server. */
export async function startBackground(
  ctx: StageContext,
  sandbox: Sandbox,
  admin: KubeClient,
  admission: ClusterAdmission,
): Promise<ControllerStage<BackgroundController>> {
  const { host, stops } = ctx;
  const done = ctx.progress.begin("background controller");
  // Its ServiceAccount's permissions, as the chart grants them: the policy validation webhook checks
  // that generate rules only ask for what the controller may do.
  for (const object of BACKGROUND_RBAC) {
    const created = await admin.create(object);
    if (!created.ok && created.status !== 409) throw new Error(`background RBAC: ${created.message}`);
  }
  const backgroundMetrics = createBackgroundMetrics();
  const background = createBackgroundController({
    client: createKubeClient({
      kubeconfigPath: sandbox.kubeconfigPath,
      clientType: "background-controller",
    }),
    engine: createEngine({ exceptionNamespaces: acceptedExceptionNamespaces(policyExceptions) }),
    namespace: "kyverno",
    workers: 4,
    exceptionNamespaces: acceptedExceptionNamespaces(policyExceptions),
    leaderElection: false,
    user: BACKGROUND_USER,
    clock: systemClock(),
    logger: ctx.log("background-controller"),
    metrics: backgroundMetrics,
    // Generate and mutate-existing results reach the reports controller with the admission results.
    results: admission.results,
  });
  await background.start();
  stops.push(() => background.stop());
  const backgroundMetricsServer = createMetricsServer({ metrics: backgroundMetrics });
  const metricsPort = (await backgroundMetricsServer.listen({ host, port: 0 })).port;
  stops.push(() => backgroundMetricsServer.close());
  done(`metrics on :${metricsPort}`);
  return { controller: background, metricsPort };
}

/** Creates the scenario's policies; resolves once loaded and the webhooks cover the example kinds. */
export async function installPolicies(
  { scenario, signal, progress }: StageContext,
  admin: KubeClient,
  admission: ClusterAdmission,
): Promise<void> {
  const done = progress.begin(`policies (${scenario.policies.length})`);
  for (const policy of scenario.policies) {
    const created = await admin.create(policy as KubeObject);
    if (!created.ok) throw new Error(`policy ${refOf(policy).name}: ${created.message}`);
  }
  await waitFor(() => admission.cache.policies().length >= scenario.policies.length, {
    what: "the admission controller to load the policies",
    signal,
  });
  const types = [
    ...new Map(
      scenario.steps.map((s) => {
        const type = { apiVersion: String(s.object.apiVersion), kind: String(s.object.kind) };
        return [`${type.apiVersion}/${type.kind}`, type] as const;
      }),
    ).values(),
  ];
  await waitFor(async () => webhooksCover(admin, types), {
    what: "the webhook configurations to cover the example kinds",
    signal,
  });
  done(`Audit, Enforce in namespace production`);
}

/** Starts the reports controller, fed by the admission results, and its metrics server. */
export async function startReports(
  ctx: StageContext,
  sandbox: Sandbox,
  admission: ClusterAdmission,
): Promise<ControllerStage<ReportsController>> {
  const { host, stops } = ctx;
  const done = ctx.progress.begin("reports controller");
  const reportsMetrics = createReportsMetrics();
  const reports = createReportsController({
    metrics: reportsMetrics,
    client: createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, clientType: "reports-controller" }),
    engine: createEngine({ exceptionNamespaces: acceptedExceptionNamespaces(policyExceptions) }),
    exceptionNamespaces: acceptedExceptionNamespaces(policyExceptions),
    leaderElection: false,
    kyvernoConfigMap: { namespace: "kyverno", name: "kyverno" },
    admissionResults: admission.results,
    logger: ctx.log("reports-controller"),
  });
  await reports.start();
  stops.push(() => reports.stop({ drain: false }));
  const reportsMetricsServer = createMetricsServer({ metrics: reportsMetrics });
  const metricsPort = (await reportsMetricsServer.listen({ host, port: 0 })).port;
  stops.push(() => reportsMetricsServer.close());
  done(`metrics on :${metricsPort}`);
  return { controller: reports, metricsPort };
}

/** Starts the cleanup controller. */
export async function startCleanup(ctx: StageContext, sandbox: Sandbox): Promise<PlaygroundCleanup> {
  const { host } = ctx;
  const done = ctx.progress.begin("cleanup controller");
  const cleanup = await startPlaygroundCleanup({
    kubeconfigPath: sandbox.kubeconfigPath,
    host,
    logger: ctx.log("cleanup-controller"),
    signal: ctx.signal,
  });
  ctx.stops.push(() => cleanup.stop());
  done(`webhooks on https://${host}:${cleanup.port}, metrics on :${cleanup.metricsPort}`);
  return cleanup;
}

function portInUse(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  return e?.code === "EADDRINUSE" || e?.cause?.code === "EADDRINUSE" || /EADDRINUSE/.test(String(e?.message));
}

/** Policy Reporter with the dashboard, synced. */
export interface DashboardStage {
  reporter: RunningReporter;
  /** The port asked for was taken; the dashboard listens on another one. */
  portTaken: boolean;
  /** The host as shown in URLs (a wildcard as loopback). */
  shownHost: string;
  dashboardUrl: string;
}

/** Starts Policy Reporter (on a free port when the one asked for is taken); resolves once synced. */
export async function startDashboard(ctx: StageContext, admin: KubeClient): Promise<DashboardStage> {
  const { host, options } = ctx;
  const done = ctx.progress.begin("Policy Reporter and dashboard");
  const loaded = loadReporterConfig({ env: {}, hostname: "playground" });
  // Metrics on, so the summary can name every endpoint (served on the dashboard's port).
  const config = { ...loaded.config, metrics: { ...loaded.config.metrics, enabled: true } };
  const reporterOptions = {
    config,
    client: admin,
    logger: ctx.log("policy-reporter"),
    host,
    sqlitePath: join(ctx.dir, "policy-reporter.db"),
  };
  let reporter: RunningReporter;
  let portTaken = false;
  try {
    reporter = await startReporter({ ...reporterOptions, port: options.port });
  } catch (error) {
    if (!portInUse(error) || options.port === 0) throw error;
    portTaken = true;
    reporter = await startReporter({ ...reporterOptions, port: 0 });
  }
  ctx.stops.push(() => reporter.stop());
  await reporter.synced;
  const shownHost = host === "0.0.0.0" ? "127.0.0.1" : host;
  const dashboardUrl = `http://${shownHost}:${reporter.port}/`;
  done(dashboardUrl);
  return { reporter, portTaken, shownHost, dashboardUrl };
}

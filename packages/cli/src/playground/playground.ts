/**
 * The playground: on one machine, in one process, the local Kubernetes API server, the admission
 * controller (its webhooks registered with that server), the reports controller fed by the admission
 * results, and Policy Reporter with the dashboard on an SQLite file; then the bundled policies and
 * example manifests applied through the API server, exactly as kubectl would send them.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { JsonObject, KubeObject } from "@kyverno-ts/api";
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
  DEFAULT_RESOURCE_FILTERS,
  type ReportsController,
  StartAborted,
  startClusterAdmission,
  systemClock,
} from "@kyverno-ts/server";
import { pino } from "pino";
import { startPlaygroundCleanup } from "./cleanup.js";
import { playgroundCrds } from "./crds.js";
import {
  type Actor,
  ARGOCD_USER,
  type ExampleStep,
  loadScenario,
  type Scenario,
  ScenarioError,
} from "./scenario.js";
import { waitFor, webhooksCover } from "./waiting.js";

/** Reports the stages of the start: `begin` returns the function that closes the stage. */
export interface PlaygroundProgress {
  begin(stage: string): (detail?: string) => void;
}

/** Options of `startPlayground`. */
export interface PlaygroundOptions {
  /** Folder for the cluster's state, the kubeconfig, the SQLite file and the logs (emptied at start). */
  dir: string;
  /** Dashboard port (0 picks a free one); when taken, a free port is used instead and `portTaken` set. */
  port: number;
  /** Listen address of every server (default 127.0.0.1: the playground is for this machine only). */
  host?: string;
  /** What to install and apply (default: the bundled policies and examples). */
  scenario?: Scenario;
  /** Skip applying the example manifests. */
  skipExamples?: boolean;
  progress?: PlaygroundProgress;
  /** Aborts a start in progress (Ctrl+C during the start). */
  signal?: AbortSignal;
}

/** What happened to one example manifest. */
export interface ExampleOutcome {
  step: ExampleStep;
  /** `created` (or `updated`), `blocked` by an Enforce policy, or `failed` for any other refusal. */
  result: "created" | "updated" | "blocked" | "failed";
  /** The API server's message when refused. */
  message?: string;
  /** Admission warnings (Audit violations), as kubectl prints them. */
  warnings: string[];
}

/** A running playground. */
export interface Playground {
  dashboardUrl: string;
  /** The port asked for was taken; the dashboard listens on another one. */
  portTaken: boolean;
  kubeconfigPath: string;
  /** The kubeconfig context of Argo CD's service account (for `kubectl --context`). */
  argocdContext: string;
  apiServerUrl: string;
  /** Every endpoint the playground serves, for its summary. */
  endpoints: PlaygroundEndpoints;
  logFile: string;
  outcomes: ExampleOutcome[];
  /** Client as `admin` (cluster administrator). */
  admin: KubeClient;
  reporter: RunningReporter;
  reports: ReportsController;
  /** The background controller (generate and mutate-existing rules, through UpdateRequests). */
  background: BackgroundController;
  /** Resolves once every admitted example has its report in the reporter's store. */
  reportsWritten(timeoutMs?: number): Promise<void>;
  /** Stops everything, in reverse order. Safe to call twice. */
  stop(): Promise<void>;
}

/** The URLs of everything the playground runs. */
export interface PlaygroundEndpoints {
  apiServer: string;
  admissionWebhooks: string;
  admissionMetrics: string;
  reportsMetrics: string;
  backgroundMetrics: string;
  cleanupWebhooks: string;
  cleanupMetrics: string;
  dashboard: string;
  /** Policy Reporter's REST API (`/v1/…`, `/v2/…` on the dashboard's origin), as one example URL. */
  reporterApi: string;
  reporterMetrics: string;
}

const noProgress: PlaygroundProgress = { begin: () => () => {} };

/** The background controller's user, as the chart names its ServiceAccount. */
const BACKGROUND_USER = "system:serviceaccount:kyverno:kyverno-background-controller";

/** What the chart lets the background controller do with what the bundled examples generate. */
const BACKGROUND_RBAC: KubeObject[] = [
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "kyverno:background-controller" },
    rules: [
      {
        apiGroups: ["", "networking.k8s.io"],
        resources: [
          "namespaces",
          "configmaps",
          "secrets",
          "resourcequotas",
          "limitranges",
          "networkpolicies",
        ],
        verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
      },
    ],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "kyverno:background-controller" },
    roleRef: {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "kyverno:background-controller",
    },
    subjects: [{ kind: "ServiceAccount", name: "kyverno-background-controller", namespace: "kyverno" }],
  },
];

function refOf(object: JsonObject): { apiVersion: string; kind: string; name: string; namespace?: string } {
  const meta = (object.metadata ?? {}) as { name?: string; namespace?: string };
  return {
    apiVersion: String(object.apiVersion),
    kind: String(object.kind),
    name: String(meta.name),
    ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
  };
}

/** Creates, or replaces when it exists, as `client`; the outcome as the user would see it. */
async function applyAs(client: KubeClient, step: ExampleStep): Promise<ExampleOutcome> {
  const created = await client.create<KubeObject>(step.object as KubeObject);
  if (created.ok) return { step, result: "created", warnings: created.warnings ?? [] };
  if (created.status === 409 && created.reason === "AlreadyExists") {
    const current = await client.get(refOf(step.object));
    if (current.ok) {
      const meta = { ...((step.object.metadata ?? {}) as JsonObject) };
      meta.resourceVersion = current.value.metadata?.resourceVersion ?? "";
      const updated = await client.update<KubeObject>({ ...step.object, metadata: meta } as KubeObject);
      if (updated.ok) return { step, result: "updated", warnings: updated.warnings ?? [] };
      return refusal(step, updated.message);
    }
  }
  return refusal(step, created.message);
}

function refusal(step: ExampleStep, message: string): ExampleOutcome {
  const blocked = /blocked due to the following policies/.test(message);
  return { step, result: blocked ? "blocked" : "failed", message, warnings: [] };
}

/** Marks a folder as the playground's, so that emptying it at the next start cannot hit user files. */
const MARKER = ".kyverno-ts-playground";

/** The one namespace PolicyExceptions count from in the playground (`--exceptionNamespace`). */
export const PLAYGROUND_EXCEPTION_NAMESPACE = "kyverno";

/**
 * Kyverno's ConfigMap as upstream's chart installs it (its `config.*` defaults), so that the
 * playground can be configured as a cluster is: both controllers watch it, edits apply at once.
 */
export function playgroundConfigMap(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "kyverno", namespace: "kyverno" },
    data: {
      resourceFilters: `${DEFAULT_RESOURCE_FILTERS} [*/*,kyverno,*]`,
      excludeGroups: "system:nodes",
      excludeUsernames: "",
      excludeRoles: "",
      excludeClusterRoles: "",
      generateSuccessEvents: "false",
      enableDefaultRegistryMutation: "true",
      defaultRegistry: "docker.io",
      updateRequestThreshold: "1000",
      webhooks: JSON.stringify([
        {
          namespaceSelector: {
            matchExpressions: [
              { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
            ],
          },
        },
      ]),
      webhookAnnotations: JSON.stringify({ "admissions.enforcer/disabled": "true" }),
      webhookLabels: "{}",
    },
  };
}

/**
 * Empties the state folder from the previous run. Only a folder this command created (it holds the
 * marker file) or an empty one is emptied; anything else is refused, so `--dir ~` deletes nothing.
 */
function prepareStateDir(dir: string): void {
  if (existsSync(dir)) {
    const entries = readdirSync(dir);
    if (entries.length > 0 && !entries.includes(MARKER))
      throw new ScenarioError(
        `${dir} is not empty and was not created by the playground; choose another --dir (it is emptied at every start)`,
      );
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, MARKER), "State of `kyverno-ts playground`: emptied at every start.\n");
}

function portInUse(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  return e?.code === "EADDRINUSE" || e?.cause?.code === "EADDRINUSE" || /EADDRINUSE/.test(String(e?.message));
}

/** Starts everything and applies the examples; resolves once the dashboard serves. */
export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const progress = options.progress ?? noProgress;
  const host = options.host ?? "127.0.0.1";
  const dir = resolve(options.dir);
  const scenario = options.scenario ?? loadScenario();
  const signal = options.signal ?? new AbortController().signal;
  prepareStateDir(dir);
  const logFile = join(dir, "playground.log");
  const logStream = pino.destination({ dest: logFile, sync: false, mkdir: true });
  const log = (component: string) => pino({ base: { component }, level: "info" }, logStream);
  const stops: Array<() => Promise<void> | void> = [() => logStream.flushSync()];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch {
        // Stopping is best effort: the next component still stops.
      }
    }
  };
  try {
    let done = progress.begin("local Kubernetes API server");
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

    // PolicyExceptions are off by default, as upstream; the playground turns them on for the
    // namespace `kyverno`, as the install guide recommends.
    const policyExceptions = { enabled: true, namespace: PLAYGROUND_EXCEPTION_NAMESPACE };
    done = progress.begin("admission controller");
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
      logger: log("admission-controller"),
      signal,
    });
    stops.push(() => admission.close());
    await waitFor(() => admission.ready(), { what: "the admission controller to be ready", signal });
    await waitFor(
      async () => webhooksCover(admin, [{ apiVersion: "kyverno.io/v1", kind: "ClusterPolicy" }]),
      {
        what: "the policy validation webhook",
        signal,
      },
    );
    done(`webhooks on https://${host}:${admission.port}, metrics on :${admission.metricsPort}`);

    done = progress.begin("background controller");
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
      logger: log("background-controller"),
      metrics: backgroundMetrics,
      // Generate and mutate-existing results reach the reports controller with the admission results.
      results: admission.results,
    });
    await background.start();
    stops.push(() => background.stop());
    const backgroundMetricsServer = createMetricsServer({ metrics: backgroundMetrics });
    const backgroundMetricsPort = (await backgroundMetricsServer.listen({ host, port: 0 })).port;
    stops.push(() => backgroundMetricsServer.close());
    done(`metrics on :${backgroundMetricsPort}`);

    done = progress.begin(`policies (${scenario.policies.length})`);
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

    done = progress.begin("reports controller");
    const reportsMetrics = createReportsMetrics();
    const reports = createReportsController({
      metrics: reportsMetrics,
      client: createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, clientType: "reports-controller" }),
      engine: createEngine({ exceptionNamespaces: acceptedExceptionNamespaces(policyExceptions) }),
      exceptionNamespaces: acceptedExceptionNamespaces(policyExceptions),
      leaderElection: false,
      kyvernoConfigMap: { namespace: "kyverno", name: "kyverno" },
      admissionResults: admission.results,
      logger: log("reports-controller"),
    });
    await reports.start();
    stops.push(() => reports.stop({ drain: false }));
    const reportsMetricsServer = createMetricsServer({ metrics: reportsMetrics });
    const reportsMetricsPort = (await reportsMetricsServer.listen({ host, port: 0 })).port;
    stops.push(() => reportsMetricsServer.close());
    done(`metrics on :${reportsMetricsPort}`);

    done = progress.begin("cleanup controller");
    const cleanup = await startPlaygroundCleanup({
      kubeconfigPath: sandbox.kubeconfigPath,
      host,
      logger: log("cleanup-controller"),
      signal,
    });
    stops.push(() => cleanup.stop());
    done(`webhooks on https://${host}:${cleanup.port}, metrics on :${cleanup.metricsPort}`);

    done = progress.begin("Policy Reporter and dashboard");
    const loaded = loadReporterConfig({ env: {}, hostname: "playground" });
    // Metrics on, so the summary can name every endpoint (served on the dashboard's port).
    const config = { ...loaded.config, metrics: { ...loaded.config.metrics, enabled: true } };
    const reporterOptions = {
      config,
      client: admin,
      logger: log("policy-reporter"),
      host,
      sqlitePath: join(dir, "policy-reporter.db"),
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
    stops.push(() => reporter.stop());
    await reporter.synced;
    const shownHost = host === "0.0.0.0" ? "127.0.0.1" : host;
    const dashboardUrl = `http://${shownHost}:${reporter.port}/`;
    done(dashboardUrl);

    const outcomes: ExampleOutcome[] = [];
    if (options.skipExamples !== true) {
      done = progress.begin(`example manifests (${scenario.steps.length} requests)`);
      const clients: Record<Actor, KubeClient> = { admin, argocd };
      for (const step of scenario.steps) outcomes.push(await applyAs(clients[step.actor], step));
      const blocked = outcomes.filter((o) => o.result === "blocked").length;
      const admitted = outcomes.filter((o) => o.result === "created" || o.result === "updated").length;
      done(`${admitted} admitted, ${blocked} blocked`);
    }

    const reportsWritten = async (timeoutMs = 30_000): Promise<void> => {
      const admitted = outcomes.filter((o) => o.result === "created" || o.result === "updated");
      await waitFor(
        async () => {
          for (const o of admitted) {
            const ref = refOf(o.step.object);
            const found = await reporter.store.resources({
              kinds: [ref.kind],
              resources: [ref.name],
              ...(ref.namespace !== undefined ? { namespaces: [ref.namespace] } : {}),
            });
            if (found.length === 0) return false;
          }
          return true;
        },
        { what: "the reports of the examples", timeoutMs, signal },
      );
    };

    return {
      dashboardUrl,
      portTaken,
      kubeconfigPath: sandbox.kubeconfigPath,
      argocdContext: ARGOCD_USER,
      apiServerUrl: sandbox.url,
      endpoints: {
        apiServer: sandbox.url,
        admissionWebhooks: `https://${shownHost}:${admission.port}`,
        admissionMetrics: `http://${shownHost}:${admission.metricsPort}/metrics`,
        reportsMetrics: `http://${shownHost}:${reportsMetricsPort}/metrics`,
        backgroundMetrics: `http://${shownHost}:${backgroundMetricsPort}/metrics`,
        cleanupWebhooks: `https://${shownHost}:${cleanup.port}`,
        cleanupMetrics: `http://${shownHost}:${cleanup.metricsPort}/metrics`,
        dashboard: dashboardUrl,
        reporterApi: `${dashboardUrl}v2/findings`,
        reporterMetrics: `${dashboardUrl}metrics`,
      },
      logFile,
      outcomes,
      admin,
      reporter,
      reports,
      background,
      reportsWritten,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    if (error instanceof StartAborted) throw new PlaygroundAborted();
    throw error;
  }
}

/** Thrown when the start was aborted (Ctrl+C). */
export class PlaygroundAborted extends Error {
  constructor() {
    super("start aborted");
    this.name = "PlaygroundAborted";
  }
}

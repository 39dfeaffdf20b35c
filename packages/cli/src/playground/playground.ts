/**
 * The playground: on one machine, in one process, the local Kubernetes API server, the admission
 * controller (its webhooks registered with that server), the reports controller fed by the admission
 * results, and Policy Reporter with the dashboard on an SQLite file; then the bundled policies and
 * example manifests applied through the API server, exactly as kubectl would send them.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { StartAborted } from "@kyverno-ts/server";
import { pino } from "pino";
import { applyExamples, generatingPolicies, reportsWritten } from "./playground-examples.js";
import {
  installPolicies,
  type StageContext,
  startAdmission,
  startApiServer,
  startBackground,
  startCleanup,
  startDashboard,
  startReports,
} from "./playground-stages.js";
import type { Playground, PlaygroundOptions, PlaygroundProgress } from "./playground-types.js";
import { ARGOCD_USER, loadScenario, ScenarioError } from "./scenario.js";

export { PLAYGROUND_EXCEPTION_NAMESPACE, playgroundConfigMap } from "./playground-objects.js";
export type {
  ExampleOutcome,
  Playground,
  PlaygroundEndpoints,
  PlaygroundOptions,
  PlaygroundProgress,
} from "./playground-types.js";

const noProgress: PlaygroundProgress = { begin: () => () => {} };

/** Marks a folder as the playground's, so that emptying it at the next start cannot hit user files. */
const MARKER = ".kyverno-ts-playground";

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

/** Runs the stops registered so far, last first, each best effort. */
async function stopAll(stops: StageContext["stops"]): Promise<void> {
  for (const stop of stops.splice(0).reverse()) {
    try {
      await stop();
    } catch {
      // Stopping is best effort: the next component still stops.
    }
  }
}

/** Starts everything and applies the examples; resolves once the dashboard serves. */
export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const host = options.host ?? "127.0.0.1";
  const dir = resolve(options.dir);
  const scenario = options.scenario ?? loadScenario();
  const signal = options.signal ?? new AbortController().signal;
  prepareStateDir(dir);
  const logFile = join(dir, "playground.log");
  const logStream = pino.destination({ dest: logFile, sync: false, mkdir: true });
  const ctx: StageContext = {
    options,
    host,
    dir,
    scenario,
    signal,
    progress: options.progress ?? noProgress,
    log: (component) => pino({ base: { component }, level: "info" }, logStream),
    stops: [() => logStream.flushSync()],
  };
  try {
    const { sandbox, admin, argocd } = await startApiServer(ctx);
    const admission = await startAdmission(ctx, sandbox, admin);
    const background = await startBackground(ctx, sandbox, admin, admission);
    await installPolicies(ctx, admin, admission);
    const reports = await startReports(ctx, sandbox, admission);
    const cleanup = await startCleanup(ctx, sandbox);
    const { reporter, portTaken, shownHost, dashboardUrl } = await startDashboard(ctx, admin);
    const outcomes = await applyExamples(ctx, { admin, argocd });

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
        reportsMetrics: `http://${shownHost}:${reports.metricsPort}/metrics`,
        backgroundMetrics: `http://${shownHost}:${background.metricsPort}/metrics`,
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
      reports: reports.controller,
      background: background.controller,
      reportsWritten: (timeoutMs = 30_000) =>
        reportsWritten(outcomes, generatingPolicies(scenario.policies), reporter, timeoutMs, signal),
      stop: () => stopAll(ctx.stops),
    };
  } catch (error) {
    await stopAll(ctx.stops);
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

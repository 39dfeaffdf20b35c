/** The playground's contract: its options, progress, outcomes and what a running one offers (`startPlayground`). */
import type { KubeClient } from "@kyverno-ts/kube";
import type { RunningReporter } from "@kyverno-ts/reporter";
import type { BackgroundController, ReportsController } from "@kyverno-ts/server";
import type { ExampleStep, Scenario } from "./scenario.js";

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

/**
 * `kyverno-ts admission`: the admission controller. Standalone mode (`--standalone`) needs no
 * cluster: policies come from files and a self-signed CA and serving certificate are generated, with
 * the `caBundle` printed for a webhook configuration pointing at this server. Without it, the
 * controller runs against a cluster (see `cluster-command.ts`).
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { parseDocuments } from "@kyverno-ts/api";
import { type ServerClock, systemClock } from "../clock.js";
import {
  type AdmissionController,
  startAdmissionController,
} from "../controllers/admission/admission-controller.js";
import {
  defaultKyvernoConfig,
  type KyvernoConfig,
  parseKyvernoConfig,
} from "../controllers/admission/filters.js";
import { caBundle, generateCertificates } from "../controllers/certificates/certificates.js";
import type { Logger } from "../logger.js";
import { readMetricsConfigFile } from "../metrics/configmap.js";
import { admissionConfigProblems } from "../metrics/metrics.js";
import { loadPolicyFiles } from "../standalone/load-policies.js";
import type { TlsMaterial } from "../webhooks/server.js";
import { ADMISSION_DESCRIPTION, type AdmissionArgs, parseAdmissionArgs } from "./args.js";
import type { ClusterHooks } from "./cluster-command.js";
import { openControllerLog } from "./controller-start.js";
import { stopSignal } from "./stop-signal.js";

/** Anything text can be written to (`process.stdout`, a test buffer). */
export interface TextOutput {
  write(text: string): unknown;
}

/** What a started controller tells its caller (tests and benchmarks use it instead of parsing stdout). */
export interface AdmissionReadyInfo {
  port: number;
  metricsPort: number;
  /** base64 PEM of the CA, for a webhook configuration's `clientConfig.caBundle`. */
  caBundle: string;
  caCertPem: string;
}

/** Options of `runAdmissionCommand`. */
export interface AdmissionCommandOptions {
  /** Arguments after `admission`. */
  args: readonly string[];
  stdout: TextOutput;
  stderr: TextOutput;
  /** Stops the server; when omitted, SIGINT and SIGTERM do. */
  signal?: AbortSignal;
  clock?: ServerClock;
  /** Structured logs; defaults to JSON lines on `stderr`. */
  logger?: Logger;
  /** Standalone mode: called once the server listens. */
  onReady?: (info: AdmissionReadyInfo) => void;
  /** Cluster mode: settings without a flag, and a callback once it serves. */
  cluster?: ClusterHooks;
  /** What `--help` prints (the CLI renders it from the flag table); default: the description. */
  usage?: string;
}

/** Exit statuses: 0 after a clean stop, 2 for unusable input (flags, policies, certificates). */
export const AdmissionExit = { Ok: 0, InputError: 2 } as const;

function readConfig(file: string | undefined): { config: KyvernoConfig; problems: string[] } {
  if (file === undefined) return { config: defaultKyvernoConfig(), problems: [] };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return { config: defaultKyvernoConfig(), problems: [`${file}: ${(error as Error).message}`] };
  }
  const doc = parseDocuments(text, file).documents[0]?.value;
  const data = doc !== null && typeof doc === "object" && !Array.isArray(doc) ? doc.data : undefined;
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return { config: defaultKyvernoConfig(), problems: [`${file}: expected a ConfigMap with data`] };
  const strings = Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
  const parsed = parseKyvernoConfig(strings);
  return { config: parsed.config, problems: parsed.problems.map((p) => `${file}: ${p}`) };
}

async function tlsMaterial(
  args: AdmissionArgs,
  clock: ServerClock,
): Promise<{ tls: TlsMaterial; caCertPem: string }> {
  if (args.tlsCertFile !== undefined && args.tlsKeyFile !== undefined) {
    const certPem = readFileSync(args.tlsCertFile, "utf8");
    return { tls: { certPem, keyPem: readFileSync(args.tlsKeyFile, "utf8") }, caCertPem: certPem };
  }
  const hosts = [...new Set(["localhost", "127.0.0.1", "::1", hostname(), ...args.extraHosts])];
  const bundle = await generateCertificates({ hosts, clock });
  return {
    tls: { certPem: bundle.serving.certPem, keyPem: bundle.serving.keyPem },
    caCertPem: bundle.ca.certPem,
  };
}

/** Runs the admission controller (standalone or cluster mode) until stopped; resolves with the exit status. */
export async function runAdmissionCommand(options: AdmissionCommandOptions): Promise<number> {
  const { stdout, stderr } = options;
  const parsed = parseAdmissionArgs(options.args);
  if (!parsed.ok) {
    stderr.write(`error: ${parsed.message}\n(run kyverno-ts admission --help for the flags)\n`);
    return AdmissionExit.InputError;
  }
  const args = parsed.args;
  if (args.help) {
    stdout.write(options.usage ?? `Usage: kyverno-ts admission [flags]\n\n${ADMISSION_DESCRIPTION}\n`);
    return AdmissionExit.Ok;
  }
  const clock = options.clock ?? systemClock();
  const logger = openControllerLog({
    name: "admission-controller",
    log: args.log,
    stderr,
    clock,
    logger: options.logger,
    warnings: args.warnings,
  });
  if (!args.standalone) {
    // Loaded on use: the cluster-only modules (informers, the kube client, reports, external data)
    // would otherwise stay in a standalone server's heap.
    const { runClusterMode } = await import("./cluster-command.js");
    const stop = stopSignal(options.signal);
    try {
      return await runClusterMode({
        args,
        stdout,
        stderr,
        signal: stop.signal,
        clock,
        logger,
        ...(options.cluster ? { hooks: options.cluster } : {}),
      });
    } finally {
      stop.dispose();
    }
  }
  if (args.disableMetrics)
    logger.warn({}, "--disableMetrics applies in a cluster; --standalone always serves metrics");
  if (args.policies.length === 0) {
    stderr.write(
      "error: --policies is required in standalone mode\n(run kyverno-ts admission --help for the flags)\n",
    );
    return AdmissionExit.InputError;
  }
  const loaded = loadPolicyFiles(args.policies);
  const config = readConfig(args.configFile);
  const metricsConfig =
    args.metricsConfigFile === undefined ? undefined : readMetricsConfigFile(args.metricsConfigFile);
  const problems = [...loaded.problems, ...config.problems, ...(metricsConfig?.problems ?? [])];
  for (const w of loaded.warnings) stderr.write(`warning: ${w}\n`);
  if (metricsConfig && args.metricsConfigFile !== undefined)
    for (const w of admissionConfigProblems(metricsConfig.config, args.metricsConfigFile))
      stderr.write(`warning: ${w}\n`);
  if (!args.policyExceptions.enabled && loaded.exceptions.length > 0)
    stderr.write(
      `warning: ${loaded.exceptions.length} PolicyException(s) in --policies are ignored: --enablePolicyException is off\n`,
    );
  if (problems.length > 0) {
    for (const p of problems) stderr.write(`error: ${p}\n`);
    return AdmissionExit.InputError;
  }
  let tls: Awaited<ReturnType<typeof tlsMaterial>>;
  try {
    tls = await tlsMaterial(args, clock);
  } catch (error) {
    stderr.write(`error: TLS certificate: ${(error as Error).message}\n`);
    return AdmissionExit.InputError;
  }
  let controller: AdmissionController;
  try {
    controller = await startAdmissionController({
      policies: loaded.policies,
      exceptions: loaded.exceptions,
      celPolicies: loaded.celPolicies,
      config: config.config,
      ...(metricsConfig ? { metricsConfig: metricsConfig.config } : {}),
      tls: tls.tls,
      clock,
      logger,
      host: args.host,
      port: args.port,
      metricsPort: args.metricsPort,
      webhookTimeoutSeconds: args.webhookTimeoutSeconds,
      policyExceptions: args.policyExceptions,
      evaluation: {
        workers: args.evaluationWorkers,
        limits: args.evaluationLimits,
        inlineMs: args.evaluationInlineMs,
        workerScheduling: args.evaluationWorkerScheduling,
        forceFailurePolicyIgnore: args.forceFailurePolicyIgnore,
      },
    });
  } catch (error) {
    stderr.write(`error: cannot start: ${(error as Error).message}\n`);
    return AdmissionExit.InputError;
  }
  const notReady = [...controller.statuses].filter(([, s]) => !s.ready);
  if (notReady.length > 0) {
    for (const [key, s] of notReady) stderr.write(`error: policy ${key} is not ready: ${s.message}\n`);
    await controller.close();
    return AdmissionExit.InputError;
  }
  const rules = controller.cache.policies().reduce((n, p) => n + p.compiled.ruleNames.length, 0);
  const bundle = caBundle(tls.caCertPem);
  stdout.write(
    `kyverno-ts admission (standalone): ${controller.cache.policies().length} policies (${rules} rules), ` +
      `${loaded.exceptions.length} exceptions${args.policyExceptions.enabled ? "" : " (ignored: --enablePolicyException is off)"}` +
      `${loaded.celPolicies.length > 0 ? `, ${loaded.celPolicies.length} CEL policies` : ""}\n` +
      `webhooks: https://${args.host}:${controller.port} (/validate/fail /validate/ignore /mutate/fail /mutate/ignore /policyvalidate /exceptionvalidate` +
      `${loaded.celPolicies.length > 0 ? " /vpol/fail /vpol/ignore /mpol/fail /mpol/ignore" : ""})\n` +
      `metrics: http://${args.host}:${controller.metricsPort}/metrics\n` +
      `caBundle: ${bundle}\n`,
  );
  options.onReady?.({
    port: controller.port,
    metricsPort: controller.metricsPort,
    caBundle: bundle,
    caCertPem: tls.caCertPem,
  });
  const stop = stopSignal(options.signal);
  await new Promise<void>((resolve) => {
    if (stop.signal.aborted) resolve();
    else stop.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  stop.dispose();
  await controller.close();
  return AdmissionExit.Ok;
}

/**
 * `kyverno-ts playground`: the local playground (`npm start`). Starts the API server, both
 * controllers, Policy Reporter and the dashboard, applies the bundled examples, prints what happened
 * and how to go on, then runs until Ctrl+C (or stops right away with `--setup-only`).
 */
import { resolve } from "node:path";
import type { CliIo } from "../io.js";
import { clockOf, ExitCode } from "../io.js";
import type { ExampleOutcome, Playground, PlaygroundProgress } from "../playground/playground.js";

/** Flags of `kyverno-ts playground`. */
export interface PlaygroundFlags {
  port: number;
  dir: string;
  host: string;
  examples: boolean;
  setupOnly: boolean;
}

/** Stage lines: `[2/6] admission controller … done in 0.4 s (detail)`. */
function stageWriter(io: CliIo, total: number): PlaygroundProgress {
  const now = clockOf(io);
  let index = 0;
  return {
    begin(stage) {
      index++;
      const started = now();
      io.stdout.write(`[${index}/${total}] ${stage} …`);
      return (detail) => {
        const seconds = ((now() - started) / 1000).toFixed(1);
        io.stdout.write(` ready in ${seconds} s${detail ? `: ${detail}` : ""}\n`);
      };
    },
  };
}

function kindName(outcome: ExampleOutcome): string {
  const meta = (outcome.step.object.metadata ?? {}) as { name?: string; namespace?: string };
  return `${String(outcome.step.object.kind)} ${meta.namespace ? `${meta.namespace}/` : ""}${meta.name ?? ""}`;
}

/** The per-manifest lines: what was admitted with which warnings, what was blocked and why. */
function describeOutcomes(outcomes: readonly ExampleOutcome[]): string {
  const lines: string[] = [];
  for (const o of outcomes) {
    const who = o.step.actor === "argocd" ? "as Argo CD" : "by hand";
    lines.push(`  ${o.step.file}: ${kindName(o)}, ${who}`);
    if (o.result === "blocked" || o.result === "failed") {
      const [first = "", ...rest] = (o.message ?? "").split("\n").map((l) => l.trim());
      const blocked = o.result === "blocked";
      lines.push(`    ${blocked ? "BLOCKED (Enforce)" : "REFUSED"}: ${first}`);
      for (const l of rest) if (l !== "") lines.push(`      ${l}`);
    } else if (o.warnings.length === 0) lines.push(`    ${o.result}: passes every policy`);
    else {
      lines.push(`    ${o.result}, violations recorded (Audit), kubectl warns:`);
      for (const w of o.warnings) lines.push(`      ${w.trim()}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function nextSteps(p: Playground, cwd: string): string {
  const kubeconfig = p.kubeconfigPath.startsWith(`${cwd}/`)
    ? p.kubeconfigPath.slice(cwd.length + 1)
    : p.kubeconfigPath;
  const e = p.endpoints;
  return [
    "",
    `Dashboard:                ${e.dashboard}${p.portTaken ? "   (the requested port was taken; this one was free)" : ""}`,
    `Policy Reporter API:      ${e.reporterApi}   (and the other /v1, /v2 routes)`,
    `Policy Reporter metrics:  ${e.reporterMetrics}`,
    `Kubernetes API server:    ${e.apiServer}`,
    `Kubeconfig:               ${kubeconfig}`,
    `Admission webhooks:       ${e.admissionWebhooks}`,
    `Admission metrics:        ${e.admissionMetrics}`,
    `Reports metrics:          ${e.reportsMetrics}`,
    `Logs:                     ${p.logFile}`,
    "",
    "Try more with kubectl (in another terminal):",
    `  kubectl --kubeconfig ${kubeconfig} get policyreports -A`,
    `  kubectl --kubeconfig ${kubeconfig} run debug -n staging --image=busybox:latest --privileged`,
    `  kubectl --kubeconfig ${kubeconfig} --context ${p.argocdContext} apply -f examples/production/`,
    "",
  ].join("\n");
}

/** The first SIGINT / SIGTERM, and a way to stop listening for them. */
function interruption(): { happened: Promise<void>; dispose(): void } {
  let stop = () => {};
  const happened = new Promise<void>((done) => {
    stop = () => {
      dispose();
      done();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  const dispose = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  };
  return { happened, dispose };
}

/** Runs the playground; resolves with the exit status once stopped. */
export async function runPlayground(flags: PlaygroundFlags, io: CliIo): Promise<number> {
  const aborter = new AbortController();
  const interrupt = interruption();
  void interrupt.happened.then(() => aborter.abort());
  try {
    return await runUntilStopped(flags, io, aborter.signal, interrupt.happened);
  } finally {
    interrupt.dispose();
  }
}

async function runUntilStopped(
  flags: PlaygroundFlags,
  io: CliIo,
  signal: AbortSignal,
  interrupted: Promise<void>,
): Promise<number> {
  const { startPlayground, PlaygroundAborted } = await import("../playground/playground.js");
  const { ScenarioError } = await import("../playground/scenario.js");
  io.stdout.write(
    "Starting the kyverno-ts playground (everything on this machine, nothing else to install)\n",
  );
  let playground: Playground;
  try {
    playground = await startPlayground({
      dir: resolve(io.cwd, flags.dir),
      port: flags.port,
      host: flags.host,
      skipExamples: !flags.examples,
      progress: stageWriter(io, flags.examples ? 6 : 5),
      signal,
    });
  } catch (error) {
    io.stdout.write("\n");
    if (error instanceof PlaygroundAborted || signal.aborted) {
      io.stderr.write("Stopped before the playground was ready.\n");
      return ExitCode.Ok;
    }
    const input = error instanceof ScenarioError;
    io.stderr.write(`error: the playground could not start: ${(error as Error).message}\n`);
    io.stderr.write(`The components' logs are in ${resolve(io.cwd, flags.dir, "playground.log")}\n`);
    return input ? ExitCode.InputError : ExitCode.Failure;
  }
  if (playground.outcomes.length > 0) {
    io.stdout.write(`\nExample manifests (policies audit everywhere and enforce in namespace production):\n`);
    io.stdout.write(describeOutcomes(playground.outcomes));
    try {
      await playground.reportsWritten();
      const counts = await playground.reporter.store.countBy(["status"], {});
      const summary = counts.map((c) => `${c.count} ${c.status}`).join(", ");
      io.stdout.write(`\nPolicy reports written and stored: ${summary || "no results"}\n`);
    } catch (error) {
      io.stderr.write(`warning: ${(error as Error).message}\n`);
    }
  }
  io.stdout.write(nextSteps(playground, io.cwd));
  if (flags.setupOnly) {
    await playground.stop();
    io.stdout.write("Stopped (--setup-only).\n");
    return ExitCode.Ok;
  }
  io.stdout.write("Press Ctrl+C to stop.\n");
  await interrupted;
  io.stdout.write("\nStopping …\n");
  await playground.stop();
  io.stdout.write("Stopped.\n");
  return ExitCode.Ok;
}

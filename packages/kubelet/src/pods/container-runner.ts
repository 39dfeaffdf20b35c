/**
 * One container of a Pod through its life: started by the runtime, probed (startup, then liveness and
 * readiness, with their delays, periods and thresholds), killed and restarted with kubelet's backoff
 * (10 s doubling to 5 min, reset after 10 min of running) per the restart policy, and stopped with its
 * preStop hook, SIGTERM and SIGKILL after the grace period.
 */

import type { ContainerExit, ContainerLaunch, ContainerRuntime, RunningContainer } from "../runtime/types.js";
import type { ContainerLog } from "./container-log.js";
import type { Container, ContainerState, ContainerStatus, Probe } from "./pod-types.js";
import { runHandler } from "./probes.js";

/** What a runner needs from its Pod. */
export interface ContainerRunnerOptions {
  runtime: ContainerRuntime;
  container: Container;
  /** Builds the launch of each new instance (env, mounts, a fresh scratch directory). */
  launch: () => Promise<ContainerLaunch>;
  podIP: string;
  restartPolicy: "Always" | "OnFailure" | "Never";
  isInit: boolean;
  log: ContainerLog;
  /** Called whenever the status changes. */
  onChange: () => void;
  /** First restart delay (default 10000 ms, as the kubelet). */
  backoffBaseMs?: number;
}

/** A running (or finished) container. */
export interface ContainerRunner {
  status(): ContainerStatus;
  ready(): boolean;
  /** Resolves with the last exit once the container will not be started again. */
  readonly finished: Promise<ContainerExit>;
  /** Runs preStop (when `preStop`), sends SIGTERM, and SIGKILL once `graceMs` have passed. */
  stop(graceMs: number, preStop: boolean): Promise<void>;
}

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, "Z");

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

function signalNumber(signal: string | null): number | undefined {
  return signal === "SIGKILL" ? 9 : signal === "SIGTERM" ? 15 : undefined;
}

/** Starts running `options.container` (the first instance starts at once). */
export function startContainerRunner(options: ContainerRunnerOptions): ContainerRunner {
  const { container, log } = options;
  let state: ContainerState = { waiting: { reason: "ContainerCreating" } };
  let lastState: ContainerStatus["lastState"] = {};
  let restartCount = 0;
  let started = false;
  let isReady = false;
  let stopping = false;
  let running: RunningContainer | undefined;
  let instance = new AbortController();
  const stopSignal = new AbortController();
  const changed = (): void => options.onChange();

  const killForRestart = (why: string): void => {
    log.append(Buffer.from(`kubelet: ${why}; the container will be restarted\n`));
    const current = running;
    current?.signal("SIGTERM");
    setTimeout(() => current?.signal("SIGKILL"), 30000).unref();
  };

  const probeLoop = async (
    probe: Probe,
    kind: "startup" | "liveness" | "readiness",
    signal: AbortSignal,
  ): Promise<boolean> => {
    const period = (probe.periodSeconds ?? 10) * 1000;
    const failureThreshold = probe.failureThreshold ?? 3;
    const successThreshold = probe.successThreshold ?? 1;
    let failures = 0;
    let successes = 0;
    await sleep((probe.initialDelaySeconds ?? 0) * 1000, signal);
    while (!signal.aborted) {
      const result = await runHandler(container, probe, options.podIP, (probe.timeoutSeconds ?? 1) * 1000);
      if (signal.aborted) return false;
      if (result.ok) {
        failures = 0;
        successes++;
        if (kind === "startup") return true;
        if (kind === "readiness" && successes >= successThreshold && !isReady) {
          isReady = true;
          changed();
        }
      } else {
        successes = 0;
        failures++;
        if (failures >= failureThreshold) {
          if (kind === "readiness" && isReady) {
            isReady = false;
            changed();
          }
          if (kind !== "readiness") {
            killForRestart(`${kind} probe failed ${failures} times: ${result.message}`);
            return false;
          }
        }
      }
      await sleep(period, signal);
    }
    return false;
  };

  const runProbes = async (signal: AbortSignal): Promise<void> => {
    if (container.startupProbe !== undefined && !(await probeLoop(container.startupProbe, "startup", signal)))
      return;
    started = true;
    if (container.readinessProbe === undefined && !options.isInit) isReady = true;
    changed();
    if (container.livenessProbe !== undefined) void probeLoop(container.livenessProbe, "liveness", signal);
    if (container.readinessProbe !== undefined) void probeLoop(container.readinessProbe, "readiness", signal);
  };

  const shouldRestart = (exit: ContainerExit): boolean => {
    const failed = exit.code !== 0;
    if (options.restartPolicy === "Never") return false;
    if (options.isInit) return failed;
    return options.restartPolicy === "Always" || failed;
  };

  const loop = async (): Promise<ContainerExit> => {
    let exit: ContainerExit = { code: null, signal: null };
    while (!stopping) {
      instance = new AbortController();
      let launch: ContainerLaunch;
      try {
        launch = await options.launch();
      } catch (e) {
        state = {
          waiting: {
            reason: "CreateContainerConfigError",
            message: e instanceof Error ? e.message : String(e),
          },
        };
        changed();
        await sleep(2000, stopSignal.signal);
        continue;
      }
      if (stopping) break;
      const startedAt = now();
      const begin = Date.now();
      running = await options.runtime.start(launch, (chunk) => log.append(chunk));
      state = { running: { startedAt } };
      changed();
      void runProbes(instance.signal);
      exit = await running.exited;
      instance.abort();
      running = undefined;
      started = false;
      isReady = false;
      const code = exit.code ?? 128 + (signalNumber(exit.signal) ?? 0);
      const terminated = {
        exitCode: code,
        ...(signalNumber(exit.signal) === undefined ? {} : { signal: signalNumber(exit.signal) }),
        reason: code === 0 ? "Completed" : "Error",
        startedAt,
        finishedAt: now(),
      };
      state = { terminated };
      if (stopping || !shouldRestart(exit)) {
        changed();
        break;
      }
      lastState = { terminated };
      restartCount++;
      const base = options.backoffBaseMs ?? 10000;
      const ranLong = Date.now() - begin > 600000;
      const delay = ranLong ? 0 : Math.min(base * 2 ** Math.min(restartCount - 1, 10), 300000);
      state = {
        waiting: {
          reason: "CrashLoopBackOff",
          message: `back-off ${Math.round(delay / 1000)}s restarting failed container=${container.name}`,
        },
      };
      changed();
      await sleep(delay, stopSignal.signal);
      if (!stopping) log.restart();
    }
    return exit;
  };

  const finished = loop();

  return {
    status: () => ({
      name: container.name,
      image: container.image,
      imageID: container.image,
      ready: isReady,
      started,
      restartCount,
      state,
      lastState,
    }),
    ready: () => isReady,
    finished,
    async stop(graceMs, preStop) {
      if (stopping) {
        await finished;
        return;
      }
      stopping = true;
      stopSignal.abort();
      const wasReady = isReady;
      isReady = false;
      if (wasReady) changed();
      const deadline = Date.now() + graceMs;
      const current = running;
      if (current !== undefined) {
        const hook = container.lifecycle?.preStop;
        if (preStop && hook !== undefined) {
          const result = await Promise.race([
            runHandler(container, hook, options.podIP, graceMs),
            new Promise<undefined>((r) => setTimeout(() => r(undefined), graceMs)),
          ]);
          if (result !== undefined && !result.ok)
            log.append(Buffer.from(`kubelet: preStop hook failed: ${result.message}\n`));
        }
        current.signal("SIGTERM");
        const left = Math.max(0, deadline - Date.now());
        const timer = setTimeout(() => current.signal("SIGKILL"), Math.max(left, 2000));
        await current.exited;
        clearTimeout(timer);
      }
      instance.abort();
      await finished;
    },
  };
}

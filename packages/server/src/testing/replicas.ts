/**
 * The test side of the end-to-end suites: admission controller replicas as child processes (started
 * from the current sources through `ts-hooks.ts`), a Service router playing the part of a Service's
 * endpoints for the sandbox (`resolveService`).
 */
import { fileURLToPath } from "node:url";
// ".ts": scripts/bench-background.ts imports this file with plain node (no module hooks).
import { forkController } from "./controller-process.ts";

const ENTRY = fileURLToPath(new URL("./replica-main.ts", import.meta.url));

/** What a replica's request returned (see `replica-main.ts`). */
export interface OfferedResult {
  uid: string;
  operation: string;
  resource: { kind: string; namespace: string; name: string };
  policies: string[];
}

/** Options of `startReplica`. */
export interface ReplicaOptions {
  kubeconfig: string;
  identity: string;
  /** More `kyverno-ts admission` flags. */
  args?: string[];
  /** Leader election timings instead of 12 s / 10 s / 2 s. */
  leaderTimings?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** How long to wait for the replica to serve (default 30 s). */
  startTimeoutMs?: number;
}

/** A running replica process. */
export interface Replica {
  readonly identity: string;
  readonly port: number;
  readonly metricsPort: number;
  /** The last 64 KiB of its stdout and stderr (JSON logs), for failure messages. */
  output(): string;
  /** Drains the admission results the replica holds for the reports controller. */
  results(): Promise<OfferedResult[]>;
  isLeader(): Promise<boolean>;
  /** Graceful stop (as SIGTERM); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing is handed over. */
  kill(): Promise<void>;
}

interface Reply {
  type: "reply";
  id: number;
  value: unknown;
}

/** Starts `kyverno-ts admission` (cluster mode) in a child process; resolves once it serves. */
export async function startReplica(options: ReplicaOptions): Promise<Replica> {
  const started = await forkController({
    name: `replica ${options.identity}`,
    entry: ENTRY,
    typescript: true,
    kubeconfig: options.kubeconfig,
    identity: options.identity,
    args: ["--host", "127.0.0.1", "--port", "0", ...(options.args ?? [])],
    ...(options.leaderTimings ? { leaderTimings: options.leaderTimings } : {}),
    outputBytes: 65_536,
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
  });
  const { child } = started;
  let nextId = 0;
  const pending = new Map<number, (value: unknown) => void>();
  child.on("message", (m: unknown) => {
    const reply = m as Reply;
    if (reply.type === "reply") pending.get(reply.id)?.(reply.value);
  });
  const ask = <T>(type: "results" | "state"): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (value) => {
        pending.delete(id);
        resolve(value as T);
      });
      if (!child.connected) reject(new Error(`replica ${options.identity} is not running`));
      else child.send({ type, id });
    });
  return {
    identity: options.identity,
    port: started.ready.port ?? 0,
    metricsPort: started.ready.metricsPort ?? 0,
    output: started.output,
    results: () => ask<OfferedResult[]>("results"),
    isLeader: async () => (await ask<{ leader: boolean }>("state")).leader,
    stop: started.stop,
    kill: started.kill,
  };
}

/**
 * The endpoints of the webhook Service, for the sandbox's `resolveService`: requests go round-robin to
 * the replicas added (as kube-proxy spreads them over ready Pods); with none, to a closed port.
 */
export interface ServiceRouter {
  resolve(namespace: string, name: string, port: number): string;
  add(port: number): void;
  /** Takes a replica out of the endpoints (as when its Pod starts terminating). */
  remove(port: number): void;
}

/** Creates an empty router. */
export function createServiceRouter(): ServiceRouter {
  const ports: number[] = [];
  let turn = 0;
  return {
    resolve() {
      const port = ports.length === 0 ? 1 : (ports[turn++ % ports.length] as number);
      return `https://127.0.0.1:${port}`;
    },
    add(port) {
      if (!ports.includes(port)) ports.push(port);
    },
    remove(port) {
      const i = ports.indexOf(port);
      if (i >= 0) ports.splice(i, 1);
    },
  };
}

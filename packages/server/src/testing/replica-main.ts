/**
 * Entry point of one admission controller replica in the end-to-end tests: `kyverno-ts admission`
 * (cluster mode) with the arguments it is given, in its own process so that a slow policy blocks only
 * this replica and a SIGKILL is a real crash. It talks to the test over the IPC channel: `ready`
 * (ports) once serving; on request, the admission results it holds (drained) and whether it leads;
 * `stop` for a graceful shutdown (as SIGTERM).
 */
import { runAdmissionCommand } from "../bin/admission.js";
import type { ClusterAdmission } from "../controllers/admission/cluster/cluster-admission.js";

/** Messages from the test. */
type Request = { type: "stop" } | { type: "results"; id: number } | { type: "state"; id: number };

/** Runs the replica until the test stops it (or goes away); resolves with the exit status. */
async function main(): Promise<number> {
  const stop = new AbortController();
  let admission: ClusterAdmission | undefined;
  const send = (message: object): void => {
    process.send?.(message);
  };
  process.on("message", (raw: unknown) => {
    const message = raw as Request;
    if (message.type === "stop") stop.abort();
    else if (message.type === "results") {
      const drained = admission?.results.drain() ?? [];
      send({
        type: "reply",
        id: message.id,
        value: drained.map((r) => ({
          uid: r.uid,
          operation: r.operation,
          resource: r.resource,
          policies: r.responses.map((p) => p.policy.name),
        })),
      });
    } else if (message.type === "state")
      send({ type: "reply", id: message.id, value: { leader: admission?.isLeader() ?? false } });
  });
  process.on("disconnect", () => stop.abort());
  const timings = process.env.KYVERNO_TS_LEADER_TIMINGS;
  return runAdmissionCommand({
    args: process.argv.slice(2),
    stdout: process.stdout,
    stderr: process.stderr,
    signal: stop.signal,
    cluster: {
      ...(timings ? { leaderTimings: JSON.parse(timings) } : {}),
      onStarted: (started) => {
        admission = started;
        send({ type: "ready", port: started.port, metricsPort: started.metricsPort });
      },
    },
  });
}

process.exit(await main());

/**
 * Entry point of a background controller process in the end-to-end tests: `kyverno-ts background`
 * with the arguments it is given, in its own process so that a SIGKILL is a real crash. It tells the
 * test `ready` (metrics port) over IPC once its informers have synced; `stop` stops it gracefully.
 */
import { runBackgroundCommand } from "../bin/background.js";

const stop = new AbortController();
process.on("message", (raw: unknown) => {
  if ((raw as { type?: string }).type === "stop") stop.abort();
});
process.on("disconnect", () => stop.abort());
const timings = process.env.KYVERNO_TS_LEADER_TIMINGS;
const code = await runBackgroundCommand({
  args: process.argv.slice(2),
  stdout: process.stdout,
  stderr: process.stderr,
  signal: stop.signal,
  ...(timings ? { leaderTimings: JSON.parse(timings) } : {}),
  onReady: ({ metricsPort }) => process.send?.({ type: "ready", metricsPort }),
});
process.exit(code);

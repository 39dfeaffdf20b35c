// The benchmark's background controller process: `kyverno-ts background` from the built packages
// (dist), as the image runs it, with the IPC protocol of packages/server/src/testing/background.ts.
import { runBackgroundCommand } from "../../packages/server/dist/index.js";

const stop = new AbortController();
process.on("message", (raw: unknown) => {
  if ((raw as { type?: string }).type === "stop") stop.abort();
});
process.on("disconnect", () => stop.abort());
const code = await runBackgroundCommand({
  args: process.argv.slice(2),
  stdout: process.stdout,
  stderr: process.stderr,
  signal: stop.signal,
  onReady: ({ metricsPort }) => process.send?.({ type: "ready", metricsPort }),
});
process.exit(code);

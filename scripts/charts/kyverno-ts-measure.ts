// Measures the kyverno-ts chart: `helm template` wall time per profile (median of N runs, with the
// fastest and slowest), the bytes it renders, and the release Secret Helm would store (the chart,
// values and manifest, JSON + gzip + base64) against Kubernetes' 1 MiB limit.
//
//   node scripts/charts/kyverno-ts-measure.ts [--runs 10]
//
// Plain Node 24 type stripping: erasable TypeScript only.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { dryRunRelease, PROFILES, releaseSecretBytes, template } from "./kyverno-ts-helm.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "10" } } });
const runs = Math.max(1, Number(values.runs));
const MIB = 1024 * 1024;

template(); // extract Helm and warm the page cache before timing
for (const [profile, files] of Object.entries(PROFILES)) {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const run = template(files);
    times.push(performance.now() - start);
    if (run.status !== 0) throw new Error(`helm template (${profile}) failed: ${run.stderr}`);
    bytes = Buffer.byteLength(run.stdout);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  const secret = releaseSecretBytes(dryRunRelease(files));
  process.stdout.write(
    `${profile.padEnd(10)} helm template: median ${median.toFixed(0)} ms (min ${times[0]?.toFixed(0)}, ` +
      `max ${times.at(-1)?.toFixed(0)}, ${runs} runs), ${(bytes / 1024).toFixed(0)} KiB rendered; ` +
      `release Secret ${(secret / 1024).toFixed(0)} KiB (${((secret / MIB) * 100).toFixed(1)} % of 1 MiB)\n`,
  );
}

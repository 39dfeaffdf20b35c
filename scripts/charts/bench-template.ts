/**
 * How long `helm template` takes for the charts, against a floor measured in the same run (`helm
 * version`: starting the Helm binary and nothing else).
 *
 *   node scripts/charts/bench-template.ts [--runs 20]
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureHelm } from "../cluster-tools.ts";
import { REPO_ROOT } from "./generate.ts";

/** One measured command: a label and the Helm arguments. */
interface Case {
  label: string;
  args: string[];
}

const template = (chart: string, ...values: string[]): string[] => [
  "template",
  "bench",
  join(REPO_ROOT, chart),
  ...values.flatMap((v) => ["-f", join(REPO_ROOT, v)]),
];

const CASES: Case[] = [
  { label: "floor: helm version", args: ["version"] },
  { label: "kyverno-ts-policies, default values", args: template("charts/kyverno-ts-policies") },
  {
    label: "kyverno-ts-policies, production values",
    args: template("charts/kyverno-ts-policies", "examples/helm/values-policies-production.yaml"),
  },
  { label: "policy-reporter, default values", args: template("charts/policy-reporter") },
  {
    label: "policy-reporter, PostgreSQL + Redis + 2 replicas",
    args: template("charts/policy-reporter", "examples/helm/values-policy-reporter.yaml"),
  },
];

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

/** Runs every case `runs` times (interleaved, so drift hits all alike) and prints min / median / p90 in ms. */
export function benchTemplate(runs: number): void {
  const helm = ensureHelm();
  const times = new Map<string, number[]>(CASES.map((c) => [c.label, []]));
  for (let i = 0; i < runs; i++) {
    for (const c of CASES) {
      const start = process.hrtime.bigint();
      const out = spawnSync(helm, c.args, { encoding: "utf8" });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (out.status !== 0) throw new Error(`${c.label}: helm failed: ${out.stderr}`);
      times.get(c.label)?.push(ms);
    }
  }
  const width = Math.max(...CASES.map((c) => c.label.length));
  process.stdout.write(`${"case".padEnd(width)}   min ms  median ms  p90 ms   (${runs} runs each)\n`);
  for (const c of CASES) {
    const sorted = [...(times.get(c.label) ?? [])].sort((a, b) => a - b);
    const cols = [sorted[0] ?? Number.NaN, percentile(sorted, 50), percentile(sorted, 90)].map((n) =>
      n.toFixed(1).padStart(8),
    );
    process.stdout.write(`${c.label.padEnd(width)} ${cols.join("  ")}\n`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf("--runs");
  const runs = at > 0 ? Number(process.argv[at + 1]) : 20;
  if (!Number.isInteger(runs) || runs < 1) {
    process.stderr.write("usage: node scripts/charts/bench-template.ts [--runs N]\n");
    process.exit(2);
  }
  benchTemplate(runs);
}

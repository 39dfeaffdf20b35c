/**
 * Upstream controller flags through the chart's `extraArgs`: a values file written for the upstream
 * kyverno chart (fixtures/upstream-extra-args.yaml) renders, its flags come after the chart's own (so
 * they win, as in Go), and the rendered container arguments start the binaries: each controller's
 * parser takes them, and `kyverno-ts <controller> <args> --help` (the real CLI, which parses before it
 * prints the help) exits 0. Flags kyverno-ts does not act on produce their start-up warning instead of
 * an exit.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAdmissionArgs } from "../../packages/server/src/bin/args.ts";
import { parseBackgroundArgs } from "../../packages/server/src/bin/background.ts";
import { parseCleanupArgs } from "../../packages/server/src/bin/cleanup.ts";
import { parseReportsArgs } from "../../packages/server/src/bin/reports.ts";
import { find, type Obj, render, template } from "./kyverno-ts-helm.ts";

const VALUES = fileURLToPath(new URL("./fixtures/upstream-extra-args.yaml", import.meta.url));
const CLI = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

const argsOf = (objects: readonly Obj[], name: string): string[] => {
  const d = find(objects, "Deployment", name) as Obj;
  const pod = (d.spec as { template: { spec: { containers: Array<{ args: string[] }> } } }).template.spec;
  return pod.containers[0]?.args ?? [];
};

describe("upstream flags through extraArgs", { timeout: 60_000 }, () => {
  const objects = render([VALUES]);
  const admission = argsOf(objects, "kyverno-admission-controller");
  const reports = argsOf(objects, "kyverno-reports-controller");
  const background = argsOf(objects, "kyverno-background-controller");
  const cleanup = argsOf(objects, "kyverno-cleanup-controller");

  it("renders each flag once as --flag=value after the chart's own, whole numbers as integers", () => {
    // The extraArgs close the list (sorted by flag), after every flag the chart sets itself.
    expect(admission.indexOf("--v=2")).toBeLessThan(admission.length - 13);
    expect(admission.slice(-13)).toEqual([
      "--clientRateLimitBurst=100",
      "--clientRateLimitQPS=50",
      "--dumpPayload=true",
      "--enableConfigMapCaching=true",
      "--forceFailurePolicyIgnore=false",
      "--leaderElectionRetryPeriod=5s",
      "--loggingFormat=text",
      "--loggingtsFormat=iso8601",
      "--maxAPICallResponseLength=10000000",
      "--maxAuditWorkers=16",
      "--maxQueuedEvents=1000",
      "--omitEvents=PolicyApplied,PolicySkipped",
      "--v=4",
    ]);
  });

  it("starts the admission controller's parser with them: the later values win, unsupported ones warn", () => {
    expect(admission[0]).toBe("admission");
    const parsed = parseAdmissionArgs(admission.slice(1), {});
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.args).toMatchObject({
      clientQps: 50,
      clientBurst: 100,
      leaderRetryPeriodMs: 5000,
      log: { format: "text", verbosity: 4, timestampFormat: "iso8601" },
      port: 9443,
      metricsPort: 8000,
      webhookTimeoutSeconds: 10,
    });
    // --enableConfigMapCaching=true, --forceFailurePolicyIgnore=false, --maxQueuedEvents=1000 and
    // --omitEvents=PolicyApplied,PolicySkipped ask for nothing kyverno-ts does differently: no warning.
    expect(parsed.args.warnings.map((w) => w.slice(0, w.indexOf(" is accepted")))).toEqual([
      "--dumpPayload=true",
      "--maxAPICallResponseLength",
      "--maxAuditWorkers",
    ]);
  });

  it("starts the reports controller's parser with them", () => {
    expect(reports[0]).toBe("reports");
    const parsed = parseReportsArgs(reports.slice(1), {});
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.args).toMatchObject({ workers: 4, qps: 50, log: { format: "json", verbosity: 3 } });
    expect(parsed.args.warnings).toEqual([
      "--aggregationWorkers is accepted and has no effect in kyverno-ts because admission reports are merged by the scan workers (--backgroundScanWorkers)",
      "--skipResourceFilters=false is accepted and has no effect in kyverno-ts because background scans never apply resourceFilters",
    ]);
  });

  it("starts the background and cleanup controllers' parsers with them", () => {
    expect(background[0]).toBe("background");
    const bg = parseBackgroundArgs(background.slice(1), {});
    if (!bg.ok) throw new Error(bg.message);
    expect(bg.args).toMatchObject({ workers: 20, qps: 50, metricsPort: 8000 });
    expect(bg.args.warnings.map((w) => w.slice(0, w.indexOf(" is accepted")))).toEqual([
      "--maxBackgroundReports",
    ]);
    expect(cleanup[0]).toBe("cleanup");
    const cl = parseCleanupArgs(cleanup.slice(1), {});
    if (!cl.ok) throw new Error(cl.message);
    // The extraArgs spelling comes after features.ttlController's, so it wins.
    expect(cl.args).toMatchObject({ ttlIntervalMs: 120_000, burst: 100, port: 9443 });
    expect(cl.args.warnings.map((w) => w.slice(0, w.indexOf(" is accepted")))).toEqual([
      "--protectManagedResources=true",
    ]);
  });

  it.skipIf(!existsSync(CLI))("the built binary accepts the rendered arguments of every controller", () => {
    for (const args of [admission, reports, background, cleanup]) {
      const run = spawnSync(process.execPath, [CLI, ...args, "--help"], { encoding: "utf8" });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toContain(`Usage: kyverno-ts ${args[0]} [flags]`);
    }
  });

  it("rejects a flag no controller has, naming it (the schema lists each controller's flags)", () => {
    const run = template([VALUES], ["admissionController.container.extraArgs.notAFlag=1"]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("notAFlag");
  });
});

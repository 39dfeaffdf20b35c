import { describe, expect, it } from "vitest";
import {
  allReports,
  eventually,
  namespace,
  pod,
  put,
  requireLabelPolicy,
  startCluster,
} from "../controllers/reports/testing/harness.js";
import { parseReportsArgs, REPORTS_DESCRIPTION, runReportsCommand } from "./reports.js";

function buffer() {
  let text = "";
  return {
    write: (s: string) => {
      text += s;
    },
    get text() {
      return text;
    },
  };
}

describe("kyverno-ts reports: flags", () => {
  it("has upstream's defaults and spellings", () => {
    const parsed = parseReportsArgs([], { POD_NAME: "reports-0", KYVERNO_NAMESPACE: "kyverno-system" });
    expect(parsed).toEqual({
      ok: true,
      args: {
        kubeconfig: undefined,
        scanIntervalMs: 3_600_000,
        evaluationLimits: {},
        workers: 2,
        policyExceptions: { enabled: false },
        metricsPort: 8000,
        host: "0.0.0.0",
        qps: 300,
        burst: 300,
        namespace: "kyverno-system",
        metricsConfigMapName: "kyverno-metrics",
        identity: "reports-0",
        admissionReports: true,
        leaderRetryPeriodMs: undefined,
        log: { format: "text", verbosity: 2, timestampFormat: "rfc3339" },
        help: false,
        warnings: [],
        events: { omit: ["PolicyApplied", "PolicySkipped"], maxQueued: 1000, qps: 1000, burst: 2000 },
        reporting: new Set(["validate", "mutate", "mutateExisting", "generate", "imageVerify"]),
      },
    });
    const custom = parseReportsArgs(
      [
        "--backgroundScanInterval=30m",
        "--backgroundScanWorkers",
        "4",
        "--enablePolicyException=true",
        "--exceptionNamespace",
        "kyverno",
        "--metrics-port",
        "0",
        "-v=4",
        "--loggingFormat",
        "json",
        "-leaderElectionRetryPeriod=5s",
        "--admissionReports=false",
        "--aggregateReports=false",
        "--host",
        "127.0.0.1",
      ],
      {},
    );
    expect(custom.ok && custom.args).toMatchObject({
      scanIntervalMs: 1_800_000,
      workers: 4,
      policyExceptions: { enabled: true, namespace: "kyverno" },
      metricsPort: 0,
      host: "127.0.0.1",
      admissionReports: false,
      leaderRetryPeriodMs: 5000,
      log: { format: "json", verbosity: 4 },
      warnings: [
        "--aggregateReports=false is accepted and has no effect in kyverno-ts because admission results are always merged into PolicyReports",
      ],
    });
  });
  it("rejects bad values with a message", () => {
    for (const args of [
      ["--backgroundScanInterval", "1d"],
      ["--backgroundScanWorkers", "0"],
      ["--metrics-port", "x"],
      ["--nope"],
      ["--loggingFormat=yaml"],
      ["--webhookTimeout=5"],
    ]) {
      const parsed = parseReportsArgs(args, {});
      expect(parsed.ok).toBe(false);
    }
  });
  it("prints the help and exits 2 on bad flags", async () => {
    const stdout = buffer();
    const stderr = buffer();
    expect(await runReportsCommand({ args: ["--backgroundScanWorkers", "0"], stdout, stderr })).toBe(2);
    expect(stderr.text).toContain("--backgroundScanWorkers must be");
    expect(stderr.text).toContain("run kyverno-ts reports --help");
    expect(await runReportsCommand({ args: ["--help"], stdout, stderr, usage: "the help\n" })).toBe(0);
    expect(stdout.text).toBe("the help\n");
    const fallback = buffer();
    expect(await runReportsCommand({ args: ["-h"], stdout: fallback, stderr })).toBe(0);
    expect(fallback.text).toContain(REPORTS_DESCRIPTION);
  });
});

describe("kyverno-ts reports: against a cluster", { timeout: 30_000 }, () => {
  it("writes reports, serves metrics and stops on its signal", async () => {
    const { sandbox, client } = await startCluster();
    try {
      await put(client, namespace("default"));
      await put(client, pod("lonely", "default"));
      await put(client, requireLabelPolicy("require-team", "team"));
      const stop = new AbortController();
      const stdout = buffer();
      const stderr = buffer();
      let metricsPort = 0;
      const exit = runReportsCommand({
        args: [
          "--kubeconfig",
          sandbox.kubeconfigPath,
          "--metrics-port",
          "0",
          "--namespace",
          "default",
          "--log-level",
          "warn",
        ],
        stdout,
        stderr,
        signal: stop.signal,
        onReady: (info) => {
          metricsPort = info.metricsPort;
        },
      });
      await eventually(async () => (await allReports(client)).length === 1, 20_000, "report written");
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(text).toContain('rule_execution_cause="background_scan"');
      expect(text).toContain("kyverno_client_queries_total");
      stop.abort();
      expect(await exit).toBe(0);
      expect(stdout.text).toContain("kyverno-ts reports: scanning every 3600s with 2 workers");
    } finally {
      client.close();
      await sandbox.stop();
    }
  });
});

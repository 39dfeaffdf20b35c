import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  liveResult,
  policyReport,
  startTestCluster,
  type TestCluster,
} from "../testing/cluster.js";
import { parseReporterArgs, type ReporterReadyInfo, runReporterCommand } from "./reporter.js";

function output() {
  const chunks: string[] = [];
  return { write: (text: string) => chunks.push(text), text: () => chunks.join("") };
}

describe("kyverno-ts reporter", { timeout: 20_000 }, () => {
  let cluster: TestCluster;
  let dir: string;

  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: ["team-a"] });
    dir = mkdtempSync(join(tmpdir(), "reporter-bin-"));
  });
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("parses its flags", () => {
    expect(
      parseReporterArgs(["--port", "9000", "--metrics-port=9001", "-c", "c.yaml", "--dbfile", "x.db"]),
    ).toEqual({
      port: 9000,
      metricsPort: 9001,
      config: "c.yaml",
      sqlite: "x.db",
    });
    expect(parseReporterArgs(["--port", "http"])).toMatch(/not a port/);
    expect(parseReporterArgs(["--kubeconfig"])).toMatch(/needs a value/);
    expect(parseReporterArgs(["--verbose"])).toMatch(/unknown flag/);
  });

  it("runs from a config file until stopped, metrics on their own port", async () => {
    const config = join(dir, "config.yaml");
    writeFileSync(
      config,
      [
        "metrics:",
        "  enabled: true",
        "  mode: simple",
        "logging:",
        "  encoding: json",
        "sourceFilters: []",
        "",
      ].join("\n"),
    );
    const stdout = output();
    const stderr = output();
    const stop = new AbortController();
    let info: ReporterReadyInfo | undefined;
    const exit = runReporterCommand({
      args: [
        "--kubeconfig",
        cluster.sandbox.kubeconfigPath,
        "--config",
        config,
        "--port",
        "0",
        "--metrics-port",
        "0",
        "--sqlite",
        join(dir, "r.db"),
      ],
      stdout,
      stderr,
      signal: stop.signal,
      env: {},
      onStarted: (i) => {
        info = i;
      },
    });
    const started = await eventually(() => info, 10_000, "the reporter listening");
    await started.reporter.synced;
    expect((await fetch(`${started.url}/ready`)).status).toBe(200);
    await cluster.apply(policyReport({ name: "pod-a", namespace: "team-a", results: [liveResult()] }));
    const metricsUrl = `http://127.0.0.1:${started.metricsPort}/metrics`;
    const text = await eventually(async () => {
      const t = await (await fetch(metricsUrl)).text();
      return t.includes("policy_report_result{") ? t : undefined;
    });
    // Simple mode: namespace, policy, status, severity, category, source.
    expect(text).toContain(
      'policy_report_result{namespace="team-a",policy="require-labels",status="fail",severity="high",category="Best Practices",source="kyverno"} 1',
    );
    expect((await fetch(`${started.url}/metrics`)).status).toBe(404);
    stop.abort();
    expect(await exit).toBe(0);
    expect(stdout.text()).toContain("Policy Reporter stopped.");
    const logs = stderr
      .text()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { msg: string });
    expect(logs.map((l) => l.msg)).toEqual(
      expect.arrayContaining(["reporter started", "initial sync done; ready", "reporter stopped"]),
    );
  });

  it("refuses bad flags and configuration with the key, before touching the cluster", async () => {
    const config = join(dir, "bad.yaml");
    writeFileSync(config, "database:\n  type: oracle\n");
    const stderr = output();
    const exit = await runReporterCommand({ args: ["--config", config], stdout: output(), stderr, env: {} });
    expect(exit).toBe(2);
    expect(stderr.text()).toContain(
      "invalid configuration: database.type: must be one of sqlite, postgres, mysql, mariadb",
    );
    expect(stderr.text()).toContain("bad.yaml:2");

    const envErr = output();
    expect(
      await runReporterCommand({ args: [], stdout: output(), stderr: envErr, env: { METRICS_MODE: "loud" } }),
    ).toBe(2);
    expect(envErr.text()).toContain("metrics.mode");

    const flagErr = output();
    expect(await runReporterCommand({ args: ["--bogus"], stdout: output(), stderr: flagErr })).toBe(2);
    expect(flagErr.text()).toContain('error: unknown flag "--bogus"');
    expect(flagErr.text()).toContain("Usage: kyverno-ts reporter [flags]");

    // Full help in the other server commands' layout: description, every flag with its default.
    const help = output();
    expect(await runReporterCommand({ args: ["--help"], stdout: help, stderr: output() })).toBe(0);
    for (const flag of [
      "--config",
      "--kubeconfig",
      "--host",
      "--port",
      "--metrics-port",
      "--sqlite",
      "--lease-name",
    ])
      expect(help.text()).toMatch(new RegExp(`\\n  ${flag} <[a-z]+> +\\S.*default`));
    expect(help.text()).toContain("Options:");
  });

  it("fails with a clear message when a referenced Secret is missing", async () => {
    const config = join(dir, "secret.yaml");
    writeFileSync(config, "target:\n  slack:\n    secretRef: slack-webhook\n");
    const stderr = output();
    const exit = await runReporterCommand({
      args: ["--kubeconfig", cluster.sandbox.kubeconfigPath, "--config", config, "--port", "0"],
      stdout: output(),
      stderr,
      env: {},
    });
    expect(exit).toBe(2);
    expect(stderr.text()).toContain('target.slack.secretRef: Secret "slack-webhook" not found');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "../testing/harness.js";

describe("kyverno-ts playground", { timeout: 60_000 }, () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "kyverno-ts-playground-cli-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("--setup-only starts everything, prints each stage, the outcomes and how to go on, then stops", async () => {
    const cwd = tempDir();
    const run = await cli(["playground", "--setup-only", "--port", "0", "--dir", "state"], cwd);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /\[1\/8\] local Kubernetes API server … ready in \d+\.\d s: https:\/\/127\.0\.0\.1:\d+/,
    );
    expect(run.stdout).toMatch(
      /\[8\/8\] example manifests \(8 requests\) … ready in .*: 6 admitted, 2 blocked/,
    );
    expect(run.stdout).toContain("BLOCKED (Enforce): admission webhook");
    expect(run.stdout).toContain("Policy reports written and stored: 7 fail, 30 pass");
    // The summary names every endpoint.
    for (const line of [
      /Dashboard: +http:\/\/127\.0\.0\.1:\d+\//,
      /Policy Reporter API: +http:\/\/127\.0\.0\.1:\d+\/v2\/findings/,
      /Policy Reporter metrics: +http:\/\/127\.0\.0\.1:\d+\/metrics/,
      /Kubernetes API server: +https:\/\/127\.0\.0\.1:\d+/,
      /Kubeconfig: +state\/cluster\/kubeconfig/,
      /Admission webhooks: +https:\/\/127\.0\.0\.1:\d+/,
      /Admission metrics: +http:\/\/127\.0\.0\.1:\d+\/metrics/,
      /Reports metrics: +http:\/\/127\.0\.0\.1:\d+\/metrics/,
      /Background metrics: +http:\/\/127\.0\.0\.1:\d+\/metrics/,
      /Cleanup webhooks: +https:\/\/127\.0\.0\.1:\d+/,
      /Cleanup metrics: +http:\/\/127\.0\.0\.1:\d+\/metrics/,
      /Logs: +\S+\/state\/playground\.log/,
    ])
      expect(run.stdout).toMatch(line);
    // The kubeconfig is shown relative to the working directory, ready to paste.
    expect(run.stdout).toContain("kubectl --kubeconfig state/cluster/kubeconfig get policyreports -A");
    expect(run.stdout).toContain("Stopped (--setup-only).");
  });

  it("refuses a non-empty folder it did not create, deleting nothing", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "precious.txt"), "keep me");
    const run = await cli(["playground", "--setup-only", "--port", "0", "--dir", "."], cwd);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/is not empty and was not created by the playground; choose another --dir/);
    expect(await import("node:fs").then((fs) => fs.readFileSync(join(cwd, "precious.txt"), "utf8"))).toBe(
      "keep me",
    );
  });

  it("rejects a bad port before starting anything", async () => {
    const run = await cli(["playground", "--port", "http"], tempDir());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('not a port number: "http"');
  });
});

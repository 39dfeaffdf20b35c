import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runSandboxCommand } from "./main.js";

const capture = (): { stream: Writable; text: () => string } => {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
};

describe("kyverno-ts sandbox command", () => {
  it("prints the kubeconfig path and a kubectl hint, then stops when told to", async () => {
    const out = capture();
    let stop = (): void => {};
    const until = new Promise<void>((resolve) => {
      stop = resolve;
    });
    // Another loopback address stands in for a Pod network's bridge.
    const running = runSandboxCommand({ stdout: out.stream, args: ["--bind-address", "127.0.0.2"], until });
    await new Promise((r) => setTimeout(r, 300));
    while (!out.text().includes("kubeconfig:")) await new Promise((r) => setTimeout(r, 50));
    expect(out.text()).toMatch(/kubeconfig: (\S+)\ntry: kubectl --kubeconfig \1 get ns\n/);
    expect(out.text()).toMatch(/listening on https:\/\/127\.0\.0\.2:\d+\n/);
    stop();
    expect(await running).toBe(0);
    expect(out.text()).toContain("Sandbox stopped.");
  });

  it("rejects unknown arguments and bad values, naming them", async () => {
    const out = capture();
    const err = capture();
    expect(await runSandboxCommand({ stdout: out.stream, stderr: err.stream, args: ["--bogus"] })).toBe(2);
    expect(err.text()).toContain("error: unknown option '--bogus'");
    expect(
      await runSandboxCommand({
        stdout: out.stream,
        stderr: err.stream,
        args: ["--authorization-mode", "ABAC"],
      }),
    ).toBe(2);
    expect(err.text()).toContain("'ABAC' is invalid. Allowed choices are RBAC, AlwaysAllow.");
    expect(
      await runSandboxCommand({ stdout: out.stream, stderr: err.stream, args: ["--bind-address", "bridge"] }),
    ).toBe(2);
    expect(err.text()).toContain("option '--bind-address <ip>' argument 'bridge' is not an IP address");
    expect(await runSandboxCommand({ stdout: out.stream, stderr: err.stream, args: ["--port"] })).toBe(2);
    expect(err.text()).toContain("error: option '--port' argument missing");
    expect(out.text()).toBe("");
  });

  it("prints commander-style help listing every flag with its default, and examples", async () => {
    const out = capture();
    expect(await runSandboxCommand({ stdout: out.stream, args: ["--help"] })).toBe(0);
    const help = out.text();
    expect(help).toMatch(/^Usage: kyverno-ts sandbox \[options\]\n\n/);
    for (const flag of [
      "--port <n>",
      "--data-dir <path>",
      "--crd <file>",
      "--authorization-mode <mode>",
      "-h, --help",
    ])
      expect(help).toContain(`  ${flag}`);
    expect(help).toContain('(default: "RBAC")');
    expect(help).toContain("\nExamples:\n  $ kyverno-ts sandbox");
  });
});

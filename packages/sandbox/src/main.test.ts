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
    const running = runSandboxCommand({ stdout: out.stream, args: [], until });
    await new Promise((r) => setTimeout(r, 300));
    while (!out.text().includes("kubeconfig:")) await new Promise((r) => setTimeout(r, 50));
    expect(out.text()).toMatch(/kubeconfig: (\S+)\ntry: kubectl --kubeconfig \1 get ns\n/);
    stop();
    expect(await running).toBe(0);
    expect(out.text()).toContain("Sandbox stopped.");
  });

  it("rejects unknown arguments with usage", async () => {
    const out = capture();
    expect(await runSandboxCommand({ stdout: out.stream, args: ["--bogus"] })).toBe(2);
    expect(out.text()).toContain("usage: kyverno-ts sandbox");
  });
});

import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { runCommand } from "./commands.js";
import { createPodNetwork, removeLeftoverNetworks } from "./pod-network.js";

const unavailable =
  process.getuid?.() !== 0
    ? "needs root (network namespaces)"
    : spawnSync("ip", ["-V"]).status !== 0
      ? "ip (iproute2) is not installed"
      : undefined;
if (unavailable !== undefined) console.warn(`pod network tests skipped: ${unavailable}`);

/** The pid of a process that has exited (whose run counts as crashed). */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((r) => child.on("exit", r));
  return child.pid ?? 1;
}

// Each step is an `ip` command: seconds in all on a loaded machine.
describe.skipIf(unavailable !== undefined)("the pod network", { timeout: 60000 }, () => {
  it("gives each Pod a namespace and address that reach the gateway, and removes them on stop", async () => {
    const network = await createPodNetwork();
    try {
      const a = await network.attach();
      const b = await network.attach();
      expect(a.ip).not.toBe(b.ip);
      expect(a.ip.split(".").slice(0, 3)).toEqual(network.gateway.split(".").slice(0, 3));
      const route = await runCommand("ip", ["-n", a.netns, "route", "get", network.gateway]);
      expect(route.stdout).toContain(`src ${a.ip}`);
    } finally {
      await network.stop();
    }
    const left = await runCommand("ip", ["netns", "list"]);
    expect(left.stdout).not.toContain(`kubelet-${network.runId}-`);
    expect((await runCommand("ip", ["link", "show", `kb${network.runId}`])).code).not.toBe(0);
  });

  it("removes what a crashed run left: its namespaces (killing what runs there) and its bridge", async () => {
    const runId = `${(await deadPid()).toString(36)}zz`;
    const netns = `kubelet-${runId}-0`;
    expect((await runCommand("ip", ["netns", "add", netns])).code).toBe(0);
    expect((await runCommand("ip", ["link", "add", `kb${runId}`, "type", "bridge"])).code).toBe(0);
    const orphan = spawn("ip", ["netns", "exec", netns, "sleep", "300"], { stdio: "ignore" });
    const exited = new Promise((r) => orphan.on("exit", r));
    await new Promise((r) => setTimeout(r, 200));
    const removed = await removeLeftoverNetworks();
    expect(removed).toEqual(expect.arrayContaining([netns, `kb${runId}`]));
    await exited;
    expect((await runCommand("ip", ["netns", "list"])).stdout).not.toContain(netns);
  });
});

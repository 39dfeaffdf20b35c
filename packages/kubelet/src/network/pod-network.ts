/**
 * The Pods' network: a Linux bridge with one network namespace per Pod joined to it by a veth pair, so
 * every Pod has its own IP (10.244.N.x/24) and listens on its real ports, and reaches the API server at
 * the bridge address. Every name carries a per-run id that starts with the owner's pid, so what a
 * crashed run left behind is found and removed (`removeLeftoverNetworks`).
 */
import { randomInt } from "node:crypto";
import { mustRun, runCommand } from "./commands.js";

/** One Pod's place in the network. */
export interface PodAttachment {
  /** Name under /run/netns. */
  netns: string;
  /** `/run/netns/<netns>`. */
  netnsPath: string;
  ip: string;
}

/** A bridge and the Pods attached to it; create with `createPodNetwork`. */
export interface PodNetwork {
  /** The id in every name this network created (`<pid base 36><2 random characters>`). */
  readonly runId: string;
  /** The bridge address: the host side, where the API server listens for Pods. */
  readonly gateway: string;
  /** `10.244.N.0/24`. */
  readonly subnet: string;
  /** Creates a network namespace with an address for one Pod. */
  attach(): Promise<PodAttachment>;
  /** Kills what still runs in the Pod's namespace and deletes it (and its veth). */
  detach(attachment: PodAttachment): Promise<void>;
  /** Detaches every Pod and deletes the bridge. */
  stop(): Promise<void>;
}

/** Options of `createPodNetwork`. */
export interface PodNetworkOptions {
  /** The `ip` binary (default `ip` on PATH). */
  ip?: string;
}

const NETNS_PREFIX = "kubelet-";

/** Whether the process that created the run `runId` (its pid is the id's prefix) still runs. */
export function ownerAlive(runId: string): boolean {
  const pid = Number.parseInt(runId.slice(0, -2), 36);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function usedThirdOctets(ip: string): Promise<Set<number>> {
  const out = await mustRun(ip, ["-4", "-o", "addr", "show"]);
  const used = new Set<number>();
  for (const match of out.matchAll(/inet 10\.244\.(\d+)\./g)) used.add(Number(match[1]));
  return used;
}

async function killNamespacePids(ip: string, netns: string): Promise<void> {
  const pids = await runCommand(ip, ["netns", "pids", netns]);
  for (const pid of pids.stdout.split(/\s+/).filter((p) => /^\d+$/.test(p))) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Removes the namespaces, veths and bridges of runs whose owner process is gone (a crashed test run),
 * killing what still runs in them. Returns the names removed.
 */
export async function removeLeftoverNetworks(options: PodNetworkOptions = {}): Promise<string[]> {
  const ip = options.ip ?? "ip";
  const removed: string[] = [];
  const namespaces = (await runCommand(ip, ["netns", "list"])).stdout
    .split("\n")
    .map((line) => line.split(" ")[0] ?? "")
    .filter((name) => name.startsWith(NETNS_PREFIX));
  for (const netns of namespaces) {
    const runId = netns.slice(NETNS_PREFIX.length).split("-")[0] ?? "";
    if (ownerAlive(runId)) continue;
    await killNamespacePids(ip, netns);
    await runCommand(ip, ["netns", "delete", netns]);
    removed.push(netns);
  }
  const links = (await runCommand(ip, ["-o", "link", "show"])).stdout;
  for (const match of links.matchAll(/^\d+: (kb[0-9a-z]+):/gm)) {
    const name = match[1] ?? "";
    if (!ownerAlive(name.slice(2))) {
      await runCommand(ip, ["link", "delete", name]);
      removed.push(name);
    }
  }
  return removed;
}

/** Creates the bridge (the host needs `ip` and root). Removes leftovers of crashed runs first. */
export async function createPodNetwork(options: PodNetworkOptions = {}): Promise<PodNetwork> {
  const ip = options.ip ?? "ip";
  await removeLeftoverNetworks(options);
  const runId = `${process.pid.toString(36)}${randomInt(36 * 36)
    .toString(36)
    .padStart(2, "0")}`;
  const bridge = `kb${runId}`;
  const used = await usedThirdOctets(ip);
  let octet = 1 + (process.pid % 200);
  while (used.has(octet)) octet = (octet % 254) + 1;
  const gateway = `10.244.${octet}.1`;
  await mustRun(ip, ["link", "add", bridge, "type", "bridge"]);
  await mustRun(ip, ["addr", "add", `${gateway}/24`, "dev", bridge]);
  await mustRun(ip, ["link", "set", bridge, "up"]);
  const free = Array.from({ length: 252 }, (_, i) => `10.244.${octet}.${i + 2}`);
  const attached = new Set<PodAttachment>();
  let counter = 0;

  const network: PodNetwork = {
    runId,
    gateway,
    subnet: `10.244.${octet}.0/24`,
    async attach() {
      const address = free.shift();
      if (address === undefined) throw new Error(`pod network ${bridge}: no free address left`);
      const index = (counter++).toString(36);
      const netns = `${NETNS_PREFIX}${runId}-${index}`;
      const veth = `kv${runId}${index}`;
      try {
        await mustRun(ip, ["netns", "add", netns]);
        await mustRun(ip, ["link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", netns]);
        await mustRun(ip, ["link", "set", veth, "master", bridge, "up"]);
        await mustRun(ip, ["-n", netns, "addr", "add", `${address}/24`, "dev", "eth0"]);
        await mustRun(ip, ["-n", netns, "link", "set", "eth0", "up"]);
        await mustRun(ip, ["-n", netns, "link", "set", "lo", "up"]);
        await mustRun(ip, ["-n", netns, "route", "add", "default", "via", gateway]);
      } catch (e) {
        await runCommand(ip, ["netns", "delete", netns]);
        free.push(address);
        throw e;
      }
      const attachment = { netns, netnsPath: `/run/netns/${netns}`, ip: address };
      attached.add(attachment);
      return attachment;
    },
    async detach(attachment) {
      if (!attached.delete(attachment)) return;
      await killNamespacePids(ip, attachment.netns);
      await runCommand(ip, ["netns", "delete", attachment.netns]);
      free.push(attachment.ip);
    },
    async stop() {
      for (const attachment of [...attached]) await network.detach(attachment);
      await runCommand(ip, ["link", "delete", bridge]);
    },
  };
  return network;
}

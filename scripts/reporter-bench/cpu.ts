// CPU limits and CPU time for the replica benchmark. A Kubernetes CPU limit is a CFS quota on the
// Pod's cgroup; `createCpuLimit` makes one cgroup per replica with the same kind of quota (cgroup v1's
// cpu controller: cpu.cfs_quota_us / cpu.cfs_period_us; cgroup v2: cpu.max) and moves a process into
// it. Without a writable cpu controller it throws, saying why: the benchmark never runs unlimited
// when asked for a limit. CPU time is read from /proc (utime + stime of every thread, in clock ticks).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const PERIOD_US = 100_000;
/** USER_HZ: /proc reports CPU time in 1/100 s on Linux. */
const TICKS_PER_S = 100;

/** One cgroup holding processes under a CPU quota. */
export interface CpuLimit {
  /** The cgroup's folder. */
  readonly path: string;
  /** Changes the quota (cores), or lifts it (`undefined`: the cgroup only counts). */
  setCores(cores: number | undefined): void;
  /** Moves process `pid` (all its threads) into the cgroup. */
  add(pid: number): void;
  /** Periods in which the cgroup ran out of quota, and how long it waited (the kernel's cpu.stat). */
  throttled(): { periods: number; throttledPeriods: number; throttledS: number };
  /** Removes the cgroup (its processes must have exited or moved). */
  remove(): void;
}

export interface CpuLimitOptions {
  /** The quota in cores (0.25 = 25 ms of CPU per 100 ms period), as a Pod's `resources.limits.cpu`. */
  cores: number | undefined;
  /** The cgroup's name (unique on the machine). */
  name: string;
}

function mountOf(type: "cgroup" | "cgroup2", option?: string): string | undefined {
  for (const line of readFileSync("/proc/self/mounts", "utf8").split("\n")) {
    const [, dir, fs, options] = line.split(" ");
    if (fs !== type || dir === undefined) continue;
    if (option === undefined || (options ?? "").split(",").includes(option)) return dir;
  }
  return undefined;
}

function readStat(path: string): Map<string, number> {
  const out = new Map<string, number>();
  if (!existsSync(path)) return out;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const [key, value] = line.split(" ");
    if (key) out.set(key, Number(value));
  }
  return out;
}

const quotaUs = (cores: number) => String(Math.round(cores * PERIOD_US));

/**
 * The cgroup `path`, made with its version's quota writer: `prepare` runs before the first quota is
 * set (both undone if either fails); `throttledTime` names cpu.stat's waiting time and its unit.
 */
function cgroupLimit(
  path: string,
  cores: number | undefined,
  setCores: (cores: number | undefined) => void,
  prepare: () => void,
  throttledTime: { key: string; perSecond: number },
): CpuLimit {
  mkdirSync(path);
  try {
    prepare();
    setCores(cores);
  } catch (error) {
    rmdirSync(path);
    throw error;
  }
  return {
    path,
    setCores,
    add: (pid) => writeFileSync(join(path, "cgroup.procs"), String(pid)),
    throttled: () => {
      const stat = readStat(join(path, "cpu.stat"));
      return {
        periods: stat.get("nr_periods") ?? 0,
        throttledPeriods: stat.get("nr_throttled") ?? 0,
        throttledS: (stat.get(throttledTime.key) ?? 0) / throttledTime.perSecond,
      };
    },
    remove: () => rmdirSync(path),
  };
}

function limitV1(root: string, o: CpuLimitOptions): CpuLimit {
  const path = join(root, o.name);
  return cgroupLimit(
    path,
    o.cores,
    (cores) => writeFileSync(join(path, "cpu.cfs_quota_us"), cores === undefined ? "-1" : quotaUs(cores)),
    () => writeFileSync(join(path, "cpu.cfs_period_us"), String(PERIOD_US)),
    { key: "throttled_time", perSecond: 1e9 },
  );
}

function limitV2(root: string, o: CpuLimitOptions): CpuLimit {
  const controllers = readFileSync(join(root, "cgroup.controllers"), "utf8").split(/\s+/);
  if (!controllers.includes("cpu"))
    throw new Error(`the cgroup v2 hierarchy at ${root} has no cpu controller (it is bound to cgroup v1)`);
  const subtree = readFileSync(join(root, "cgroup.subtree_control"), "utf8").split(/\s+/);
  if (!subtree.includes("cpu")) writeFileSync(join(root, "cgroup.subtree_control"), "+cpu");
  const path = join(root, o.name);
  return cgroupLimit(
    path,
    o.cores,
    (cores) =>
      writeFileSync(join(path, "cpu.max"), `${cores === undefined ? "max" : quotaUs(cores)} ${PERIOD_US}`),
    () => undefined,
    { key: "throttled_usec", perSecond: 1e6 },
  );
}

/**
 * A cgroup with a CFS quota of `cores`: cgroup v1's cpu controller if mounted, else a cgroup v2
 * hierarchy with the cpu controller. Throws with the reason when neither can be used (not mounted,
 * not writable — not root, a read-only /sys/fs/cgroup in a container — or cpu bound elsewhere).
 */
export function createCpuLimit(o: CpuLimitOptions): CpuLimit {
  if (o.cores !== undefined && !(o.cores > 0))
    throw new Error(`--replica-cpu takes positive numbers of cores (or "none"), got ${o.cores}`);
  const reasons: string[] = [];
  const v1 = mountOf("cgroup", "cpu");
  if (v1) {
    try {
      return limitV1(v1, o);
    } catch (error) {
      reasons.push(`cgroup v1 cpu at ${v1}: ${(error as Error).message}`);
    }
  } else reasons.push("no cgroup v1 cpu controller mounted");
  const v2 = mountOf("cgroup2");
  if (v2) {
    try {
      return limitV2(v2, o);
    } catch (error) {
      reasons.push(`cgroup v2 at ${v2}: ${(error as Error).message}`);
    }
  } else reasons.push("no cgroup v2 hierarchy mounted");
  throw new Error(
    `cannot limit a replica's CPU (--replica-cpu ${o.cores}): ${reasons.join("; ")}. ` +
      "It needs a writable cpu cgroup (root, or a delegated cgroup v2 subtree); not running unlimited instead.",
  );
}

/** CPU seconds (user + system, all threads, plus reaped children) of process `pid`; 0 once it is gone. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime, stime, cutime, cstime are fields 14–17 (1-based), so 11–14 after the command.
    const ticks = [11, 12, 13, 14].reduce((n, i) => n + Number(fields[i] ?? 0), 0);
    return ticks / TICKS_PER_S;
  } catch {
    return 0;
  }
}

/** CPU seconds of every process whose command name is `comm` (e.g. `postgres`, `redis-server`). */
export function cpuSecondsOfCommand(comm: string): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === comm) total += cpuSecondsOf(Number(entry));
    } catch {
      // The process exited meanwhile.
    }
  }
  return total;
}

/** The machine's CPU seconds, all CPUs together: busy (user, nice, system, irq, softirq), idle, steal. */
export function machineCpu(): { busy: number; idle: number; steal: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map((v) => Number(v) / TICKS_PER_S);
  const n = (v: number | undefined) => v ?? 0;
  return {
    busy: n(user) + n(nice) + n(system) + n(irq) + n(softirq),
    idle: n(idle) + n(iowait),
    steal: n(steal),
  };
}

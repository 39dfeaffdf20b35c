/**
 * Containers as local processes: `ip netns exec <pod> unshare --mount` runs a script that builds a
 * root file system in a tmpfs (the host's /usr, /etc, /lib…, /dev, /proc and the repository bound
 * read-only, the Pod's volumes and ServiceAccount token bound at their real paths), makes it read-only
 * when the container asks, and `chroot`s into it as the container's user with capabilities dropped
 * (`setpriv`). Each step `exec`s the next, so the spawned pid is the container's process.
 */
import { spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { shellQuote } from "../network/commands.js";
import type { ContainerExit, ContainerLaunch, ContainerRuntime, RunningContainer } from "./types.js";

/** Options of `createProcessRuntime`. */
export interface ProcessRuntimeOptions {
  /** Host directories bound read-only into every container besides the system ones (the repository, Node.js). */
  hostDirs: string[];
}

const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];

function bindLines(root: string, hostDir: string, readOnly: boolean): string[] {
  const target = `${root}${hostDir}`;
  return [
    `mkdir -p ${shellQuote(target)}`,
    `mount --rbind ${shellQuote(hostDir)} ${shellQuote(target)}`,
    ...(readOnly ? [`mount -o remount,bind,ro ${shellQuote(target)}`] : []),
  ];
}

/** The `sh` script that sets up the mount namespace and execs the container's argv. */
export function containerScript(launch: ContainerLaunch, hostDirs: readonly string[]): string {
  const root = join(launch.scratchDir, "rootfs");
  const lines = ["set -e", `mount -t tmpfs -o mode=755 rootfs ${shellQuote(root)}`];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink())
      lines.push(`ln -s ${shellQuote(readlinkSync(dir))} ${shellQuote(root + dir)}`);
    else lines.push(...bindLines(root, dir, true));
  }
  lines.push(...bindLines(root, "/dev", false), ...bindLines(root, "/proc", false));
  lines.push(
    `mkdir -p ${shellQuote(`${root}/tmp`)} ${shellQuote(`${root}/home/nonroot`)}`,
    `chmod 1777 ${shellQuote(`${root}/tmp`)}`,
  );
  for (const mount of launch.mounts) {
    const target = `${root}${mount.containerPath}`;
    const isFile = existsSync(mount.hostPath) && !lstatSync(mount.hostPath).isDirectory();
    lines.push(
      `mkdir -p ${shellQuote(isFile ? dirname(target) : target)}`,
      ...(isFile ? [`touch ${shellQuote(target)}`] : []),
      `mount --bind ${shellQuote(mount.hostPath)} ${shellQuote(target)}`,
      ...(mount.readOnly ? [`mount -o remount,bind,ro ${shellQuote(target)}`] : []),
    );
  }
  // After the volumes: a repository under /tmp (a CI clone) stays visible above an emptyDir on /tmp.
  for (const dir of hostDirs) lines.push(...bindLines(root, dir, true));
  if (launch.readOnlyRootFilesystem) lines.push(`mount -o remount,ro,bind ${shellQuote(root)}`);
  const exec = ["exec", "chroot", root, "env", "-C", launch.workingDir];
  if (launch.user !== undefined || launch.dropAllCapabilities || launch.noNewPrivileges) {
    exec.push("setpriv");
    if (launch.user !== undefined) {
      exec.push(`--reuid=${launch.user.uid}`, `--regid=${launch.user.gid}`);
      exec.push(
        launch.user.groups.length > 0 ? `--groups=${launch.user.groups.join(",")}` : "--clear-groups",
      );
    }
    if (launch.dropAllCapabilities) exec.push("--inh-caps=-all", "--bounding-set=-all");
    if (launch.noNewPrivileges) exec.push("--no-new-privs");
    exec.push("--");
  }
  lines.push([...exec, ...launch.argv].map(shellQuote).join(" "));
  return lines.join("\n");
}

/** Runs containers as local processes in the Pods' network namespaces. */
export function createProcessRuntime(options: ProcessRuntimeOptions): ContainerRuntime {
  const real = [...new Set(options.hostDirs.map((d) => realpathSync(d)))];
  const within = (dir: string, parent: string) => dir === parent || dir.startsWith(`${parent}/`);
  // A folder inside a system folder or inside another listed one is visible already.
  const hostDirs = real.filter(
    (dir) =>
      !SYSTEM_DIRS.some((s) => within(dir, s)) && !real.some((other) => other !== dir && within(dir, other)),
  );
  return {
    name: "process",
    async start(launch: ContainerLaunch, output: (chunk: Buffer) => void): Promise<RunningContainer> {
      mkdirSync(join(launch.scratchDir, "rootfs"), { recursive: true });
      const script = containerScript(launch, hostDirs);
      const child = spawn(
        "ip",
        [
          "netns",
          "exec",
          launch.netns.name,
          "unshare",
          "--mount",
          "--propagation",
          "private",
          "sh",
          "-c",
          script,
        ],
        { env: launch.env, stdio: ["ignore", "pipe", "pipe"] },
      );
      child.stdout.on("data", output);
      child.stderr.on("data", output);
      const exited = new Promise<ContainerExit>((resolve) => {
        child.on("error", (e) => {
          output(Buffer.from(`kubelet: could not start ${launch.id}: ${e.message}\n`));
          resolve({ code: 128, signal: null });
        });
        child.on("close", (code, signal) => resolve({ code, signal }));
      });
      return {
        pid: child.pid,
        exited,
        signal(signal) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        },
      };
    },
  };
}

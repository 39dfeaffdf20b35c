/**
 * A throw-away containerd (Debian's `containerd` package) with a project-local root and state, to
 * check that the OCI archive imports the way kind (`ctr -n k8s.io images import --all-platforms
 * --digests --snapshotter …`) and k3s import it, and that containerd runs the image. The CRI plugin is
 * off; images unpack into the `native` snapshotter, which needs no overlay mounts.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createReadStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A running containerd and the `ctr` bound to its socket. */
export interface Containerd {
  readonly socket: string;
  /** Runs `ctr -a <socket> …`, optionally feeding `stdinFile`; rejects with stderr on failure. */
  ctr(args: readonly string[], options?: { stdinFile?: string }): Promise<string>;
  /** Stops containerd (SIGTERM, then SIGKILL after 10 s) and removes its folder. */
  stop(): Promise<void>;
}

/** Unix socket paths longer than this do not fit `sockaddr_un`. */
const MAX_SOCKET_PATH = 100;

/** Starts containerd with root, state and socket under `dir` (emptied first) and waits until it answers. */
export async function startContainerd(dir: string): Promise<Containerd> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, "containerd.sock");
  if (socket.length > MAX_SOCKET_PATH)
    throw new Error(`${socket}: longer than ${MAX_SOCKET_PATH} characters, too long for a unix socket`);
  const config = join(dir, "config.toml");
  writeFileSync(
    config,
    [
      "version = 2",
      `root = ${JSON.stringify(join(dir, "root"))}`,
      `state = ${JSON.stringify(join(dir, "state"))}`,
      'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
      "[grpc]",
      `  address = ${JSON.stringify(socket)}`,
      "",
    ].join("\n"),
  );
  const log: Buffer[] = [];
  // Niced (nice execs containerd, same pid): unpacking the layers should not slow tests running beside.
  const daemon: ChildProcess = spawn("nice", ["-n", "10", "containerd", "--config", config], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  daemon.stdout?.on("data", (chunk: Buffer) => log.push(chunk));
  daemon.stderr?.on("data", (chunk: Buffer) => log.push(chunk));
  const exited = new Promise<void>((resolve) => daemon.once("exit", () => resolve()));

  const ctr: Containerd["ctr"] = (args, options) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        "ctr",
        ["-a", socket, ...args],
        { maxBuffer: 16 << 20 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`ctr ${args.join(" ")}: ${stderr.trim() || error.message}`));
          else resolve(stdout);
        },
      );
      if (options?.stdinFile !== undefined && child.stdin)
        createReadStream(options.stdinFile).pipe(child.stdin);
      else child.stdin?.end();
    });

  const stop = async () => {
    if (daemon.exitCode === null && daemon.signalCode === null) {
      daemon.kill("SIGTERM");
      const timer = setTimeout(() => daemon.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (daemon.exitCode !== null) {
      await stop();
      throw new Error(`containerd exited with ${daemon.exitCode}:\n${Buffer.concat(log).toString("utf8")}`);
    }
    try {
      await ctr(["version"]);
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`containerd did not answer within 30 s: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return { socket, ctr, stop };
}

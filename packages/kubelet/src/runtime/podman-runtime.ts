/**
 * Containers under podman: `podman run` of the built image in the Pod's network namespace
 * (`--network ns:/run/netns/<pod>`), with the container's security context (user, read-only root
 * file system without podman's extra tmpfs, capabilities dropped, no new privileges) and the Pod's
 * volumes and ServiceAccount token as bind mounts. Containers are named after the run id so a crashed
 * run's leftovers are removed.
 */
import { spawn } from "node:child_process";
import { runCommand } from "../network/commands.js";
import type { ContainerExit, ContainerLaunch, ContainerRuntime, RunningContainer } from "./types.js";

/** Options of `createPodmanRuntime`. */
export interface PodmanRuntimeOptions {
  /** The image the `kyverno-ts` references run (e.g. `localhost/kyverno-ts:0.1.0`). */
  image: string;
  /** Environment of the podman commands (`CONTAINERS_CONF`, `CONTAINERS_STORAGE_CONF`). */
  env: NodeJS.ProcessEnv;
  /** Prefix of the container names (`kubelet-<runId>`). */
  namePrefix: string;
}

/** Image variables podman takes from the image itself (passing the process-mode values would be wrong). */
const IMAGE_OWN = new Set(["PATH", "NODE_ENV", "HOME"]);

/** The `podman run` arguments for one container. */
export function podmanArgs(launch: ContainerLaunch, image: string, name: string): string[] {
  const args = [
    "run",
    "--rm",
    `--name=${name}`,
    `--network=ns:${launch.netns.path}`,
    "--pull=never",
    "--log-driver=none",
  ];
  if (launch.user !== undefined) {
    args.push(`--user=${launch.user.uid}:${launch.user.gid}`);
    for (const g of launch.user.groups) args.push(`--group-add=${g}`);
  }
  if (launch.readOnlyRootFilesystem) args.push("--read-only", "--read-only-tmpfs=false");
  if (launch.dropAllCapabilities) args.push("--cap-drop=ALL");
  if (launch.noNewPrivileges) args.push("--security-opt=no-new-privileges");
  args.push(`--workdir=${launch.workingDir}`);
  for (const [k, v] of Object.entries(launch.env)) if (!IMAGE_OWN.has(k)) args.push(`--env=${k}=${v}`);
  for (const m of launch.mounts)
    args.push(`--volume=${m.hostPath}:${m.containerPath}:${m.readOnly ? "ro" : "rw"}`);
  if (launch.command !== undefined) args.push(`--entrypoint=${JSON.stringify(launch.command)}`);
  args.push(image, ...launch.args);
  return args;
}

/** Removes the containers of runs whose owner process is gone. */
export async function removeLeftoverContainers(
  env: NodeJS.ProcessEnv,
  alive: (runId: string) => boolean,
): Promise<string[]> {
  const listed = await runCommand(
    "podman",
    ["ps", "-a", "--format", "{{.Names}}", "--filter", "name=^kubelet-"],
    { env },
  );
  const removed: string[] = [];
  for (const name of listed.stdout.split("\n").filter((n) => n.startsWith("kubelet-"))) {
    if (alive(name.split("-")[1] ?? "")) continue;
    await runCommand("podman", ["rm", "--force", "--time=0", name], { env });
    removed.push(name);
  }
  return removed;
}

/** Runs `kyverno-ts` containers from the built image under podman. */
export function createPodmanRuntime(options: PodmanRuntimeOptions): ContainerRuntime {
  let counter = 0;
  return {
    name: "podman",
    async start(launch: ContainerLaunch, output: (chunk: Buffer) => void): Promise<RunningContainer> {
      const name = `${options.namePrefix}-${(counter++).toString(36)}-${launch.id.split("/")[2] ?? "c"}`;
      const child = spawn("podman", podmanArgs(launch, options.image, name), {
        env: options.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.on("data", output);
      child.stderr.on("data", output);
      const exited = new Promise<ContainerExit>((resolve) => {
        child.on("error", (e) => {
          output(Buffer.from(`kubelet: could not start podman for ${launch.id}: ${e.message}\n`));
          resolve({ code: 128, signal: null });
        });
        child.on("close", (code, signal) => resolve({ code, signal }));
      });
      return {
        pid: child.pid,
        exited,
        signal(signal) {
          if (child.exitCode !== null || child.signalCode !== null) return;
          void runCommand("podman", ["kill", `--signal=${signal === "SIGKILL" ? "KILL" : "TERM"}`, name], {
            env: options.env,
          }).then((r) => {
            if (r.code !== 0 && signal === "SIGKILL") child.kill("SIGKILL");
          });
        },
      };
    },
  };
}

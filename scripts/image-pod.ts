/**
 * Runs the image with podman the way a Kubernetes Pod with the recommended security context runs it:
 * read-only root filesystem (and no extra tmpfs podman would add on /run or /var/tmp), all
 * capabilities dropped, no new privileges, uid/gid 65532, podman's default seccomp profile (the
 * counterpart of `seccompProfile: RuntimeDefault`), and `/tmp` as the only writable place (a tmpfs,
 * as an `emptyDir` would be).
 */
import type { ContainerTools, ToolResult } from "./image-tools.ts";

/** podman flags matching the Pod security context the image expects (see image/README.md). */
export const POD_SECURITY_ARGS: readonly string[] = [
  "--read-only",
  "--read-only-tmpfs=false",
  "--cap-drop=ALL",
  "--security-opt=no-new-privileges",
  "--user=65532:65532",
  "--tmpfs=/tmp:rw,nosuid,nodev,mode=1777,size=64m",
];

/** A host folder mounted read-only into the container. */
export interface Mount {
  host: string;
  container: string;
}

const mountArgs = (mounts: readonly Mount[] = []) =>
  mounts.map((m) => `--volume=${m.host}:${m.container}:ro`);

/** Runs one command in a throw-away container and returns its outcome. */
export function runPodLike(
  tools: ContainerTools,
  image: string,
  args: readonly string[],
  mounts?: readonly Mount[],
): Promise<ToolResult> {
  return tools.run("podman", ["run", "--rm", ...POD_SECURITY_ARGS, ...mountArgs(mounts), image, ...args]);
}

/** A detached container started by `startPodLike`. */
export interface PodLikeServer {
  readonly name: string;
  /** `127.0.0.1:<port>` published for the container's `port`. */
  address(port: number): Promise<string>;
  /** stdout and stderr so far. */
  logs(): Promise<string>;
  /** Whether the container is still running. */
  running(): Promise<boolean>;
  /** Runs a command inside the container (`podman exec`). */
  exec(args: readonly string[]): Promise<ToolResult>;
  /** Stops (SIGTERM, 5 s grace) and removes the container. */
  remove(): Promise<void>;
}

/** Starts a detached container publishing `ports` on random loopback ports. */
export async function startPodLike(
  tools: ContainerTools,
  options: {
    name: string;
    image: string;
    args: readonly string[];
    ports: readonly number[];
    mounts?: readonly Mount[];
  },
): Promise<PodLikeServer> {
  await tools.run("podman", ["rm", "--force", "--time=0", options.name]);
  await tools.check("podman", [
    "run",
    "--detach",
    `--name=${options.name}`,
    ...POD_SECURITY_ARGS,
    ...options.ports.map((p) => `--publish=127.0.0.1::${p}`),
    ...mountArgs(options.mounts),
    options.image,
    ...options.args,
  ]);
  const { name } = options;
  return {
    name,
    async address(port) {
      const out = await tools.check("podman", ["port", name, `${port}/tcp`]);
      const address = out.trim().split("\n")[0];
      if (!address) throw new Error(`podman port ${name} ${port}: nothing published`);
      return address.replace(/^0\.0\.0\.0:/, "127.0.0.1:");
    },
    async logs() {
      const result = await tools.run("podman", ["logs", name]);
      return result.stdout + result.stderr;
    },
    async running() {
      const result = await tools.run("podman", ["inspect", "--format", "{{.State.Running}}", name]);
      return result.stdout.trim() === "true";
    },
    exec: (args) => tools.run("podman", ["exec", name, ...args]),
    async remove() {
      await tools.run("podman", ["rm", "--force", "--time=5", name]);
    },
  };
}

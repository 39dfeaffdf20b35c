/** What a container runtime is given to start one container, and what it hands back. */

/** A file or directory of the Pod made visible in the container. */
export interface Mount {
  hostPath: string;
  containerPath: string;
  readOnly: boolean;
}

/** Everything needed to start one container, already resolved from the Pod spec and the image. */
export interface ContainerLaunch {
  /** `<namespace>/<pod>/<container>`, for names and messages. */
  id: string;
  image: string;
  /** The full argv as a local process runs it: entrypoint/command then cmd/args, `$(VAR)` expanded. */
  argv: string[];
  /** The container's `command` (`$(VAR)` expanded), replacing the image's entrypoint when set. */
  command: string[] | undefined;
  /** The container's `args`, or the image's cmd when neither command nor args are set. */
  args: string[];
  env: Record<string, string>;
  workingDir: string;
  mounts: Mount[];
  /** Network namespace of the Pod. */
  netns: { name: string; path: string };
  /** `undefined`: run as the runtime's own user (root). */
  user: { uid: number; gid: number; groups: number[] } | undefined;
  readOnlyRootFilesystem: boolean;
  dropAllCapabilities: boolean;
  noNewPrivileges: boolean;
  /** A directory owned by this container instance (its root file system lives there in process mode). */
  scratchDir: string;
}

/** How a container ended. */
export interface ContainerExit {
  code: number | null;
  signal: string | null;
}

/** A started container. */
export interface RunningContainer {
  readonly pid: number | undefined;
  /** Resolves once the container's process has ended. */
  readonly exited: Promise<ContainerExit>;
  /** Sends a signal to the container's main process. */
  signal(signal: "SIGTERM" | "SIGKILL"): void;
}

/** Starts containers; output (stdout and stderr interleaved) goes to `output`. */
export interface ContainerRuntime {
  readonly name: "process" | "podman";
  start(launch: ContainerLaunch, output: (chunk: Buffer) => void): Promise<RunningContainer>;
}

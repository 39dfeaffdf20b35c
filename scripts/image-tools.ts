/**
 * The container tools (buildah, podman, skopeo) as the image build runs them: with the project's
 * configuration (`image/containers.conf`, `image/storage.conf`) rendered into a project-local state
 * folder (`.artifacts/containers/` by default) and passed through `CONTAINERS_CONF` /
 * `CONTAINERS_STORAGE_CONF`, so nothing in /etc is read or changed and the store stays in the tree.
 * `scripts/ensure-podman.sh` installs the tools from Debian when they are missing.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The tools the build and the e2e test call. */
export type ContainerTool = "buildah" | "podman" | "skopeo";

/** What a finished tool run left. */
export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of `createContainerTools`. */
export interface ContainerToolsOptions {
  /** The repository root (where `image/` lives). */
  root: string;
  /** Where the rendered configuration, the store and the runtime state go (default `<root>/.artifacts/containers`). */
  stateDir?: string;
}

/** buildah / podman / skopeo bound to the project's configuration. */
export interface ContainerTools {
  /** The project-local folder holding the rendered configuration and the store. */
  readonly stateDir: string;
  /** The environment the tools run with (this process's plus `CONTAINERS_CONF` / `CONTAINERS_STORAGE_CONF`). */
  readonly env: NodeJS.ProcessEnv;
  /** Renders the configuration files into the state folder and checks that the tools are installed. */
  prepare(): void;
  /** Runs a tool to completion; stdout and stderr are collected, and both echoed to stderr when `echo` is set. */
  run(tool: ContainerTool, args: readonly string[], options?: { echo?: boolean }): Promise<ToolResult>;
  /** Like `run`, but throws with the tool's stderr when it exits non-zero. Returns stdout. */
  check(tool: ContainerTool, args: readonly string[], options?: { echo?: boolean }): Promise<string>;
}

const TOOLS: readonly ContainerTool[] = ["buildah", "podman", "skopeo"];

/** Creates the tool runner; nothing is read or written until `prepare()`. */
export function createContainerTools(options: ContainerToolsOptions): ContainerTools {
  const stateDir = options.stateDir ?? join(options.root, ".artifacts", "containers");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CONTAINERS_CONF: join(stateDir, "containers.conf"),
    CONTAINERS_STORAGE_CONF: join(stateDir, "storage.conf"),
  };

  const run: ContainerTools["run"] = (tool, args, runOptions) =>
    new Promise((resolve, reject) => {
      const child = spawn(tool, args, { env, stdio: ["ignore", "pipe", "pipe"] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => {
        out.push(chunk);
        if (runOptions?.echo) process.stderr.write(chunk);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        err.push(chunk);
        if (runOptions?.echo) process.stderr.write(chunk);
      });
      child.on("error", reject);
      child.on("close", (code) =>
        resolve({
          code: code ?? 1,
          stdout: Buffer.concat(out).toString("utf8"),
          stderr: Buffer.concat(err).toString("utf8"),
        }),
      );
    });

  return {
    stateDir,
    env,
    prepare() {
      const missing = TOOLS.filter(
        (tool) => spawnSync(tool, ["--version"], { stdio: "ignore" }).status !== 0,
      );
      if (missing.length > 0)
        throw new Error(
          `${missing.join(", ")} not installed: run \`bash scripts/ensure-podman.sh\` (installs them from Debian's packages)`,
        );
      mkdirSync(stateDir, { recursive: true });
      for (const file of ["containers.conf", "storage.conf"]) {
        const template = readFileSync(join(options.root, "image", file), "utf8");
        writeFileSync(join(stateDir, file), template.replaceAll("@STATE@", stateDir));
      }
    },
    run,
    async check(tool, args, runOptions) {
      const result = await run(tool, args, runOptions);
      if (result.code !== 0)
        throw new Error(`${tool} ${args.join(" ")} exited with ${result.code}:\n${result.stderr.trim()}`);
      return result.stdout;
    },
  };
}

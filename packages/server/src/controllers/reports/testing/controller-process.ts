/** Starts a reports controller in a child process (see `controller-main.ts`). */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const HOOKS = fileURLToPath(new URL("../../../testing/ts-hooks.ts", import.meta.url));
const ENTRY = fileURLToPath(new URL("./controller-main.ts", import.meta.url));

/** A controller process. */
export interface ControllerProcess {
  /** SIGKILL: nothing is drained or handed over. */
  kill(): Promise<void>;
  output(): string;
}

/** Forks a controller on `kubeconfigPath` with a rate-limited client; resolves once it has started. */
export function startControllerProcess(
  kubeconfigPath: string,
  identity: string,
  qps: number,
): Promise<ControllerProcess> {
  const child = fork(ENTRY, [kubeconfigPath, identity, String(qps)], {
    execArgv: ["--experimental-transform-types", "--no-warnings", "--import", HOOKS],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-16384);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`controller ${identity} did not start:\n${output}`));
    }, 20_000);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`controller ${identity} exited:\n${output}`));
    });
    child.on("message", (m: unknown) => {
      if ((m as { type?: string }).type !== "ready") return;
      clearTimeout(timer);
      resolve({
        output: () => output,
        async kill() {
          child.kill("SIGKILL");
          await exited;
        },
      });
    });
  });
}

/** Test helper: runs the real `kubectl` binary against a sandbox kubeconfig. */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Output of one kubectl run. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Whether a kubectl binary is on PATH (e2e suites skip with a reason otherwise). */
export function kubectlAvailable(): boolean {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The reason printed when e2e kubectl tests are skipped. */
export const NO_KUBECTL =
  "kubectl is not installed: run packages/sandbox/scripts/ensure-kubectl.sh (Debian's kubernetes-client)";

/** A kubectl bound to one kubeconfig, with its own discovery cache directory. */
export function kubectlFor(kubeconfigPath: string, context?: string) {
  const cache = mkdtempSync(join(tmpdir(), "kubectl-cache-"));
  return (args: string[], stdin?: string): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const full = [
        "--kubeconfig",
        kubeconfigPath,
        ...(context === undefined ? [] : ["--context", context]),
        ...args,
      ];
      const child = execFile(
        "kubectl",
        full,
        { env: { ...process.env, KUBECACHEDIR: cache, HOME: cache }, timeout: 20000 },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
          resolve({ code, stdout, stderr });
        },
      );
      if (stdin !== undefined) child.stdin?.end(stdin);
    });
}

/** The upstream Kyverno CRDs in the shared reference folder beside the repository. */
export const KYVERNO_CRDS = fileURLToPath(
  new URL("../../../../../shared/reference/kyverno-crds/", import.meta.url),
);

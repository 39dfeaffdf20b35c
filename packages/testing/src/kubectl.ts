/** The real `kubectl` in end-to-end tests (against the sandbox or the chart's cluster), and reading Kyverno's denial messages back. */
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

/** A kubectl bound to one kubeconfig (and context), with its own discovery cache directory. */
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
        { env: { ...process.env, KUBECACHEDIR: cache, HOME: cache }, timeout: 30_000 },
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
  new URL("../../../../shared/reference/kyverno-crds/", import.meta.url),
);

/**
 * The `policy/rule` pairs of Kyverno's "was blocked due to the following policies" message (a YAML
 * map of policies to rule messages), sorted.
 */
export function blockingRules(message: string): string[] {
  const start = message.indexOf("was blocked due to the following policies");
  if (start < 0) return [];
  const out: string[] = [];
  let policy: string | undefined;
  for (const line of message.slice(start).split("\n").slice(1)) {
    const p = /^([^\s:][^:]*):\s*$/.exec(line);
    const r = /^ {2}([^\s:][^:]*):/.exec(line);
    if (p) policy = p[1];
    else if (r && policy !== undefined) out.push(`${policy}/${r[1]}`);
  }
  return out.sort();
}

/** The real kubectl in the end-to-end tests, and reading Kyverno's denial messages back. */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One kubectl run. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Whether a kubectl binary is on PATH (the suites are skipped with a reason otherwise). */
export function kubectlAvailable(): boolean {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** kubectl bound to a kubeconfig, with its own discovery cache. */
export function kubectlFor(kubeconfig: string) {
  const cache = mkdtempSync(join(tmpdir(), "kubectl-cache-"));
  return (args: string[], stdin?: string): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const child = execFile(
        "kubectl",
        ["--kubeconfig", kubeconfig, ...args],
        { env: { ...process.env, KUBECACHEDIR: cache, HOME: cache }, timeout: 30_000 },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
          resolve({ code, stdout, stderr });
        },
      );
      if (stdin !== undefined) child.stdin?.end(stdin);
    });
}

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

/**
 * A test cluster on this machine: the pod network, the sandbox API server (RBAC on) listening on the
 * network's gateway, and the test kubelet (process or podman mode) that runs what the charts install.
 * `helm` and `kubectl` run against it asynchronously (the API server lives in this process).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import {
  createKubelet,
  createPodNetwork,
  type Kubelet,
  type PodNetwork,
} from "../../../packages/kubelet/src/index.ts";
import { ensureHelm, withoutHelmNotes } from "../../../scripts/cluster-tools.ts";

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * Whether a 403 line is a controller renewing its leader Lease while `helm uninstall` tears the release
 * down: Helm deletes the Deployments and then, without waiting for their Pods to stop, the Roles and
 * RoleBindings, so a replica still in its termination grace period is refused its last renewal. Expected
 * during an uninstall, and only then.
 */
function leaseRefusedDuringUninstall(line: string): boolean {
  return (
    /^kyverno\/kyverno-[a-z-]+-controller-/.test(line) &&
    /system:serviceaccount:kyverno:kyverno-[a-z-]+-controller/.test(line) &&
    /leases\.coordination\.k8s\.io \\?"kyverno-/.test(line) &&
    /cannot (update|get|create) resource \\?"leases\\?"/.test(line)
  );
}

/**
 * Whether a 403 line is the reports controller writing or deleting a report while `helm uninstall`
 * tears the release down: Helm deletes the release's objects, the ClusterRoles and their bindings
 * among them, without waiting for the controllers' Pods to stop, so a replica still reconciling (a
 * report left without results is deleted) is refused its last report writes (seen once in CI, on a
 * busy 2-core machine). Expected during an uninstall, and only then.
 */
function reportWriteRefusedDuringUninstall(line: string): boolean {
  return (
    line.startsWith("kyverno/kyverno-reports-controller-") &&
    line.includes("system:serviceaccount:kyverno:kyverno-reports-controller") &&
    /cannot (create|update|patch|delete) resource \\?"(policyreports|clusterpolicyreports|ephemeralreports|clusterephemeralreports)\\?"/.test(
      line,
    )
  );
}

/**
 * Whether a 403 line is the admission controller's after `helm uninstall`'s pre-delete hook revoked its
 * ClusterRoleBinding (by design, so no replica recreates a webhook configuration): expected then, and
 * only then.
 */
function revokedByUninstallHook(line: string): boolean {
  return (
    line.startsWith("kyverno/kyverno-admission-controller-") &&
    line.includes("system:serviceaccount:kyverno:kyverno-admission-controller")
  );
}

/**
 * Whether a 403 line is one `helm uninstall` causes by design: the admission controller's after the
 * pre-delete hook revoked its binding, a terminating replica's last lease renewal, or the reports
 * controller's last report writes after Helm deleted the RBAC without waiting for its Pods.
 */
export function refusedDuringUninstall(line: string): boolean {
  return (
    revokedByUninstallHook(line) ||
    leaseRefusedDuringUninstall(line) ||
    reportWriteRefusedDuringUninstall(line)
  );
}

/**
 * The errors of a helm or kubectl run's stderr: without the API server's warnings (admission webhooks'
 * `Warning:` headers, which client-go prints as `I… warnings.go:…] "Warning: …"` or `Warning: …`),
 * Helm's notes (`withoutHelmNotes`) and client-go's info line when Helm cancels a watch it is done with.
 */
export function errorsOf(stderr: string): string {
  return (
    withoutHelmNotes(stderr)
      .split("\n")
      .filter((line) => !/warnings\.go:\d+\] "Warning: /.test(line) && !/^Warning: /.test(line))
      // Helm's --wait ends its watches by cancelling their context; client-go may log that at info level.
      .filter(
        (line) => !/reflector\.go:\d+\] "Warning: watch ended with error" .*context canceled/.test(line),
      )
      .join("\n")
      .trim()
  );
}

/** Output of one helm or kubectl run. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The running test cluster. */
export interface TestCluster {
  network: PodNetwork;
  sandbox: Sandbox;
  kubelet: Kubelet;
  /** A client as `kubernetes-admin`. */
  client: KubeClient;
  helm(args: string[], timeoutMs?: number): Promise<RunResult>;
  kubectl(args: string[], stdin?: string): Promise<RunResult>;
  /** Every line of the components' output that reports a 403, with where it came from. */
  forbiddenLines(): string[];
  /** Errors the kubelet reported about itself. */
  kubeletErrors: string[];
  /** Pods, and the last lines of every container's output: for failure messages. */
  diagnostics(): Promise<string>;
  stop(): Promise<void>;
}

/** Why the cluster cannot run here, or `undefined` when it can (root, `ip`, `unshare`, `setpriv`, kubectl). */
export async function clusterUnavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return "the test kubelet needs root (network namespaces, bind mounts)";
  for (const [tool, args] of [
    ["ip", ["-V"]],
    ["unshare", ["--version"]],
    ["setpriv", ["--version"]],
    ["kubectl", ["version", "--client"]],
  ] as const) {
    const result = await run(tool, [...args], {});
    if (result.code !== 0)
      return `${tool} is not installed (packages/sandbox/scripts/ensure-kubectl.sh installs kubectl; ip/unshare/setpriv come with iproute2 and util-linux)`;
  }
  return undefined;
}

function run(
  file: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; stdin?: string },
): Promise<RunResult> {
  const start = Date.now();
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { env: options.env ?? process.env, timeout: options.timeoutMs ?? 120000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 127;
        resolve({ code, stdout: String(stdout), stderr: String(stderr), ms: Date.now() - start });
      },
    );
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  });
}

/** Starts the network, the sandbox and the kubelet. */
export async function startTestCluster(
  options: { mode?: "process" | "podman"; podman?: { image: string; env: NodeJS.ProcessEnv } } = {},
): Promise<TestCluster> {
  const network = await createPodNetwork();
  let kubelet: Kubelet | undefined;
  const sandbox = await startSandbox({
    listenHost: network.gateway,
    resolveService: (namespace, name, port) => {
      if (kubelet === undefined) throw new Error(`no endpoints available for service "${name}"`);
      return kubelet.resolveService(namespace, name, port);
    },
    podLogs: (request) => kubelet?.podLogs(request),
  });
  const kubeletErrors: string[] = [];
  kubelet = createKubelet({
    apiServer: {
      url: sandbox.url,
      caCertPem: sandbox.caCertPem,
      token: sandbox.users["kubernetes-admin"] ?? "",
    },
    network,
    repoRoot: REPO_ROOT,
    kubectl: (await run("sh", ["-c", "command -v kubectl"], {})).stdout.trim(),
    mode: options.mode ?? "process",
    ...(options.podman === undefined ? {} : { podman: options.podman }),
    onError: (message) => kubeletErrors.push(message),
  });
  await kubelet.start();
  const started = kubelet;
  const home = mkdtempSync(join(tmpdir(), "cluster-e2e-"));
  const toolEnv = {
    ...process.env,
    HOME: home,
    KUBECONFIG: sandbox.kubeconfigPath,
    KUBECACHEDIR: join(home, "kube-cache"),
  };
  const helmBin = ensureHelm();
  return {
    network,
    sandbox,
    kubelet: started,
    client: createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 }),
    helm: (args, timeoutMs = 300000) =>
      run(helmBin, args, { env: { ...toolEnv, HELM_CACHE_HOME: join(home, "helm") }, timeoutMs }),
    kubectl: (args, stdin) =>
      run("kubectl", args, { env: toolEnv, ...(stdin === undefined ? {} : { stdin }) }),
    forbiddenLines: () =>
      started.logs().flatMap((l) =>
        l.text
          .split("\n")
          .filter((line) => /forbidden/i.test(line))
          .map((line) => `${l.namespace}/${l.pod}/${l.container}: ${line}`),
      ),
    kubeletErrors,
    async diagnostics() {
      const pods = await run("kubectl", ["get", "pods", "-A", "-o", "wide"], { env: toolEnv });
      const tails = started
        .logs()
        .map(
          (l) => `--- ${l.namespace}/${l.pod}/${l.container}\n${l.text.split("\n").slice(-25).join("\n")}`,
        );
      return [pods.stdout, pods.stderr, ...tails, `kubelet errors: ${kubeletErrors.join("\n")}`].join("\n");
    },
    async stop() {
      await started.stop();
      await sandbox.stop();
      await network.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Polls `check` every `everyMs` until it returns a value (not `undefined`) or `timeoutMs` pass. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 120000,
  everyMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

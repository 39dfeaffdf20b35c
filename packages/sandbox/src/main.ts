/** `kyverno-ts sandbox`: start a sandbox, print how to reach it, run until SIGINT/SIGTERM. */
import { isIP } from "node:net";
import type { Writable } from "node:stream";
import { type SandboxOptions, startSandbox } from "./sandbox.js";

/** Options of `runSandboxCommand`. */
export interface RunSandboxOptions {
  stdout: Writable;
  /** Where argument errors go (default: `stdout`). */
  stderr?: Writable;
  /**
   * Command-line arguments after `sandbox`: `--port N`, `--bind-address IP`, `--data-dir DIR`, `--crd FILE` (repeatable),
   * `--authorization-mode RBAC|AlwaysAllow`, `--help`.
   */
  args: readonly string[];
  /** Resolves when the command should stop (defaults to the first SIGINT or SIGTERM). */
  until?: Promise<void>;
}

/** The help text, laid out as commander lays out the other subcommands'. */
const HELP = `Usage: kyverno-ts sandbox [options]

Run a local Kubernetes API server (on 127.0.0.1) until Ctrl+C: kubectl and
client-node work against it over HTTPS, with kube-apiserver's webhook admission
and RBAC authorization. Prints the path of a kubeconfig whose current context is
kubernetes-admin (group system:masters, allowed everything); ServiceAccount
tokens (kubectl create token) and RoleBindings work as on a real cluster.
Without --data-dir the state lives in memory and a temporary folder; with it,
objects, the CA, the token signing key and the kubeconfig's tokens are kept
there (0600 files in a 0700 folder), so clients reconnect after a restart.

Options:
  --port <n>                   port to listen on (0: any free port) (default: 0)
  --bind-address <ip>          address to listen on, also in the serving
                               certificate (e.g. a bridge that Pods in network
                               namespaces reach) (default: "127.0.0.1")
  --data-dir <path>            folder to keep state and the kubeconfig in
                               (default: in memory, kubeconfig in a temporary
                               folder)
  --crd <file>                 YAML file of CustomResourceDefinitions to install
                               at start (repeatable) (default: none)
  --authorization-mode <mode>  RBAC (as kube-apiserver) or AlwaysAllow (every
                               authenticated user may do everything)
                               (default: "RBAC")
  -h, --help                   display help for command

Examples:
  $ kyverno-ts sandbox                              # prints the kubeconfig path
  $ kyverno-ts sandbox --port 6443 --data-dir .sandbox   # same CA and tokens after a restart
  $ kyverno-ts sandbox --crd crds/kyverno.io_clusterpolicies.yaml
  $ kyverno-ts sandbox --authorization-mode AlwaysAllow
  $ kubectl --kubeconfig <printed path> auth can-i --list --as system:serviceaccount:default:default
`;

const VALUE_FLAGS = new Set(["--port", "--bind-address", "--data-dir", "--crd", "--authorization-mode"]);
const MODES = new Set(["RBAC", "AlwaysAllow"]);

type Parsed = { help: true } | { help: false; options: SandboxOptions } | { help: false; error: string };

function parseArgs(args: readonly string[]): Parsed {
  const crds: string[] = [];
  const options: SandboxOptions = { port: 0, crds };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--help" || arg === "-h") return { help: true };
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUE_FLAGS.has(flag)) return { help: false, error: `error: unknown option '${arg}'` };
    const value = eq > 0 && flag !== arg ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) return { help: false, error: `error: option '${flag}' argument missing` };
    if (flag === "--port") {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        return {
          help: false,
          error: `error: option '--port <n>' argument '${value}' is not a port (0-65535)`,
        };
      options.port = port;
    } else if (flag === "--bind-address") {
      if (isIP(value) === 0)
        return {
          help: false,
          error: `error: option '--bind-address <ip>' argument '${value}' is not an IP address`,
        };
      options.listenHost = value;
    } else if (flag === "--data-dir") options.dataDir = value;
    else if (flag === "--crd") crds.push(value);
    else if (MODES.has(value)) options.authorization = value as "RBAC" | "AlwaysAllow";
    else
      return {
        help: false,
        error: `error: option '--authorization-mode <mode>' argument '${value}' is invalid. Allowed choices are RBAC, AlwaysAllow.`,
      };
  }
  return { help: false, options };
}

/** Runs the sandbox command; resolves with the exit code once stopped. */
export async function runSandboxCommand(options: RunSandboxOptions): Promise<number> {
  const { stdout } = options;
  const parsed = parseArgs(options.args);
  if (parsed.help) {
    stdout.write(HELP);
    return 0;
  }
  if ("error" in parsed) {
    (options.stderr ?? stdout).write(`${parsed.error}\n(run kyverno-ts sandbox --help for the options)\n`);
    return 2;
  }
  const sandbox = await startSandbox(parsed.options);
  stdout.write(
    `Sandbox API server listening on ${sandbox.url}\n` +
      `kubeconfig: ${sandbox.kubeconfigPath}\n` +
      `try: kubectl --kubeconfig ${sandbox.kubeconfigPath} get ns\n` +
      "Press Ctrl+C to stop.\n",
  );
  const until =
    options.until ??
    new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
  await until;
  await sandbox.stop();
  stdout.write("Sandbox stopped.\n");
  return 0;
}

/**
 * What the transport needs from a kubeconfig: the server, TLS options and headers for each connection,
 * and whether a proxy's agent carries the requests. `loadCredentials` serves the common cases itself
 * (`kubeconfig.ts`, `kubeconfig-credentials.ts`) and loads `@kubernetes/client-node` only for the rest
 * (`exec` and `auth-provider` plugins, `proxy-url`, impersonation, any field it does not handle, a
 * `KubeConfig` passed in): client-node's index pulls in every generated API model (~+86 MiB RSS,
 * ~32 MiB of heap that every full GC marks, ~0.25 s of startup CPU).
 */
import { accessSync } from "node:fs";
import type * as https from "node:https";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { type Clock, systemClock } from "@kyverno-ts/api";
import type { KubeClientOptions } from "./client.js";
import {
  type Kubeconfig,
  mergeKubeconfigs,
  parseKubeconfig,
  type Resolution,
  type ResolvedContext,
  readKubeconfigFile,
  resolveContext,
} from "./kubeconfig.js";
import { inClusterContext, nativeCredentials, SERVICE_ACCOUNT_DIR } from "./kubeconfig-credentials.js";

/** The credentials of one kubeconfig context, as the transport uses them. */
export interface Credentials {
  /** Who reads the kubeconfig: this package, or client-node's `KubeConfig`. */
  readonly via: "native" | "client-node";
  /** The API server's URL ("" when the context has none). */
  readonly server: string;
  /** A proxy carries the requests: `apply` sets its agent as `options.agent`. */
  readonly proxied: boolean;
  /** Fills TLS options, headers and `auth` for a connection; throws when they cannot be had. */
  apply(options: https.RequestOptions): Promise<void>;
}

/** Where credentials come from (see `KubeClientOptions`). */
export type CredentialsSource = Pick<
  KubeClientOptions,
  "kubeconfig" | "kubeconfigPath" | "inCluster" | "context" | "clock"
>;

/** The process around the loader; tests replace it (client-node, when it loads instead, reads `process.env`). */
export interface CredentialsEnvironment {
  /** `KUBECONFIG`, `HOME`, `KUBERNETES_SERVICE_HOST`/`_PORT` (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where a Pod's service account is mounted (default `/var/run/secrets/kubernetes.io/serviceaccount`). */
  serviceAccountDir?: string;
  /** Default `process.platform`; Windows' default lookup (WSL) is client-node's. */
  platform?: NodeJS.Platform;
}

/** The credentials of a client-node `KubeConfig` (its current context). */
export function clientNodeCredentials(kc: KubeConfig): Credentials {
  const cluster = kc.getCurrentCluster();
  return {
    via: "client-node",
    server: cluster?.server ?? "",
    proxied: cluster?.proxyUrl !== undefined && cluster.proxyUrl !== null,
    apply: (options) => kc.applyToHTTPSOptions(options),
  };
}

/** `@kubernetes/client-node`, loaded only when a kubeconfig needs it. */
function clientNode(): { KubeConfig: new () => KubeConfig } {
  return createRequire(import.meta.url)("@kubernetes/client-node") as { KubeConfig: new () => KubeConfig };
}

/** The kubeconfig loaded by client-node, as before this package read kubeconfigs itself. */
function loadWithClientNode(source: CredentialsSource): KubeConfig {
  const kc = new (clientNode().KubeConfig)();
  if (typeof source.kubeconfig === "string") kc.loadFromString(source.kubeconfig);
  else if (source.kubeconfigPath !== undefined) kc.loadFromFile(source.kubeconfigPath);
  else if (source.inCluster === true) kc.loadFromCluster();
  else kc.loadFromDefault();
  if (source.context !== undefined) kc.setCurrentContext(source.context);
  return kc;
}

const exists = (path: string): boolean => {
  try {
    accessSync(path);
    return true;
  } catch {
    return false;
  }
};

/** The service account's context, unless another context is asked for. */
function inCluster(source: CredentialsSource, environment: CredentialsEnvironment): Resolution {
  const resolved = inClusterContext({
    ...(environment.env === undefined ? {} : { env: environment.env }),
    ...(environment.serviceAccountDir === undefined
      ? {}
      : { serviceAccountDir: environment.serviceAccountDir }),
  });
  if (source.context !== undefined && source.context !== resolved.context)
    throw new Error(
      `${resolved.where}: context "${source.context}" is not defined (contexts: ${resolved.context})`,
    );
  return { native: resolved };
}

/** client-node's last resort when there is no kubeconfig and no service account. */
const LOCALHOST: ResolvedContext = {
  context: "loaded-context",
  where: "default kubeconfig (none found)",
  cluster: { name: "cluster", server: "http://localhost:8080", skipTLSVerify: false },
  user: { name: "user" },
};

/**
 * client-node's `loadFromDefault`: the files of `KUBECONFIG` (merged), else `~/.kube/config`, else the
 * Pod's service account, else `http://localhost:8080`. `undefined`: client-node's own (Windows, WSL).
 */
function loadDefault(source: CredentialsSource, environment: CredentialsEnvironment): Resolution | undefined {
  const env = environment.env ?? process.env;
  const list = env.KUBECONFIG;
  if (list !== undefined && list !== "") {
    const files = list.split(delimiter).filter((f) => f !== "");
    if (files.length === 0) throw new Error(`KUBECONFIG=${list} names no file`);
    const configs: Kubeconfig[] = files.map((f) => readKubeconfigFile(f));
    const [only] = configs;
    const merged =
      configs.length === 1 && only !== undefined ? only : mergeKubeconfigs(configs, `KUBECONFIG ${list}`);
    return resolveContext(merged, source.context);
  }
  const platform = environment.platform ?? process.platform;
  if (platform === "win32") return undefined;
  const home = env.HOME;
  if (home !== undefined && home !== "" && exists(home)) {
    const path = join(home, ".kube", "config");
    if (exists(path)) return resolveContext(readKubeconfigFile(path), source.context);
  }
  const serviceAccount = environment.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  if (exists(join(serviceAccount, "token"))) return inCluster(source, environment);
  if (source.context !== undefined && source.context !== LOCALHOST.context)
    throw new Error(
      `no kubeconfig found (KUBECONFIG, ~/.kube/config, in-cluster): no context "${source.context}"`,
    );
  return { native: LOCALHOST };
}

/**
 * The credentials of the first source set in `source` (a kubeconfig string, a file, the Pod's service
 * account, else the default lookup), read natively when the chosen cluster and user use only the fields
 * handled here and by client-node otherwise. Throws, naming the file and field, for an unusable kubeconfig.
 */
export function loadCredentials(
  source: CredentialsSource,
  environment: CredentialsEnvironment = {},
): Credentials {
  if (source.kubeconfig !== undefined && typeof source.kubeconfig !== "string")
    return clientNodeCredentials(source.kubeconfig);
  let resolution: Resolution | undefined;
  if (typeof source.kubeconfig === "string")
    resolution = resolveContext(
      parseKubeconfig(source.kubeconfig, { label: "kubeconfig (string)" }),
      source.context,
    );
  else if (source.kubeconfigPath !== undefined)
    resolution = resolveContext(readKubeconfigFile(source.kubeconfigPath), source.context);
  else if (source.inCluster === true) resolution = inCluster(source, environment);
  else resolution = loadDefault(source, environment);
  if (resolution === undefined || "fallback" in resolution)
    return clientNodeCredentials(loadWithClientNode(source));
  const clock: Clock = source.clock ?? systemClock;
  // A kubeconfig's token file is read at once (client-node reads it on load); the service account's on use.
  const readTokenFileNow = resolution.native.serviceAccount !== true;
  return nativeCredentials(resolution.native, { clock, readTokenFileNow });
}

/**
 * The native `Credentials` of a kubeconfig context or of the Pod's service account: CA, client
 * certificate and key (files read for each connection, as client-node reads them), a bearer token, a
 * token file re-read every 60 s (client-node's `FileAuth`, client-go's file token source) and basic auth.
 */
import { readFileSync } from "node:fs";
import type * as https from "node:https";
import { isIPv6 } from "node:net";
import { join } from "node:path";
import type { Clock } from "@kyverno-ts/api";
import type { Credentials } from "./credentials.js";
import type { ResolvedContext } from "./kubeconfig.js";

/** Where a Pod's service account is mounted. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** How long a token read from a file is used before the file is read again (client-node, client-go: 60 s). */
export const TOKEN_FILE_TTL_MS = 60_000;

/** Reads `path` for `field`, naming both when it cannot. */
function readFor(path: string, field: string, where: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(`${where}: ${field}: cannot read ${path} (${reason})`);
  }
}

/**
 * A token file: read on first use and again once `TOKEN_FILE_TTL_MS` passed, trimmed (client-go trims;
 * a token ending in a newline is not a valid header). A failed re-read keeps the token read before, as
 * client-go does while a rotation replaces the file; a failed first read throws.
 */
export function createTokenFile(path: string, field: string, where: string, clock: Clock): () => string {
  let token: string | undefined;
  let readAt = 0;
  return () => {
    const now = clock.now();
    if (token !== undefined && now - readAt <= TOKEN_FILE_TTL_MS) return token;
    try {
      token = readFor(path, field, where).toString("utf8").trim();
      readAt = now;
    } catch (error) {
      if (token === undefined) throw error;
    }
    return token;
  };
}

/** Options of `nativeCredentials`. */
export interface NativeCredentialsOptions {
  /** For the token file's age. */
  clock: Clock;
  /** Read the token file now, so a missing one fails the load (client-node reads `token-file` on load). */
  readTokenFileNow?: boolean;
}

/** The credentials of a resolved kubeconfig context (or of the service account, `inClusterContext`). */
export function nativeCredentials(resolved: ResolvedContext, options: NativeCredentialsOptions): Credentials {
  const { cluster, user } = resolved;
  const clusterAt = `${resolved.where}: cluster "${cluster.name}"`;
  const userAt = `${resolved.where}: user "${user?.name ?? ""}"`;
  const tokenFile =
    user?.tokenFile === undefined
      ? undefined
      : createTokenFile(user.tokenFile.path, user.tokenFile.field, userAt, options.clock);
  if (tokenFile !== undefined && options.readTokenFileNow === true && user?.token === undefined) tokenFile();
  const plainHttp = cluster.server.startsWith("http:") && !cluster.skipTLSVerify;

  return {
    via: "native",
    server: cluster.server,
    proxied: false,
    async apply(opts: https.RequestOptions): Promise<void> {
      if (cluster.skipTLSVerify) opts.rejectUnauthorized = false;
      if (cluster.tlsServerName !== undefined) opts.servername = cluster.tlsServerName;
      const ca =
        cluster.caFile !== undefined
          ? readFor(cluster.caFile, "certificate-authority", clusterAt)
          : cluster.caData;
      if (ca !== undefined) opts.ca = ca;
      const cert =
        user?.certFile !== undefined ? readFor(user.certFile, "client-certificate", userAt) : user?.certData;
      if (cert !== undefined) opts.cert = cert;
      const key = user?.keyFile !== undefined ? readFor(user.keyFile, "client-key", userAt) : user?.keyData;
      if (key !== undefined) opts.key = key;
      const token = user?.token ?? tokenFile?.();
      if (token !== undefined && token !== "")
        opts.headers = { ...opts.headers, Authorization: `Bearer ${token}` };
      if (user?.username !== undefined) opts.auth = `${user.username}:${user.password ?? ""}`;
      // client-node refuses to send credentials in the clear unless the cluster says TLS is not wanted.
      if (plainHttp)
        throw new Error(
          `${clusterAt}: server ${cluster.server} is plain HTTP, allowed only with insecure-skip-tls-verify: true`,
        );
    },
  };
}

/** Options of `inClusterContext`. */
export interface InClusterOptions {
  /** `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT` (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where the service account is mounted (default `SERVICE_ACCOUNT_DIR`). */
  serviceAccountDir?: string;
}

/**
 * The service account of the Pod, as client-node's `loadFromCluster` sees it: the API server at
 * `KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT` (an IPv6 host bracketed; HTTP on ports 80, 8080 and
 * 8001), the mounted `ca.crt`, and the mounted `token` re-read as it rotates.
 */
export function inClusterContext(options: InClusterOptions = {}): ResolvedContext {
  const env = options.env ?? process.env;
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (host === undefined || host === "" || port === undefined || port === "")
    throw new Error(
      "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not in a Pod?)",
    );
  const scheme = port === "80" || port === "8080" || port === "8001" ? "http" : "https";
  const serverHost = host !== undefined && isIPv6(host) ? `[${host}]` : host;
  return {
    context: "inClusterContext",
    where: `in-cluster service account ${dir}`,
    cluster: {
      name: "inCluster",
      server: `${scheme}://${serverHost}:${port}`,
      caFile: join(dir, "ca.crt"),
      skipTLSVerify: false,
    },
    user: { name: "inClusterUser", tokenFile: { path: join(dir, "token"), field: "token" } },
    serviceAccount: true,
  };
}

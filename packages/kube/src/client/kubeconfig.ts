/**
 * Kubeconfig files read without `@kubernetes/client-node`: parsing (YAML or JSON), merging the files of
 * `KUBECONFIG` and choosing a context, with client-node's rules (`config.js`, `config_types.js`) so a
 * kubeconfig selects the same cluster and credentials either way. `resolveContext` says whether the
 * chosen cluster and user use only the fields `kubeconfig-credentials.ts` handles; anything else
 * (`exec`, `auth-provider`, `proxy-url`, impersonation, a field we do not know) is left to client-node.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { parse } from "yaml";

/** Where an entry comes from: named in messages; relative file paths start at `dir`. */
export interface KubeconfigSource {
  /** `kubeconfig /path/to/file`, or `kubeconfig (string)`. */
  readonly label: string;
  /** The kubeconfig file's folder, for relative paths (none for a string). */
  readonly dir?: string;
}

/** A named cluster, user or context with its fields as written. */
export interface KubeconfigEntry {
  readonly name: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly source: KubeconfigSource;
}

/** A parsed (possibly merged) kubeconfig. */
export interface Kubeconfig {
  readonly label: string;
  readonly clusters: readonly KubeconfigEntry[];
  readonly users: readonly KubeconfigEntry[];
  readonly contexts: readonly KubeconfigEntry[];
  readonly currentContext?: string;
}

/** The cluster of a context, as the native credentials use it. */
export interface ClusterConfig {
  readonly name: string;
  /** Without a trailing slash (as client-node keeps it). */
  readonly server: string;
  /** Absolute, or relative to the working directory (a kubeconfig string). */
  readonly caFile?: string;
  readonly caData?: Buffer;
  readonly skipTLSVerify: boolean;
  readonly tlsServerName?: string;
}

/** The user of a context, as the native credentials use it. */
export interface UserConfig {
  readonly name: string;
  readonly certFile?: string;
  readonly certData?: Buffer;
  readonly keyFile?: string;
  readonly keyData?: Buffer;
  readonly token?: string;
  /** `tokenFile` (client-go) or `token-file` (client-node); re-read while in use. */
  readonly tokenFile?: { readonly path: string; readonly field: string };
  readonly username?: string;
  readonly password?: string;
}

/** A context whose cluster and user the native credentials can serve. */
export interface ResolvedContext {
  readonly context: string;
  /** The kubeconfig (for messages about the user's fields). */
  readonly where: string;
  readonly cluster: ClusterConfig;
  readonly user?: UserConfig;
  /** The Pod's service account (its token file is read on first use, as client-node reads it). */
  readonly serviceAccount?: boolean;
}

/** Either the context's configuration, or why client-node has to load it. */
export type Resolution = { readonly native: ResolvedContext } | { readonly fallback: string };

/** Cluster fields handled natively (`extensions` and `disable-compression` change nothing here). */
const CLUSTER_FIELDS = new Set([
  "server",
  "certificate-authority",
  "certificate-authority-data",
  "insecure-skip-tls-verify",
  "tls-server-name",
  "extensions",
  "disable-compression",
]);

/** User fields handled natively; any other set field (exec, auth-provider, as, ...) means client-node. */
const USER_FIELDS = new Set([
  "client-certificate",
  "client-certificate-data",
  "client-key",
  "client-key-data",
  "token",
  "tokenFile",
  "token-file",
  "username",
  "password",
  "extensions",
]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The entries of one list (`clusters`, `users`, `contexts`), validated as client-node does. */
function entriesOf(
  list: unknown,
  key: "cluster" | "user" | "context",
  source: KubeconfigSource,
): KubeconfigEntry[] {
  if (!Array.isArray(list)) return [];
  return list.map((element: unknown, i) => {
    const at = `${key === "context" ? "contexts" : `${key}s`}[${i}]`;
    const entry = isRecord(element) ? element : {};
    const name = entry.name;
    if (name === undefined || name === null || name === "")
      throw new Error(`${source.label}: ${at}.name is missing`);
    const value = entry[key];
    if (key !== "user" && !isRecord(value)) throw new Error(`${source.label}: ${at}.${key} is missing`);
    const fields = isRecord(value) ? value : {};
    if (key === "cluster" && !fields.server)
      throw new Error(`${source.label}: ${at}.cluster.server is missing`);
    if (key === "context" && !fields.cluster)
      throw new Error(`${source.label}: ${at}.context.cluster is missing`);
    return { name: String(name), fields, source };
  });
}

/** Parses a kubeconfig (YAML or JSON); throws with `source.label` for what client-node also rejects. */
export function parseKubeconfig(text: string, source: KubeconfigSource): Kubeconfig {
  let document: unknown;
  try {
    document = parse(text, { merge: true, logLevel: "error" });
  } catch (error) {
    throw new Error(`${source.label}: not valid YAML: ${(error as Error).message}`);
  }
  if (!isRecord(document)) throw new Error(`${source.label}: not a kubeconfig (no mapping at the top)`);
  const current = document["current-context"];
  return {
    label: source.label,
    clusters: entriesOf(document.clusters, "cluster", source),
    users: entriesOf(document.users, "user", source),
    contexts: entriesOf(document.contexts, "context", source),
    ...(typeof current === "string" && current !== "" ? { currentContext: current } : {}),
  };
}

/** Reads a kubeconfig file; an unreadable file throws Node's error (it names the path). */
export function readKubeconfigFile(path: string): Kubeconfig {
  const text = readFileSync(path, "utf8");
  return parseKubeconfig(text, { label: `kubeconfig ${path}`, dir: dirname(path) });
}

/**
 * The files of `KUBECONFIG` merged as client-node's `loadFromDefault` merges them: every file must be
 * readable, a name defined twice is an error, and the last file that sets `current-context` wins.
 */
export function mergeKubeconfigs(files: readonly Kubeconfig[], label: string): Kubeconfig {
  const merged = {
    clusters: [] as KubeconfigEntry[],
    users: [] as KubeconfigEntry[],
    contexts: [] as KubeconfigEntry[],
  };
  let currentContext: string | undefined;
  for (const file of files) {
    if (file.currentContext !== undefined) currentContext = file.currentContext;
    for (const kind of ["clusters", "users", "contexts"] as const)
      for (const entry of file[kind]) {
        const twin = merged[kind].find((e) => e.name === entry.name);
        if (twin !== undefined)
          throw new Error(
            `${label}: ${kind.slice(0, -1)} "${entry.name}" is defined in ${twin.source.label} and again in ${entry.source.label}`,
          );
        merged[kind].push(entry);
      }
  }
  return { label, ...merged, ...(currentContext === undefined ? {} : { currentContext }) };
}

/** A text field: absent when null or empty; numbers and booleans as written (client-node keeps them). */
function text(fields: Readonly<Record<string, unknown>>, key: string, where: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new Error(`${where}: ${key} must be a string`);
}

/** Base64 data (whitespace ignored, as Go's decoder ignores line breaks); bad characters are an error. */
function data(fields: Readonly<Record<string, unknown>>, key: string, where: string): Buffer | undefined {
  const value = text(fields, key, where);
  if (value === undefined) return undefined;
  const compact = value.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw new Error(`${where}: ${key} is not valid base64`);
  return Buffer.from(compact, "base64");
}

/** A file path of the kubeconfig, relative to its folder as client-go and client-node resolve it. */
function file(entry: KubeconfigEntry, key: string, where: string): string | undefined {
  const path = text(entry.fields, key, where);
  if (path === undefined || entry.source.dir === undefined || isAbsolute(path)) return path;
  return join(entry.source.dir, path);
}

/** The first set field that the native credentials do not handle. */
function unhandled(
  fields: Readonly<Record<string, unknown>>,
  known: ReadonlySet<string>,
): string | undefined {
  return Object.keys(fields).find(
    (key) => !known.has(key) && fields[key] !== null && fields[key] !== undefined,
  );
}

function clusterOf(entry: KubeconfigEntry): ClusterConfig {
  const where = `${entry.source.label}: cluster "${entry.name}"`;
  const caFile = file(entry, "certificate-authority", where);
  const caData = data(entry.fields, "certificate-authority-data", where);
  const tlsServerName = text(entry.fields, "tls-server-name", where);
  return {
    name: entry.name,
    server: (text(entry.fields, "server", where) ?? "").replace(/\/$/, ""),
    ...(caFile === undefined ? {} : { caFile }),
    ...(caData === undefined ? {} : { caData }),
    skipTLSVerify: entry.fields["insecure-skip-tls-verify"] === true,
    ...(tlsServerName === undefined ? {} : { tlsServerName }),
  };
}

function userOf(entry: KubeconfigEntry): UserConfig {
  const where = `${entry.source.label}: user "${entry.name}"`;
  const f = entry.fields;
  const set = <K extends keyof UserConfig>(key: K, value: UserConfig[K] | undefined) =>
    value === undefined ? {} : { [key]: value };
  // client-go's `tokenFile` is relative to the kubeconfig; client-node's `token-file` to the working directory.
  const goTokenFile = file(entry, "tokenFile", where);
  const nodeTokenFile = text(f, "token-file", where);
  const tokenFile =
    goTokenFile !== undefined
      ? { path: goTokenFile, field: "tokenFile" }
      : nodeTokenFile !== undefined
        ? { path: nodeTokenFile, field: "token-file" }
        : undefined;
  return {
    name: entry.name,
    ...set("certFile", file(entry, "client-certificate", where)),
    ...set("certData", data(f, "client-certificate-data", where)),
    ...set("keyFile", file(entry, "client-key", where)),
    ...set("keyData", data(f, "client-key-data", where)),
    ...set("token", text(f, "token", where)),
    ...set("tokenFile", tokenFile),
    ...set("username", text(f, "username", where)),
    ...set("password", text(f, "password", where)),
  };
}

/**
 * The cluster and user of `context` (default: the kubeconfig's `current-context`), or the reason
 * client-node must load the kubeconfig (a cluster or user field not handled here). Throws, naming the
 * kubeconfig and the field, for no current context, a missing context, cluster or user, bad base64.
 */
export function resolveContext(config: Kubeconfig, context?: string): Resolution {
  const name = context ?? config.currentContext;
  if (name === undefined)
    throw new Error(`${config.label}: no current-context is set (set one, or choose a context)`);
  const ctx = config.contexts.find((c) => c.name === name);
  if (ctx === undefined) {
    const known = config.contexts.map((c) => c.name).join(", ");
    throw new Error(`${config.label}: context "${name}" is not defined (contexts: ${known || "none"})`);
  }
  const clusterName = String(ctx.fields.cluster);
  const cluster = config.clusters.find((c) => c.name === clusterName);
  if (cluster === undefined)
    throw new Error(
      `${ctx.source.label}: context "${name}" names cluster "${clusterName}", which is not defined`,
    );
  const userName = text(ctx.fields, "user", `${ctx.source.label}: context "${name}"`);
  const user = userName === undefined ? undefined : config.users.find((u) => u.name === userName);
  if (userName !== undefined && user === undefined)
    throw new Error(`${ctx.source.label}: context "${name}" names user "${userName}", which is not defined`);

  const clusterField = unhandled(cluster.fields, CLUSTER_FIELDS);
  if (clusterField !== undefined) return { fallback: `cluster "${cluster.name}" sets ${clusterField}` };
  const userField = user === undefined ? undefined : unhandled(user.fields, USER_FIELDS);
  if (user !== undefined && userField !== undefined)
    return { fallback: `user "${user.name}" sets ${userField}` };
  return {
    native: {
      context: name,
      where: config.label,
      cluster: clusterOf(cluster),
      ...(user === undefined ? {} : { user: userOf(user) }),
    },
  };
}

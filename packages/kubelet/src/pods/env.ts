/**
 * A container's environment as the kubelet builds it: the image's variables, `envFrom`, then `env`
 * (`value` with `$(VAR)` references, the downward API's `fieldRef`, `resourceFieldRef`,
 * `secretKeyRef`, `configMapKeyRef`), and the `KUBERNETES_SERVICE_*` variables in-cluster clients read.
 */
import type { KubeClient } from "@kyverno-ts/kube";
import type { Container, Pod } from "./pod-types.js";

/** What the environment is resolved against. */
export interface EnvContext {
  client: KubeClient;
  pod: Pod;
  podIP: string;
  hostIP: string;
  /** The API server as Pods reach it. */
  apiServer: { host: string; port: number };
}

/** Expands `$(NAME)` references to variables defined earlier; `$$(NAME)` escapes. Unknown references stay. */
export function expandReferences(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match: string, name: string | undefined) => {
    if (match === "$$") return "$";
    return name !== undefined && vars[name] !== undefined ? vars[name] : match;
  });
}

async function keyOf(
  ctx: EnvContext,
  kind: "Secret" | "ConfigMap",
  ref: { name: string; key: string; optional?: boolean },
  variable: string,
): Promise<string | undefined> {
  const data = await dataOf(ctx, kind, ref.name, ref.optional === true);
  if (data === undefined) return undefined;
  const value = data[ref.key];
  if (value === undefined && ref.optional !== true)
    throw new Error(
      `couldn't find key ${ref.key} in ${kind} ${ctx.pod.metadata.namespace}/${ref.name} (env ${variable})`,
    );
  return value;
}

async function dataOf(
  ctx: EnvContext,
  kind: "Secret" | "ConfigMap",
  name: string,
  optional: boolean,
): Promise<Record<string, string> | undefined> {
  const got = await ctx.client.get<{ metadata?: { name?: string }; data?: Record<string, string> }>({
    apiVersion: "v1",
    kind,
    namespace: ctx.pod.metadata.namespace ?? "default",
    name,
  });
  if (!got.ok) {
    if (got.status === 404 && optional) return undefined;
    throw new Error(`${kind.toLowerCase()} "${name}" not found (${got.message})`);
  }
  const data = got.value.data ?? {};
  if (kind === "ConfigMap") return data;
  return Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
  );
}

function fieldValue(ctx: EnvContext, path: string): string {
  const meta = ctx.pod.metadata;
  const label = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (label !== null) return (label[1] === "labels" ? meta.labels : meta.annotations)?.[label[2] ?? ""] ?? "";
  switch (path) {
    case "metadata.name":
      return meta.name;
    case "metadata.namespace":
      return meta.namespace ?? "default";
    case "metadata.uid":
      return meta.uid ?? "";
    case "spec.nodeName":
      return ctx.pod.spec.nodeName ?? "";
    case "spec.serviceAccountName":
      return ctx.pod.spec.serviceAccountName ?? "default";
    case "status.podIP":
    case "status.podIPs":
      return ctx.podIP;
    case "status.hostIP":
    case "status.hostIPs":
      return ctx.hostIP;
    default:
      throw new Error(`unsupported fieldRef fieldPath ${path}`);
  }
}

const MEMORY_UNITS: Record<string, number> = {
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  K: 1e3,
  M: 1e6,
  G: 1e9,
};

function resourceValue(container: Container, resource: string): string {
  const [kind, name] = resource.split(".") as [string, string];
  const value = (kind === "limits" ? container.resources?.limits : container.resources?.requests)?.[name];
  if (value === undefined) return name === "cpu" ? "1" : "0";
  if (name === "memory") {
    const m = /^(\d+)([A-Za-z]*)$/.exec(value);
    return m === null ? value : String(Number(m[1]) * (MEMORY_UNITS[m[2] ?? ""] ?? 1));
  }
  if (name === "cpu")
    return String(
      Math.max(1, Math.ceil(value.endsWith("m") ? Number(value.slice(0, -1)) / 1000 : Number(value))),
    );
  return value;
}

/** Builds the environment of `container` over the image's `base` variables. */
export async function containerEnv(
  ctx: EnvContext,
  container: Container,
  base: Readonly<Record<string, string>>,
): Promise<Record<string, string>> {
  const vars: Record<string, string> = {
    ...base,
    HOSTNAME: ctx.pod.metadata.name,
    KUBERNETES_SERVICE_HOST: ctx.apiServer.host,
    KUBERNETES_SERVICE_PORT: String(ctx.apiServer.port),
    KUBERNETES_SERVICE_PORT_HTTPS: String(ctx.apiServer.port),
    KUBERNETES_PORT: `tcp://${ctx.apiServer.host}:${ctx.apiServer.port}`,
  };
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (ref === undefined) continue;
    const data = await dataOf(
      ctx,
      from.configMapRef !== undefined ? "ConfigMap" : "Secret",
      ref.name,
      ref.optional === true,
    );
    for (const [k, v] of Object.entries(data ?? {})) vars[`${from.prefix ?? ""}${k}`] = v;
  }
  for (const env of container.env ?? []) {
    const from = env.valueFrom;
    let value: string | undefined;
    if (from === undefined) value = expandReferences(env.value ?? "", vars);
    else if (from.fieldRef !== undefined) value = fieldValue(ctx, from.fieldRef.fieldPath);
    else if (from.resourceFieldRef !== undefined)
      value = resourceValue(container, from.resourceFieldRef.resource);
    else if (from.secretKeyRef !== undefined) value = await keyOf(ctx, "Secret", from.secretKeyRef, env.name);
    else if (from.configMapKeyRef !== undefined)
      value = await keyOf(ctx, "ConfigMap", from.configMapKeyRef, env.name);
    if (value !== undefined) vars[env.name] = value;
  }
  return vars;
}

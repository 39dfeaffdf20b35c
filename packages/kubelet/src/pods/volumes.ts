/**
 * The Pod's volumes as files in its directory: the projected ServiceAccount token (TokenRequest, bound
 * to the Pod, refreshed at 80 % of its life), `ca.crt` and `namespace`; secret, configMap, emptyDir
 * and projected volumes. A missing Secret or ConfigMap fails the setup with kubelet's message; the Pod
 * stays `ContainerCreating` and is retried.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { KubeClient } from "@kyverno-ts/kube";
import { type ApiServerAccess, requestServiceAccountToken } from "../api/token-request.js";
import type { Mount } from "../runtime/types.js";
import type { Container, KeyToPath, Pod, Volume } from "./pod-types.js";

/** Where the ServiceAccount token and CA are mounted, as in every Pod. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * The ConfigMap kube-controller-manager's root CA publisher (and the sandbox's) keeps in every namespace:
 * the token volume injected into Pods (`kube-api-access-…`) reads `ca.crt` from it; the API server's CA
 * stands in while it does not exist (a namespace created a moment ago).
 */
const ROOT_CA_CONFIGMAP = "kube-root-ca.crt";

/** The Pod's volumes on disk. */
export interface PodVolumes {
  /** The mounts of one container (its volumeMounts, and the ServiceAccount directory). */
  mountsOf(container: Container): Mount[];
  /** Stops refreshing tokens. */
  stop(): void;
}

/** What the volumes are made from. */
export interface VolumeContext {
  client: KubeClient;
  access: ApiServerAccess;
  pod: Pod;
  podDir: string;
}

interface TokenFile {
  file: string;
  audiences: string[];
  expirationSeconds: number;
}

async function readData(
  client: KubeClient,
  kind: "Secret" | "ConfigMap",
  namespace: string,
  name: string,
  optional: boolean,
  volume: string,
): Promise<Record<string, Buffer> | undefined> {
  const got = await client.get<{
    metadata?: { name?: string };
    data?: Record<string, string>;
    binaryData?: Record<string, string>;
  }>({
    apiVersion: "v1",
    kind,
    namespace,
    name,
  });
  if (!got.ok) {
    if (got.status === 404 && optional) return undefined;
    const what = kind === "Secret" ? "secret" : "configmap";
    throw new Error(
      `MountVolume.SetUp failed for volume "${volume}" : ${what} "${name}" not found (${got.message})`,
    );
  }
  const out: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(got.value.data ?? {}))
    out[k] = kind === "Secret" ? Buffer.from(v, "base64") : Buffer.from(v, "utf8");
  for (const [k, v] of Object.entries(got.value.binaryData ?? {})) out[k] = Buffer.from(v, "base64");
  return out;
}

function writeItems(
  dir: string,
  data: Record<string, Buffer>,
  items: KeyToPath[] | undefined,
  mode: number,
): void {
  const entries = items === undefined ? Object.keys(data).map((key) => ({ key, path: key })) : items;
  for (const item of entries) {
    const value = data[item.key];
    if (value === undefined) continue;
    const file = join(dir, item.path);
    mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
    writeFileSync(file, value);
    chmodSync(file, "mode" in item && typeof item.mode === "number" ? item.mode : mode);
  }
}

async function writeToken(ctx: VolumeContext, token: TokenFile): Promise<void> {
  const meta = ctx.pod.metadata;
  const issued = await requestServiceAccountToken(ctx.access, {
    namespace: meta.namespace ?? "default",
    serviceAccount: ctx.pod.spec.serviceAccountName ?? "default",
    pod: { name: meta.name, uid: meta.uid ?? "" },
    expirationSeconds: token.expirationSeconds,
    audiences: token.audiences,
  });
  writeFileSync(`${token.file}.tmp`, issued.token, { mode: 0o644 });
  renameSync(`${token.file}.tmp`, token.file);
}

async function setUpVolume(
  ctx: VolumeContext,
  volume: Volume,
  dir: string,
  tokens: TokenFile[],
): Promise<void> {
  const namespace = ctx.pod.metadata.namespace ?? "default";
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  if (volume.emptyDir !== undefined) {
    chmodSync(dir, 0o777);
    return;
  }
  if (volume.secret !== undefined) {
    const s = volume.secret;
    const data = await readData(
      ctx.client,
      "Secret",
      namespace,
      s.secretName,
      s.optional === true,
      volume.name,
    );
    writeItems(dir, data ?? {}, s.items, s.defaultMode ?? 0o644);
    return;
  }
  if (volume.configMap !== undefined) {
    const c = volume.configMap;
    const data = await readData(ctx.client, "ConfigMap", namespace, c.name, c.optional === true, volume.name);
    writeItems(dir, data ?? {}, c.items, c.defaultMode ?? 0o644);
    return;
  }
  if (volume.projected !== undefined) {
    const mode = volume.projected.defaultMode ?? 0o644;
    for (const source of volume.projected.sources) {
      if (source.serviceAccountToken !== undefined) {
        const t = source.serviceAccountToken;
        const audience = t.audience ?? "";
        tokens.push({
          file: join(dir, t.path),
          audiences: audience === "" ? [] : [audience],
          expirationSeconds: t.expirationSeconds ?? 3600,
        });
      } else if (source.secret !== undefined) {
        const s = source.secret;
        const data = await readData(
          ctx.client,
          "Secret",
          namespace,
          s.name,
          s.optional === true,
          volume.name,
        );
        writeItems(dir, data ?? {}, s.items, mode);
      } else if (source.configMap !== undefined) {
        const c = source.configMap;
        const rootCa = c.name === ROOT_CA_CONFIGMAP;
        const data =
          (await readData(
            ctx.client,
            "ConfigMap",
            namespace,
            c.name,
            c.optional === true || rootCa,
            volume.name,
          )) ?? (rootCa ? { "ca.crt": Buffer.from(ctx.access.caCertPem) } : undefined);
        writeItems(dir, data ?? {}, c.items, mode);
      } else if (source.downwardAPI !== undefined) {
        for (const item of source.downwardAPI.items ?? []) {
          const path = item.fieldRef?.fieldPath;
          const value =
            path === "metadata.name" ? ctx.pod.metadata.name : path === "metadata.namespace" ? namespace : "";
          writeFileSync(join(dir, item.path), value, { mode });
        }
      }
    }
    return;
  }
  const kind = Object.keys(volume).find((k) => k !== "name") ?? "unknown";
  throw new Error(`volume "${volume.name}": ${kind} volumes are not supported by the test kubelet`);
}

/** Writes the Pod's volumes and its ServiceAccount token into `podDir`. */
export async function setUpVolumes(ctx: VolumeContext): Promise<PodVolumes> {
  const tokens: TokenFile[] = [];
  const dirs = new Map<string, string>();
  for (const volume of ctx.pod.spec.volumes ?? []) {
    const dir = join(ctx.podDir, "volumes", volume.name);
    await setUpVolume(ctx, volume, dir, tokens);
    dirs.set(volume.name, dir);
  }
  const automount = ctx.pod.spec.automountServiceAccountToken !== false;
  const saDir = join(ctx.podDir, "serviceaccount");
  if (automount) {
    mkdirSync(saDir, { recursive: true, mode: 0o755 });
    writeFileSync(join(saDir, "ca.crt"), ctx.access.caCertPem, { mode: 0o644 });
    writeFileSync(join(saDir, "namespace"), ctx.pod.metadata.namespace ?? "default", { mode: 0o644 });
    tokens.push({ file: join(saDir, "token"), audiences: [], expirationSeconds: 3607 });
  }
  for (const token of tokens) await writeToken(ctx, token);
  const timers = tokens.map((token) =>
    setInterval(() => {
      writeToken(ctx, token).catch(() => undefined);
    }, token.expirationSeconds * 800),
  );
  for (const timer of timers) timer.unref();

  return {
    mountsOf(container) {
      const mounts: Mount[] = [];
      for (const m of container.volumeMounts ?? []) {
        const dir = dirs.get(m.name);
        if (dir === undefined)
          throw new Error(`container ${container.name}: volumeMount "${m.name}" names no volume`);
        const volume = ctx.pod.spec.volumes?.find((v) => v.name === m.name);
        const alwaysReadOnly =
          volume?.secret !== undefined || volume?.configMap !== undefined || volume?.projected !== undefined;
        const hostPath = m.subPath === undefined || m.subPath === "" ? dir : join(dir, m.subPath);
        if (!existsSync(hostPath)) mkdirSync(hostPath, { recursive: true, mode: 0o777 });
        mounts.push({
          hostPath,
          containerPath: m.mountPath,
          readOnly: m.readOnly === true || alwaysReadOnly,
        });
      }
      const ownSaMount = mounts.some((m) => m.containerPath === SERVICE_ACCOUNT_DIR);
      if (automount && !ownSaMount)
        mounts.push({ hostPath: saDir, containerPath: SERVICE_ACCOUNT_DIR, readOnly: true });
      return mounts;
    },
    stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}

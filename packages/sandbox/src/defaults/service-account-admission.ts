/**
 * kube-apiserver's ServiceAccount admission plugin on Pod creation (it runs before the webhooks, so
 * they see its changes): `spec.serviceAccountName` defaults to `default`; unless the Pod or its
 * ServiceAccount sets `automountServiceAccountToken: false`, the projected token volume
 * `kube-api-access-<suffix>` is added and every container and init container that has nothing mounted
 * at `/var/run/secrets/kubernetes.io/serviceaccount` mounts it there read-only; a Pod without
 * `imagePullSecrets` gets its ServiceAccount's. Mirror Pods are left alone. A Pod whose ServiceAccount
 * does not exist is refused (the sandbox's ServiceAccounts controller creates each namespace's `default`).
 */
import type { JsonObject, JsonValue } from "@kyverno-ts/api";
import { asObject, asObjects, metadataOf } from "../objects/meta.js";

/** The token mount path of every Pod. */
export const SERVICE_ACCOUNT_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
const VOLUME_PREFIX = "kube-api-access-";
const MIRROR_ANNOTATION = "kubernetes.io/config.mirror";
/** `WarnOnlyBoundTokenExpirationSeconds` of kube-apiserver: the token lifetime the plugin asks for. */
const TOKEN_EXPIRATION_SECONDS = 3607;

/** What the plugin looks up. */
export interface ServiceAccountLookup {
  /** The ServiceAccount `namespace/name`, or `undefined` when it does not exist. */
  serviceAccount(namespace: string, name: string): JsonObject | undefined;
  /** Five random characters for the volume name. */
  nameSuffix(): string;
}

/** The projected volume the plugin adds (`defaultMode` 0644, as kube-apiserver sets it explicitly). */
export function tokenVolume(name: string): JsonObject {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        {
          downwardAPI: {
            items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
          },
        },
      ],
    },
  };
}

/**
 * Applies the plugin to a Pod being created (in place; `pod` is the request's own copy). Returns why the
 * Pod is refused (the text after `pods "<name>" is forbidden: `), or `undefined`.
 */
export function admitPodServiceAccount(
  pod: JsonObject,
  namespace: string,
  lookup: ServiceAccountLookup,
): string | undefined {
  const annotations = asObject(metadataOf(pod).annotations) ?? {};
  if (annotations[MIRROR_ANNOTATION] !== undefined) return undefined;
  const spec = asObject(pod.spec);
  if (spec === undefined) return undefined;
  if (typeof spec.serviceAccountName !== "string" || spec.serviceAccountName === "") {
    const deprecated = typeof spec.serviceAccount === "string" ? spec.serviceAccount : "";
    spec.serviceAccountName = deprecated !== "" ? deprecated : "default";
  }
  const name = spec.serviceAccountName as string;
  const serviceAccount = lookup.serviceAccount(namespace, name);
  if (serviceAccount === undefined)
    return `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`;
  if (shouldAutomount(spec, serviceAccount)) mountToken(spec, lookup);
  const pullSecrets = serviceAccount.imagePullSecrets;
  const own = spec.imagePullSecrets;
  if ((!Array.isArray(own) || own.length === 0) && Array.isArray(pullSecrets) && pullSecrets.length > 0)
    spec.imagePullSecrets = asObjects(pullSecrets).map((s) => ({ name: s.name ?? "" }));
  return undefined;
}

function shouldAutomount(spec: JsonObject, serviceAccount: JsonObject): boolean {
  if (typeof spec.automountServiceAccountToken === "boolean") return spec.automountServiceAccountToken;
  return serviceAccount.automountServiceAccountToken !== false;
}

function mountToken(spec: JsonObject, lookup: ServiceAccountLookup): void {
  const volumes = asObjects(spec.volumes);
  const existing = volumes.find((v) => typeof v.name === "string" && v.name.startsWith(VOLUME_PREFIX));
  const volumeName = (existing?.name as string | undefined) ?? `${VOLUME_PREFIX}${lookup.nameSuffix()}`;
  let needsVolume = false;
  for (const field of ["initContainers", "containers"]) {
    for (const container of asObjects(spec[field])) {
      const mounts = asObjects(container.volumeMounts);
      if (mounts.some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH)) continue;
      const mount: JsonValue = { name: volumeName, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH };
      container.volumeMounts = [...mounts, mount];
      needsVolume = true;
    }
  }
  if (existing === undefined && needsVolume) spec.volumes = [...volumes, tokenVolume(volumeName)];
}

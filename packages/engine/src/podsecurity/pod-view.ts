import type { JsonValue } from "@kyverno-ts/api";
import type { PssContainerKind, PssContainerRef } from "./types.js";

/** `seLinuxOptions` with Go's zero values for missing strings. */
export interface SeLinuxView {
  type: string;
  user: string;
  role: string;
}

/**
 * The security-context fields the checks read, with Go's pointer semantics: `undefined` is a nil
 * pointer (missing or `null`), an object present with missing fields keeps Go's zero values.
 */
export interface SecurityContextView {
  privileged: boolean | undefined;
  allowPrivilegeEscalation: boolean | undefined;
  runAsNonRoot: boolean | undefined;
  runAsUser: number | undefined;
  procMount: string | undefined;
  capabilities: { add: string[]; drop: string[] } | undefined;
  /** `seccompProfile.type`; `""` when `seccompProfile` is set without a type. */
  seccompType: string | undefined;
  /** `appArmorProfile.type`; `""` when `appArmorProfile` is set without a type. */
  appArmorType: string | undefined;
  seLinux: SeLinuxView | undefined;
  hostProcess: boolean | undefined;
}

/** The pod-level security context: the shared fields plus `sysctls` names. */
export interface PodSecurityContextView extends SecurityContextView {
  sysctls: string[];
}

/** A container of any kind, in upstream's visiting order (init, regular, ephemeral). */
export interface ContainerView extends PssContainerRef {
  /** Position in its list (`containers[2]`), for field paths in messages. */
  index: number;
  /** Non-zero `ports[*].hostPort` values. */
  hostPorts: number[];
  securityContext: SecurityContextView | undefined;
}

/** A volume: its name, the sources set to a non-null value, and the hostPath path if any. */
export interface VolumeView {
  /** Position in `spec.volumes`, for field paths in messages. */
  index: number;
  name: string;
  sources: ReadonlySet<string>;
  hostPath: string | undefined;
}

/** The parts of a pod that the Pod Security Standards read, typed once from JSON. */
export interface PodView {
  annotations: ReadonlyArray<readonly [string, string]>;
  hostNetwork: boolean;
  hostPID: boolean;
  hostIPC: boolean;
  /** `spec.os.name`, e.g. `windows`. */
  osName: string | undefined;
  securityContext: PodSecurityContextView | undefined;
  containers: ContainerView[];
  volumes: VolumeView[];
}

type JsonMap = { [key: string]: JsonValue };

const CONTAINER_KINDS: readonly PssContainerKind[] = ["initContainers", "containers", "ephemeralContainers"];

/** Reads the pod metadata and spec into a `PodView`; values of the wrong JSON type count as unset. */
export function readPod(podMetadata: JsonValue, podSpec: JsonValue): PodView {
  const meta = asMap(podMetadata) ?? {};
  const spec = asMap(podSpec) ?? {};
  const annotations: Array<readonly [string, string]> = [];
  for (const [key, value] of Object.entries(asMap(meta.annotations) ?? {})) {
    if (typeof value === "string") annotations.push([key, value]);
  }
  const podContext = asMap(spec.securityContext);
  return {
    annotations,
    hostNetwork: spec.hostNetwork === true,
    hostPID: spec.hostPID === true,
    hostIPC: spec.hostIPC === true,
    osName: str(asMap(spec.os)?.name),
    securityContext: podContext === undefined ? undefined : readPodContext(podContext),
    containers: CONTAINER_KINDS.flatMap((kind) =>
      asList(spec[kind]).flatMap((c, i) => readContainer(c, kind, i)),
    ),
    volumes: asList(spec.volumes).flatMap((v, i) => readVolume(v, i)),
  };
}

function readPodContext(ctx: JsonMap): PodSecurityContextView {
  const sysctls = asList(ctx.sysctls).flatMap((s) => {
    const name = asMap(s)?.name;
    return [typeof name === "string" ? name : ""];
  });
  return { ...readContext(ctx), sysctls };
}

function readContext(ctx: JsonMap): SecurityContextView {
  const caps = asMap(ctx.capabilities);
  const seLinux = asMap(ctx.seLinuxOptions);
  const seccomp = asMap(ctx.seccompProfile);
  const appArmor = asMap(ctx.appArmorProfile);
  return {
    privileged: bool(ctx.privileged),
    allowPrivilegeEscalation: bool(ctx.allowPrivilegeEscalation),
    runAsNonRoot: bool(ctx.runAsNonRoot),
    runAsUser: typeof ctx.runAsUser === "number" ? ctx.runAsUser : undefined,
    procMount: str(ctx.procMount),
    capabilities: caps === undefined ? undefined : { add: strings(caps.add), drop: strings(caps.drop) },
    seccompType: seccomp === undefined ? undefined : (str(seccomp.type) ?? ""),
    appArmorType: appArmor === undefined ? undefined : (str(appArmor.type) ?? ""),
    seLinux:
      seLinux === undefined
        ? undefined
        : { type: str(seLinux.type) ?? "", user: str(seLinux.user) ?? "", role: str(seLinux.role) ?? "" },
    hostProcess: bool(asMap(ctx.windowsOptions)?.hostProcess),
  };
}

function readContainer(value: JsonValue, kind: PssContainerKind, index: number): ContainerView[] {
  const c = asMap(value);
  if (c === undefined) return [];
  const ctx = asMap(c.securityContext);
  const hostPorts = asList(c.ports).flatMap((p) => {
    const port = asMap(p)?.hostPort;
    return typeof port === "number" && port !== 0 ? [port] : [];
  });
  return [
    {
      name: str(c.name) ?? "",
      image: str(c.image) ?? "",
      kind,
      index,
      hostPorts,
      securityContext: ctx === undefined ? undefined : readContext(ctx),
    },
  ];
}

function readVolume(value: JsonValue, index: number): VolumeView[] {
  const v = asMap(value);
  if (v === undefined) return [];
  const sources = new Set<string>();
  for (const [key, source] of Object.entries(v)) {
    if (key !== "name" && source !== null && typeof source === "object" && !Array.isArray(source)) {
      sources.add(key);
    }
  }
  const hostPath = asMap(v.hostPath);
  return [
    {
      index,
      name: str(v.name) ?? "",
      sources,
      hostPath: hostPath === undefined ? undefined : (str(hostPath.path) ?? ""),
    },
  ];
}

/** The container reference carried by findings (without the check-only fields). */
export function containerRef(c: ContainerView): PssContainerRef {
  return { name: c.name, image: c.image, kind: c.kind };
}

function asMap(v: JsonValue | undefined): JsonMap | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined;
}

function asList(v: JsonValue | undefined): JsonValue[] {
  return Array.isArray(v) ? v : [];
}

function str(v: JsonValue | undefined): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function bool(v: JsonValue | undefined): boolean | undefined {
  return typeof v === "boolean" ? v : undefined;
}

function strings(v: JsonValue | undefined): string[] {
  return asList(v).flatMap((s) => (typeof s === "string" ? [s] : []));
}

/**
 * Baseline checks on host access and container privileges: host namespaces, hostPath volumes, host
 * ports, privileged containers, /proc mount, sysctls and Windows HostProcess (upstream
 * `check_hostNamespaces.go`, `check_hostPathVolumes.go`, `check_hostPorts.go`, `check_privileged.go`,
 * `check_procMount.go`, `check_sysctls.go`, `check_windowsHostProcess.go`).
 */

import type { CheckDefinition } from "./check-definition.js";
import {
  containerFinding,
  containersPhrase,
  joinQuote,
  pluralize,
  podFinding,
  sortedSet,
  volumeFinding,
} from "./format.js";
import type { PodView } from "./pod-view.js";
import type { CheckOutcome, PssFinding } from "./types.js";

/** `spec.hostNetwork`, `spec.hostPID`, `spec.hostIPC` must be unset or false. */
export const hostNamespacesCheck: CheckDefinition = {
  id: "hostNamespaces",
  controlName: "Host Namespaces",
  level: "baseline",
  versions: [{ minMinor: 0, run: hostNamespaces }],
};

function hostNamespaces(pod: PodView): CheckOutcome | undefined {
  const set = (["hostNetwork", "hostPID", "hostIPC"] as const).filter((field) => pod[field]);
  if (set.length === 0) return undefined;
  return {
    forbiddenReason: "host namespaces",
    forbiddenDetail: set.map((field) => `${field}=true`).join(", "),
    findings: set.map((field) => podFinding(`spec.${field}`, ["true"])),
  };
}

/** No volume may use `hostPath`; a finding's value is the host path. */
export const hostPathVolumesCheck: CheckDefinition = {
  id: "hostPathVolumes",
  controlName: "HostPath Volumes",
  level: "baseline",
  versions: [{ minMinor: 0, run: hostPathVolumes }],
};

function hostPathVolumes(pod: PodView): CheckOutcome | undefined {
  const bad = pod.volumes.filter((v) => v.hostPath !== undefined);
  if (bad.length === 0) return undefined;
  return {
    forbiddenReason: "hostPath volumes",
    forbiddenDetail: `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad.map((v) => v.name))}`,
    findings: bad.map((v) => volumeFinding(v, ".hostPath", [v.hostPath ?? ""])),
  };
}

/** Containers must not set a non-zero `ports[*].hostPort`. */
export const hostPortsCheck: CheckDefinition = {
  id: "hostPorts",
  controlName: "Host Ports",
  level: "baseline",
  versions: [{ minMinor: 0, run: hostPorts }],
};

function hostPorts(pod: PodView): CheckOutcome | undefined {
  const bad = pod.containers.filter((c) => c.hostPorts.length > 0);
  if (bad.length === 0) return undefined;
  const ports = sortedSet(bad.flatMap((c) => c.hostPorts.map(String)));
  return {
    forbiddenReason: "hostPort",
    forbiddenDetail: `${containersPhrase(bad.map((c) => c.name))} ${pluralize("uses", "use", bad.length)} ${pluralize("hostPort", "hostPorts", ports.length)} ${ports.join(", ")}`,
    findings: bad.map((c) => containerFinding(c, "ports[*].hostPort", c.hostPorts.map(String))),
  };
}

/** Containers must not set `securityContext.privileged=true`. */
export const privilegedCheck: CheckDefinition = {
  id: "privileged",
  controlName: "Privileged Containers",
  level: "baseline",
  versions: [{ minMinor: 0, run: privileged }],
};

function privileged(pod: PodView): CheckOutcome | undefined {
  const bad = pod.containers.filter((c) => c.securityContext?.privileged === true);
  if (bad.length === 0) return undefined;
  return {
    forbiddenReason: "privileged",
    forbiddenDetail: `${containersPhrase(bad.map((c) => c.name))} must not set securityContext.privileged=true`,
    findings: bad.map((c) => containerFinding(c, "securityContext.privileged", ["true"])),
  };
}

/**
 * `securityContext.procMount` must be unset or `Default`. Upstream relaxes this for user-namespaced
 * pods only behind the UserNamespacesPodSecurityStandards feature gate, which Kyverno does not enable.
 */
export const procMountCheck: CheckDefinition = {
  id: "procMount",
  controlName: "/proc Mount Type",
  level: "baseline",
  versions: [{ minMinor: 0, run: procMount }],
};

function procMount(pod: PodView): CheckOutcome | undefined {
  const bad = pod.containers.flatMap((c) => {
    const mount = c.securityContext?.procMount;
    return mount !== undefined && mount !== "Default" ? [{ c, mount }] : [];
  });
  if (bad.length === 0) return undefined;
  return {
    forbiddenReason: "procMount",
    forbiddenDetail: `${containersPhrase(bad.map((b) => b.c.name))} must not set securityContext.procMount to ${joinQuote(sortedSet(bad.map((b) => b.mount)))}`,
    findings: bad.map((b) => containerFinding(b.c, "securityContext.procMount", [b.mount])),
  };
}

const SAFE_SYSCTLS_1_0: readonly string[] = [
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_unprivileged_port_start",
];
const SAFE_SYSCTLS_1_27: readonly string[] = [...SAFE_SYSCTLS_1_0, "net.ipv4.ip_local_reserved_ports"];
const SAFE_SYSCTLS_1_29: readonly string[] = [
  ...SAFE_SYSCTLS_1_27,
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
];
const SAFE_SYSCTLS_1_32: readonly string[] = [...SAFE_SYSCTLS_1_29, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"];

/** `spec.securityContext.sysctls[*].name` must be in the safe set of the version (grown in 1.27, 1.29, 1.32). */
export const sysctlsCheck: CheckDefinition = {
  id: "sysctls",
  controlName: "Sysctls",
  level: "baseline",
  versions: [
    { minMinor: 0, run: sysctlsWith(new Set(SAFE_SYSCTLS_1_0)) },
    { minMinor: 27, run: sysctlsWith(new Set(SAFE_SYSCTLS_1_27)) },
    { minMinor: 29, run: sysctlsWith(new Set(SAFE_SYSCTLS_1_29)) },
    { minMinor: 32, run: sysctlsWith(new Set(SAFE_SYSCTLS_1_32)) },
  ],
};

function sysctlsWith(allowed: ReadonlySet<string>): (pod: PodView) => CheckOutcome | undefined {
  return (pod) => {
    const forbidden = (pod.securityContext?.sysctls ?? []).filter((name) => !allowed.has(name));
    if (forbidden.length === 0) return undefined;
    return {
      forbiddenReason: "forbidden sysctls",
      forbiddenDetail: forbidden.join(", "),
      findings: [podFinding("spec.securityContext.sysctls[*].name", forbidden)],
    };
  };
}

/** Neither the pod nor a container may set `securityContext.windowsOptions.hostProcess=true`. */
export const windowsHostProcessCheck: CheckDefinition = {
  id: "windowsHostProcess",
  controlName: "HostProcess",
  level: "baseline",
  versions: [{ minMinor: 0, run: windowsHostProcess }],
};

function windowsHostProcess(pod: PodView): CheckOutcome | undefined {
  const field = "securityContext.windowsOptions.hostProcess";
  const findings: PssFinding[] = [];
  const setters: string[] = [];
  if (pod.securityContext?.hostProcess === true) {
    setters.push("pod");
    findings.push(podFinding(`spec.${field}`, ["true"]));
  }
  const bad = pod.containers.filter((c) => c.securityContext?.hostProcess === true);
  if (bad.length > 0) {
    setters.push(containersPhrase(bad.map((c) => c.name)));
    findings.push(...bad.map((c) => containerFinding(c, field, ["true"])));
  }
  if (setters.length === 0) return undefined;
  return {
    forbiddenReason: "hostProcess",
    forbiddenDetail: `${setters.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true`,
    findings,
  };
}

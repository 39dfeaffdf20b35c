/**
 * Checks on what a container may do as a process: capabilities (baseline and restricted), privilege
 * escalation, non-root, and the restricted volume types (upstream `check_capabilities_baseline.go`,
 * `check_capabilities_restricted.go`, `check_allowPrivilegeEscalation.go`, `check_runAsNonRoot.go`,
 * `check_runAsUser.go`, `check_restrictedVolumes.go`).
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
import type { ContainerView, PodView } from "./pod-view.js";
import type { CheckOutcome, PssFinding } from "./types.js";

/** From 1.25 upstream exempts Windows pods from the restricted checks that Windows cannot honour. */
function exemptWindows(
  run: (pod: PodView) => CheckOutcome | undefined,
): (pod: PodView) => CheckOutcome | undefined {
  return (pod) => (pod.osName === "windows" ? undefined : run(pod));
}

/** Containers must set `securityContext.allowPrivilegeEscalation=false` (Windows pods exempt from 1.25). */
export const allowPrivilegeEscalationCheck: CheckDefinition = {
  id: "allowPrivilegeEscalation",
  controlName: "Privilege Escalation",
  level: "restricted",
  versions: [
    { minMinor: 8, run: allowPrivilegeEscalation },
    { minMinor: 25, run: exemptWindows(allowPrivilegeEscalation) },
  ],
};

function allowPrivilegeEscalation(pod: PodView): CheckOutcome | undefined {
  const bad = pod.containers.filter((c) => c.securityContext?.allowPrivilegeEscalation !== false);
  if (bad.length === 0) return undefined;
  return {
    forbiddenReason: "allowPrivilegeEscalation != false",
    forbiddenDetail: `${containersPhrase(bad.map((c) => c.name))} must set securityContext.allowPrivilegeEscalation=false`,
    findings: bad.map((c) =>
      containerFinding(
        c,
        "securityContext.allowPrivilegeEscalation",
        c.securityContext?.allowPrivilegeEscalation === true ? ["true"] : [],
      ),
    ),
  };
}

const DEFAULT_CAPABILITIES: ReadonlySet<string> = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

/** `capabilities.add` may only hold the container runtime's default capabilities. */
export const capabilitiesBaselineCheck: CheckDefinition = {
  id: "capabilities_baseline",
  controlName: "Capabilities",
  level: "baseline",
  versions: [{ minMinor: 0, run: capabilitiesBaseline }],
};

function capabilitiesBaseline(pod: PodView): CheckOutcome | undefined {
  const bad = forbiddenAdds(pod.containers, (cap) => DEFAULT_CAPABILITIES.has(cap));
  if (bad.length === 0) return undefined;
  return {
    forbiddenReason: "non-default capabilities",
    forbiddenDetail: `${containersPhrase(bad.map((b) => b.c.name))} must not include ${joinQuote(sortedSet(bad.flatMap((b) => b.caps)))} in securityContext.capabilities.add`,
    findings: bad.map((b) => containerFinding(b.c, "securityContext.capabilities.add", b.caps)),
  };
}

/** Containers adding a capability that `allowed` rejects, with those capabilities (distinct, in order). */
function forbiddenAdds(
  containers: readonly ContainerView[],
  allowed: (cap: string) => boolean,
): Array<{ c: ContainerView; caps: string[] }> {
  return containers.flatMap((c) => {
    const caps = [...new Set((c.securityContext?.capabilities?.add ?? []).filter((cap) => !allowed(cap)))];
    return caps.length > 0 ? [{ c, caps }] : [];
  });
}

/**
 * Containers must drop `ALL` and may add only `NET_BIND_SERVICE` (from 1.22; Windows pods exempt from
 * 1.25). A missing drop is a finding on `capabilities.drop` whose values are the container's drops.
 */
export const capabilitiesRestrictedCheck: CheckDefinition = {
  id: "capabilities_restricted",
  controlName: "Capabilities",
  level: "restricted",
  versions: [
    { minMinor: 22, run: capabilitiesRestricted },
    { minMinor: 25, run: exemptWindows(capabilitiesRestricted) },
  ],
};

function capabilitiesRestricted(pod: PodView): CheckOutcome | undefined {
  const missingDrop = pod.containers.filter((c) => !c.securityContext?.capabilities?.drop.includes("ALL"));
  const adding = forbiddenAdds(pod.containers, (cap) => cap === "NET_BIND_SERVICE");
  const details: string[] = [];
  if (missingDrop.length > 0) {
    details.push(
      `${containersPhrase(missingDrop.map((c) => c.name))} must set securityContext.capabilities.drop=["ALL"]`,
    );
  }
  if (adding.length > 0) {
    details.push(
      `${containersPhrase(adding.map((b) => b.c.name))} must not include ${joinQuote(sortedSet(adding.flatMap((b) => b.caps)))} in securityContext.capabilities.add`,
    );
  }
  if (details.length === 0) return undefined;
  return {
    forbiddenReason: "unrestricted capabilities",
    forbiddenDetail: details.join("; "),
    findings: [
      ...missingDrop.map((c) =>
        containerFinding(c, "securityContext.capabilities.drop", c.securityContext?.capabilities?.drop ?? []),
      ),
      ...adding.map((b) => containerFinding(b.c, "securityContext.capabilities.add", b.caps)),
    ],
  };
}

/**
 * The pod or each container must set `runAsNonRoot=true`; an explicit `false` anywhere fails. A container
 * relying on an unset pod-level value is a container-level finding (value `"false"` when the pod set it so).
 * Upstream's user-namespace relaxation sits behind a feature gate Kyverno does not enable.
 */
export const runAsNonRootCheck: CheckDefinition = {
  id: "runAsNonRoot",
  controlName: "Running as Non-root",
  level: "restricted",
  versions: [{ minMinor: 0, run: runAsNonRoot }],
};

function runAsNonRoot(pod: PodView): CheckOutcome | undefined {
  const field = "securityContext.runAsNonRoot";
  const podValue = pod.securityContext?.runAsNonRoot;
  const setters: string[] = [];
  const findings: PssFinding[] = [];
  if (podValue === false) {
    setters.push("pod");
    findings.push(podFinding(`spec.${field}`, ["false"]));
  }
  const explicit = pod.containers.filter((c) => c.securityContext?.runAsNonRoot === false);
  const implicit =
    podValue === true ? [] : pod.containers.filter((c) => c.securityContext?.runAsNonRoot === undefined);
  if (explicit.length > 0) setters.push(containersPhrase(explicit.map((c) => c.name)));
  findings.push(...explicit.map((c) => containerFinding(c, field, ["false"])));
  findings.push(...implicit.map((c) => containerFinding(c, field, podValue === false ? ["false"] : [])));
  if (setters.length > 0) {
    return {
      forbiddenReason: "runAsNonRoot != true",
      forbiddenDetail: `${setters.join(" and ")} must not set securityContext.runAsNonRoot=false`,
      findings,
    };
  }
  if (implicit.length === 0) return undefined;
  return {
    forbiddenReason: "runAsNonRoot != true",
    forbiddenDetail: `pod or ${containersPhrase(implicit.map((c) => c.name))} must set securityContext.runAsNonRoot=true`,
    findings,
  };
}

/** Neither the pod nor a container may set `runAsUser: 0` (from 1.23). */
export const runAsUserCheck: CheckDefinition = {
  id: "runAsUser",
  controlName: "Running as Non-root user",
  level: "restricted",
  versions: [{ minMinor: 23, run: runAsUser }],
};

function runAsUser(pod: PodView): CheckOutcome | undefined {
  const setters: string[] = [];
  const findings: PssFinding[] = [];
  if (pod.securityContext?.runAsUser === 0) {
    setters.push("pod");
    findings.push(podFinding("spec.securityContext.runAsUser", ["0"]));
  }
  const bad = pod.containers.filter((c) => c.securityContext?.runAsUser === 0);
  if (bad.length > 0) setters.push(containersPhrase(bad.map((c) => c.name)));
  findings.push(...bad.map((c) => containerFinding(c, "securityContext.runAsUser", ["0"])));
  if (setters.length === 0) return undefined;
  return {
    forbiddenReason: "runAsUser=0",
    forbiddenDetail: `${setters.join(" and ")} must not set runAsUser=0`,
    findings,
  };
}

const ALLOWED_VOLUME_SOURCES: readonly string[] = [
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
];

/** Upstream's known restricted sources, in the order its type switch names them. */
const RESTRICTED_VOLUME_SOURCES: readonly string[] = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "nfs",
  "iscsi",
  "glusterfs",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "fc",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "storageos",
];

/**
 * Volumes may only use configMap, csi, downwardAPI, emptyDir, ephemeral, persistentVolumeClaim,
 * projected or secret. Any other source (or none) is restricted; an unlisted one is reported as type
 * `unknown` on field `spec.volumes[*]`. Finding values: the hostPath path, else the volume name.
 */
export const restrictedVolumesCheck: CheckDefinition = {
  id: "restrictedVolumes",
  controlName: "Volume Types",
  level: "restricted",
  versions: [{ minMinor: 0, run: restrictedVolumes }],
};

function restrictedVolumes(pod: PodView): CheckOutcome | undefined {
  const bad = pod.volumes.flatMap((v) => {
    if (ALLOWED_VOLUME_SOURCES.some((s) => v.sources.has(s))) return [];
    const type = RESTRICTED_VOLUME_SOURCES.find((s) => v.sources.has(s)) ?? "unknown";
    return [{ v, type }];
  });
  if (bad.length === 0) return undefined;
  const types = sortedSet(bad.map((b) => b.type));
  return {
    forbiddenReason: "restricted volume types",
    forbiddenDetail: `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad.map((b) => b.v.name))} ${pluralize("uses", "use", bad.length)} ${pluralize("restricted volume type", "restricted volume types", types.length)} ${joinQuote(types)}`,
    findings: bad.map(({ v, type }) =>
      type === "unknown"
        ? volumeFinding(v, "", [v.name])
        : volumeFinding(v, `.${type}`, [type === "hostPath" ? (v.hostPath ?? "") : v.name]),
    ),
  };
}

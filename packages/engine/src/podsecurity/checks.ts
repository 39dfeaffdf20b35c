import type { CheckDefinition, VersionedCheck } from "./check-definition.js";
import {
  hostNamespacesCheck,
  hostPathVolumesCheck,
  hostPortsCheck,
  privilegedCheck,
  procMountCheck,
  sysctlsCheck,
  windowsHostProcessCheck,
} from "./checks-host.js";
import {
  appArmorProfileCheck,
  seccompProfileBaselineCheck,
  seccompProfileRestrictedCheck,
  seLinuxOptionsCheck,
} from "./checks-profiles.js";
import {
  allowPrivilegeEscalationCheck,
  capabilitiesBaselineCheck,
  capabilitiesRestrictedCheck,
  restrictedVolumesCheck,
  runAsNonRootCheck,
  runAsUserCheck,
} from "./checks-restricted.js";

/**
 * Every Pod Security Standards check, in upstream's registration order (the order of its
 * `check_*.go` files), which is the order failures are reported in.
 */
export const CHECKS: readonly CheckDefinition[] = [
  allowPrivilegeEscalationCheck,
  appArmorProfileCheck,
  capabilitiesBaselineCheck,
  capabilitiesRestrictedCheck,
  hostNamespacesCheck,
  hostPathVolumesCheck,
  hostPortsCheck,
  privilegedCheck,
  procMountCheck,
  restrictedVolumesCheck,
  runAsNonRootCheck,
  runAsUserCheck,
  seLinuxOptionsCheck,
  seccompProfileBaselineCheck,
  seccompProfileRestrictedCheck,
  sysctlsCheck,
  windowsHostProcessCheck,
];

/** Kyverno's extra control names that alias a check (`procMount`, `privileged`). */
const CONTROL_ALIASES: ReadonlyArray<readonly [string, string]> = [
  ["procMount", "procMount"],
  ["privileged", "privileged"],
];

/** `exclude.controlName` → the IDs of the checks it exempts, as Kyverno maps them. */
export const CONTROL_CHECK_IDS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const check of CHECKS) map.set(check.controlName, [...(map.get(check.controlName) ?? []), check.id]);
  for (const [alias, id] of CONTROL_ALIASES) map.set(alias, [id]);
  return map;
})();

/**
 * The implementation of `check` in force at Kubernetes `v1.<minor>`: the one with the highest minimum
 * version not above it, or undefined when the check did not exist yet.
 */
export function checkAt(check: CheckDefinition, minor: number): VersionedCheck | undefined {
  let chosen: VersionedCheck | undefined;
  for (const v of check.versions) {
    if (v.minMinor <= minor && (chosen === undefined || v.minMinor >= chosen.minMinor)) chosen = v;
  }
  return chosen;
}

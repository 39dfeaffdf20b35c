import { describe, expect, it } from "vitest";
import { CHECKS, CONTROL_CHECK_IDS, checkAt } from "./checks.js";
import { sysctlsCheck } from "./checks-host.js";
import { capabilitiesRestrictedCheck } from "./checks-restricted.js";

/** The `exclude.controlName` enum of Kyverno's ClusterPolicy CRD. */
const CRD_CONTROL_NAMES = [
  "HostProcess",
  "Host Namespaces",
  "Privileged Containers",
  "Capabilities",
  "HostPath Volumes",
  "Host Ports",
  "AppArmor",
  "SELinux",
  "/proc Mount Type",
  "Seccomp",
  "Sysctls",
  "Volume Types",
  "Privilege Escalation",
  "Running as Non-root",
  "Running as Non-root user",
];

describe("check registry", () => {
  it("lists the checks in upstream's file order (check_<id>.go, bytewise)", () => {
    const ids = CHECKS.map((c) => c.id);
    const byFile = [...ids].sort((a, b) =>
      Buffer.from(`check_${a}.go`) < Buffer.from(`check_${b}.go`) ? -1 : 1,
    );
    expect(ids).toEqual(byFile);
    expect(new Set(ids).size).toBe(17);
  });

  it("maps every CRD control name, and nothing else but Kyverno's two aliases", () => {
    expect([...CONTROL_CHECK_IDS.keys()].sort()).toEqual(
      [...CRD_CONTROL_NAMES, "privileged", "procMount"].sort(),
    );
    expect(CONTROL_CHECK_IDS.get("Capabilities")).toEqual([
      "capabilities_baseline",
      "capabilities_restricted",
    ]);
    expect(CONTROL_CHECK_IDS.get("Seccomp")).toEqual([
      "seccompProfile_baseline",
      "seccompProfile_restricted",
    ]);
  });

  it("picks the newest implementation not above the version", () => {
    const minOf = (minor: number) => checkAt(sysctlsCheck, minor)?.minMinor;
    expect([0, 26, 27, 28, 29, 31, 32, 40, Infinity].map(minOf)).toEqual([0, 0, 27, 27, 29, 29, 32, 32, 32]);
    expect(checkAt(capabilitiesRestrictedCheck, 21)).toBeUndefined();
    expect(checkAt(capabilitiesRestrictedCheck, 22)?.minMinor).toBe(22);
  });
});

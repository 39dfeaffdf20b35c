/**
 * Checks on security profiles set at pod and container level: AppArmor, SELinux and seccomp (upstream
 * `check_appArmorProfile.go`, `check_seLinuxOptions.go`, `check_seccompProfile_baseline.go`,
 * `check_seccompProfile_restricted.go`).
 */

import type { CheckDefinition } from "./check-definition.js";
import {
  containerFinding,
  containersPhrase,
  goQuote,
  joinQuote,
  pluralize,
  podFinding,
  sortedSet,
} from "./format.js";
import { type ContainerView, containerRef, type PodView, type SeLinuxView } from "./pod-view.js";
import type { CheckOutcome, PssFinding } from "./types.js";

const APPARMOR_ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/";
const APPARMOR_ANNOTATION_FIELD = `metadata.annotations["${APPARMOR_ANNOTATION_PREFIX}*"]`;

/**
 * AppArmor: the beta container annotations may only name `runtime/default` or `localhost/*` (all
 * versions); from 1.30 the `appArmorProfile.type` fields may only be `RuntimeDefault` or `Localhost`.
 * Annotation findings are pod-level (a metadata control, as Kyverno treats it).
 */
export const appArmorProfileCheck: CheckDefinition = {
  id: "appArmorProfile",
  controlName: "AppArmor",
  level: "baseline",
  versions: [
    { minMinor: 0, run: appArmorAnnotations },
    { minMinor: 30, run: appArmorProfile_1_30 },
  ],
};

function appArmorAnnotations(pod: PodView): CheckOutcome | undefined {
  const bad = pod.annotations.filter(
    ([key, value]) =>
      key.startsWith(APPARMOR_ANNOTATION_PREFIX) &&
      !(value === "" || value === "runtime/default" || value.startsWith("localhost/")),
  );
  if (bad.length === 0) return undefined;
  const forbidden = bad.map(([key, value]) => `${key}=${goQuote(value)}`).sort();
  return {
    forbiddenReason: pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", forbidden.length),
    forbiddenDetail: forbidden.join(", "),
    findings: bad.map(([, value]) => podFinding(APPARMOR_ANNOTATION_FIELD, [value])),
  };
}

function appArmorProfile_1_30(pod: PodView): CheckOutcome | undefined {
  const annotations = appArmorAnnotations(pod);
  const fields = explicitProfileFields(pod, "appArmorProfile", (c) => c?.appArmorType, allowedAppArmorType);
  if (annotations !== undefined) {
    // Upstream reports the annotations only; the field findings still need their own exclusions.
    return { ...annotations, findings: [...annotations.findings, ...fields.findings] };
  }
  if (fields.setters.length === 0) return undefined;
  return {
    forbiddenReason: pluralize(
      "forbidden AppArmor profile type",
      "forbidden AppArmor profile types",
      fields.badValues.length,
    ),
    forbiddenDetail: `${fields.setters.join(" and ")} must not set securityContext.appArmorProfile.type to ${joinQuote(fields.badValues)}`,
    findings: fields.findings,
  };
}

function allowedAppArmorType(type: string): boolean {
  return type === "RuntimeDefault" || type === "Localhost";
}

function validSeccomp(type: string): boolean {
  return type === "RuntimeDefault" || type === "Localhost";
}

interface ExplicitSetters {
  /** `pod` and/or `container(s) "a", …`, as upstream lists who set a bad value. */
  setters: string[];
  badValues: string[];
  findings: PssFinding[];
}

/** Pod and containers that explicitly set `<profile>.type` to a value `allowed` rejects. */
function explicitProfileFields(
  pod: PodView,
  profile: string,
  read: (ctx: ContainerView["securityContext"]) => string | undefined,
  allowed: (type: string) => boolean,
): ExplicitSetters {
  const setters: string[] = [];
  const values: string[] = [];
  const findings: PssFinding[] = [];
  const podType = read(pod.securityContext);
  if (podType !== undefined && !allowed(podType)) {
    setters.push("pod");
    values.push(podType);
    findings.push(podFinding(`spec.securityContext.${profile}.type`, [podType]));
  }
  const bad: string[] = [];
  for (const c of pod.containers) {
    const type = read(c.securityContext);
    if (type === undefined || allowed(type)) continue;
    bad.push(c.name);
    values.push(type);
    findings.push(containerFinding(c, `securityContext.${profile}.type`, [type]));
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return { setters, badValues: sortedSet(values), findings };
}

const SELINUX_TYPES_1_0: readonly string[] = ["", "container_t", "container_init_t", "container_kvm_t"];
const SELINUX_TYPES_1_31: readonly string[] = [...SELINUX_TYPES_1_0, "container_engine_t"];

/**
 * SELinux: `seLinuxOptions.type` must be empty or a container type (`container_engine_t` allowed from
 * 1.31); `user` and `role` must be empty.
 */
export const seLinuxOptionsCheck: CheckDefinition = {
  id: "seLinuxOptions",
  controlName: "SELinux",
  level: "baseline",
  versions: [
    { minMinor: 0, run: seLinuxWith(new Set(SELINUX_TYPES_1_0)) },
    { minMinor: 31, run: seLinuxWith(new Set(SELINUX_TYPES_1_31)) },
  ],
};

function seLinuxWith(allowedTypes: ReadonlySet<string>): (pod: PodView) => CheckOutcome | undefined {
  return (pod) => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const findings: PssFinding[] = [];
    /** The offending sub-fields of one `seLinuxOptions`, as [field, value] pairs. */
    const offending = (opts: SeLinuxView): Array<[string, string]> => {
      const out: Array<[string, string]> = [];
      if (!allowedTypes.has(opts.type)) {
        badTypes.push(opts.type);
        out.push(["type", opts.type]);
      }
      if (opts.user !== "") {
        setUser = true;
        out.push(["user", opts.user]);
      }
      if (opts.role !== "") {
        setRole = true;
        out.push(["role", opts.role]);
      }
      return out;
    };
    const setters: string[] = [];
    const podOptions = pod.securityContext?.seLinux;
    if (podOptions !== undefined) {
      const bad = offending(podOptions);
      if (bad.length > 0) setters.push("pod");
      for (const [field, value] of bad) {
        findings.push(podFinding(`spec.securityContext.seLinuxOptions.${field}`, [value]));
      }
    }
    const badContainers: string[] = [];
    for (const c of pod.containers) {
      const options = c.securityContext?.seLinux;
      if (options === undefined) continue;
      const bad = offending(options);
      if (bad.length > 0) badContainers.push(c.name);
      for (const [field, value] of bad) {
        findings.push(containerFinding(c, `securityContext.seLinuxOptions.${field}`, [value]));
      }
    }
    if (badContainers.length > 0) setters.push(containersPhrase(badContainers));
    if (setters.length === 0) return undefined;
    const data: string[] = [];
    const types = sortedSet(badTypes);
    if (types.length > 0) data.push(`${pluralize("type", "types", types.length)} ${joinQuote(types)}`);
    if (setUser) data.push("user may not be set");
    if (setRole) data.push("role may not be set");
    return {
      forbiddenReason: "seLinuxOptions",
      forbiddenDetail: `${setters.join(" and ")} set forbidden securityContext.seLinuxOptions: ${data.join("; ")}`,
      findings,
    };
  };
}

const SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod";
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/";

/**
 * Seccomp (baseline): before 1.19 the alpha seccomp annotations must not be `unconfined`-like; from 1.19
 * an explicitly set `seccompProfile.type` must be `RuntimeDefault` or `Localhost`.
 */
export const seccompProfileBaselineCheck: CheckDefinition = {
  id: "seccompProfile_baseline",
  controlName: "Seccomp",
  level: "baseline",
  versions: [
    { minMinor: 0, run: seccompAnnotations },
    { minMinor: 19, run: seccompBaseline_1_19 },
  ],
};

function validSeccompAnnotation(value: string): boolean {
  return value === "runtime/default" || value === "docker/default" || value.startsWith("localhost/");
}

function seccompAnnotations(pod: PodView): CheckOutcome | undefined {
  const annotations = new Map(pod.annotations);
  const forbidden: string[] = [];
  const findings: PssFinding[] = [];
  const podValue = annotations.get(SECCOMP_POD_ANNOTATION);
  if (podValue !== undefined && !validSeccompAnnotation(podValue)) {
    forbidden.push(`${SECCOMP_POD_ANNOTATION}=${goQuote(podValue)}`);
    findings.push(podFinding(`metadata.annotations["${SECCOMP_POD_ANNOTATION}"]`, [podValue]));
  }
  for (const c of pod.containers) {
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name;
    const value = annotations.get(key);
    if (value === undefined || validSeccompAnnotation(value)) continue;
    forbidden.push(`${key}=${goQuote(value)}`);
    findings.push({
      restrictedField: `metadata.annotations["${SECCOMP_CONTAINER_ANNOTATION_PREFIX}*"]`,
      container: containerRef(c),
      values: [value],
    });
  }
  const list = sortedSet(forbidden);
  if (list.length === 0) return undefined;
  return {
    forbiddenReason: "seccompProfile",
    forbiddenDetail: `forbidden ${pluralize("annotation", "annotations", list.length)} ${list.join(", ")}`,
    findings,
  };
}

function seccompBaseline_1_19(pod: PodView): CheckOutcome | undefined {
  const explicit = explicitProfileFields(pod, "seccompProfile", (c) => c?.seccompType, validSeccomp);
  if (explicit.setters.length === 0) return undefined;
  return {
    forbiddenReason: "seccompProfile",
    forbiddenDetail: `${explicit.setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(explicit.badValues)}`,
    findings: explicit.findings,
  };
}

/**
 * Seccomp (restricted): from 1.19 the pod or every container must set `seccompProfile.type` to
 * `RuntimeDefault` or `Localhost`; from 1.25 Windows pods (`spec.os.name: windows`) are exempt.
 * A container that sets nothing while the pod sets no valid profile is a container-level finding whose
 * value is the pod's bad type, if any.
 */
export const seccompProfileRestrictedCheck: CheckDefinition = {
  id: "seccompProfile_restricted",
  controlName: "Seccomp",
  level: "restricted",
  versions: [
    { minMinor: 19, run: seccompRestricted_1_19 },
    { minMinor: 25, run: (pod) => (pod.osName === "windows" ? undefined : seccompRestricted_1_19(pod)) },
  ],
};

function seccompRestricted_1_19(pod: PodView): CheckOutcome | undefined {
  const explicit = explicitProfileFields(pod, "seccompProfile", (c) => c?.seccompType, validSeccomp);
  const podType = pod.securityContext?.seccompType;
  const podValid = podType !== undefined && validSeccomp(podType);
  const implicit = podValid ? [] : pod.containers.filter((c) => c.securityContext?.seccompType === undefined);
  const findings = [
    ...explicit.findings,
    ...implicit.map((c) =>
      containerFinding(c, "securityContext.seccompProfile.type", podType === undefined ? [] : [podType]),
    ),
  ];
  if (explicit.setters.length > 0) {
    return {
      forbiddenReason: "seccompProfile",
      forbiddenDetail: `${explicit.setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(explicit.badValues)}`,
      findings,
    };
  }
  if (implicit.length === 0) return undefined;
  return {
    forbiddenReason: "seccompProfile",
    forbiddenDetail: `pod or ${containersPhrase(implicit.map((c) => c.name))} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    findings,
  };
}

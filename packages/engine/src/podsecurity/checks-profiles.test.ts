import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { evaluatePodSecurity } from "./evaluate.js";

type Json = { [key: string]: JsonValue };
type Row = [string, string, string];

function failures(level: string, spec: Json, metadata: Json = {}, version = "latest"): Row[] {
  const r = evaluatePodSecurity({ level, version, podMetadata: metadata, podSpec: spec });
  if (!r.ok) throw new Error(r.error);
  return r.failures.map((f) => [f.id, f.forbiddenReason, f.forbiddenDetail]);
}

const c = (name: string, securityContext?: Json): Json =>
  securityContext === undefined ? { name, image: "img" } : { name, image: "img", securityContext };

/** A container meeting every restricted control, with `extra` merged into its securityContext. */
const good = (name: string, extra: Json = {}): Json =>
  c(name, {
    allowPrivilegeEscalation: false,
    runAsNonRoot: true,
    seccompProfile: { type: "RuntimeDefault" },
    capabilities: { drop: ["ALL"] },
    ...extra,
  });

describe("appArmorProfile", () => {
  const ann = (annotations: Json): Json => ({ annotations });
  it.each<[string, Json, Json, string, Row[]]>([
    [
      "runtime/default",
      ann({ "container.apparmor.security.beta.kubernetes.io/a": "runtime/default" }),
      { containers: [c("a")] },
      "latest",
      [],
    ],
    [
      "localhost/*",
      ann({ "container.apparmor.security.beta.kubernetes.io/a": "localhost/p" }),
      { containers: [c("a")] },
      "latest",
      [],
    ],
    [
      "empty value",
      ann({ "container.apparmor.security.beta.kubernetes.io/a": "" }),
      { containers: [c("a")] },
      "latest",
      [],
    ],
    [
      "foo/bar annotation",
      ann({ "container.apparmor.security.beta.kubernetes.io/container01": "foo/bar" }),
      { containers: [c("container01")] },
      "latest",
      [
        [
          "appArmorProfile",
          "forbidden AppArmor profile",
          'container.apparmor.security.beta.kubernetes.io/container01="foo/bar"',
        ],
      ],
    ],
    [
      "two annotations, sorted, any container name",
      ann({
        "container.apparmor.security.beta.kubernetes.io/z": "unconfined",
        "container.apparmor.security.beta.kubernetes.io/b": "unconfined",
      }),
      { containers: [c("a")] },
      "v1.20",
      [
        [
          "appArmorProfile",
          "forbidden AppArmor profiles",
          'container.apparmor.security.beta.kubernetes.io/b="unconfined", container.apparmor.security.beta.kubernetes.io/z="unconfined"',
        ],
      ],
    ],
    [
      "field Unconfined from 1.30",
      {},
      {
        securityContext: { appArmorProfile: { type: "Unconfined" } },
        containers: [c("a", { appArmorProfile: { type: "Unconfined" } })],
      },
      "v1.30",
      [
        [
          "appArmorProfile",
          "forbidden AppArmor profile type",
          'pod and container "a" must not set securityContext.appArmorProfile.type to "Unconfined"',
        ],
      ],
    ],
    [
      "field ignored before 1.30",
      {},
      { securityContext: { appArmorProfile: { type: "Unconfined" } }, containers: [c("a")] },
      "v1.29",
      [],
    ],
    [
      "field Localhost",
      {},
      { containers: [c("a", { appArmorProfile: { type: "Localhost", localhostProfile: "p" } })] },
      "latest",
      [],
    ],
    [
      "annotations win over fields in the message",
      ann({ "container.apparmor.security.beta.kubernetes.io/a": "unconfined" }),
      { containers: [c("a", { appArmorProfile: { type: "Unconfined" } })] },
      "latest",
      [
        [
          "appArmorProfile",
          "forbidden AppArmor profile",
          'container.apparmor.security.beta.kubernetes.io/a="unconfined"',
        ],
      ],
    ],
  ])("%s", (_name, metadata, spec, version, expected) => {
    expect(failures("baseline", spec, metadata, version)).toEqual(expected);
  });
});

describe("seLinuxOptions", () => {
  const se = (o: Json): Json => ({ seLinuxOptions: o });
  it.each<[string, Json, string, Row[]]>([
    ["container_t", { containers: [c("a", se({ type: "container_t", level: "s0:c1" }))] }, "latest", []],
    ["empty options", { securityContext: se({}), containers: [c("a")] }, "latest", []],
    [
      "invalid type",
      { containers: [c("container01", se({ type: "invalid" }))] },
      "latest",
      [
        [
          "seLinuxOptions",
          "seLinuxOptions",
          'container "container01" set forbidden securityContext.seLinuxOptions: type "invalid"',
        ],
      ],
    ],
    [
      "user and role",
      { containers: [c("a", se({ user: "sysadm_u", role: "sysadm_r" }))] },
      "latest",
      [
        [
          "seLinuxOptions",
          "seLinuxOptions",
          'container "a" set forbidden securityContext.seLinuxOptions: user may not be set; role may not be set',
        ],
      ],
    ],
    [
      "pod and containers, types sorted",
      {
        securityContext: se({ type: "z_t" }),
        containers: [c("a", se({ type: "b_t", user: "u" })), c("b", se({ type: "b_t" }))],
      },
      "latest",
      [
        [
          "seLinuxOptions",
          "seLinuxOptions",
          'pod and containers "a", "b" set forbidden securityContext.seLinuxOptions: types "b_t", "z_t"; user may not be set',
        ],
      ],
    ],
    [
      "container_engine_t before 1.31",
      { containers: [c("a", se({ type: "container_engine_t" }))] },
      "v1.30",
      [
        [
          "seLinuxOptions",
          "seLinuxOptions",
          'container "a" set forbidden securityContext.seLinuxOptions: type "container_engine_t"',
        ],
      ],
    ],
    [
      "container_engine_t from 1.31",
      { containers: [c("a", se({ type: "container_engine_t" }))] },
      "v1.31",
      [],
    ],
  ])("%s", (_name, spec, version, expected) => {
    expect(failures("baseline", spec, {}, version)).toEqual(expected);
  });
});

describe("seccompProfile_baseline", () => {
  const sp = (type: string): Json => ({ seccompProfile: { type } });
  it.each<[string, Json, Json, string, Row[]]>([
    ["unset", {}, { containers: [c("a")] }, "latest", []],
    [
      "RuntimeDefault and Localhost",
      {},
      { securityContext: sp("RuntimeDefault"), containers: [c("a", sp("Localhost"))] },
      "latest",
      [],
    ],
    [
      "Unconfined pod and container",
      {},
      { securityContext: sp("Unconfined"), containers: [c("a", sp("Unconfined"))] },
      "latest",
      [
        [
          "seccompProfile_baseline",
          "seccompProfile",
          'pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined"',
        ],
      ],
    ],
    [
      "seccompProfile without type",
      {},
      { containers: [c("a", { seccompProfile: {} }), c("b", sp("Unconfined"))] },
      "latest",
      [
        [
          "seccompProfile_baseline",
          "seccompProfile",
          'containers "a", "b" must not set securityContext.seccompProfile.type to "", "Unconfined"',
        ],
      ],
    ],
    [
      "annotations before 1.19",
      {
        annotations: {
          "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
          "container.seccomp.security.alpha.kubernetes.io/a": "runtime/default",
          "container.seccomp.security.alpha.kubernetes.io/b": "unconfined",
        },
      },
      { containers: [c("a"), c("b")] },
      "v1.18",
      [
        [
          "seccompProfile_baseline",
          "seccompProfile",
          'forbidden annotations container.seccomp.security.alpha.kubernetes.io/b="unconfined", seccomp.security.alpha.kubernetes.io/pod="unconfined"',
        ],
      ],
    ],
    [
      "annotations ignored from 1.19",
      { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "unconfined" } },
      { containers: [c("a")] },
      "v1.19",
      [],
    ],
    ["fields ignored before 1.19", {}, { containers: [c("a", sp("Unconfined"))] }, "v1.18", []],
  ])("%s", (_name, metadata, spec, version, expected) => {
    expect(failures("baseline", spec, metadata, version)).toEqual(expected);
  });
});

describe("seccompProfile_restricted", () => {
  const sp = (type: string): Json => ({ seccompProfile: { type } });
  it.each<[string, Json, string, Row[]]>([
    [
      "pod-level RuntimeDefault covers containers",
      { securityContext: sp("RuntimeDefault"), containers: [good("a", { seccompProfile: null })] },
      "latest",
      [],
    ],
    ["every container sets it", { containers: [good("a"), good("b", sp("Localhost"))] }, "latest", []],
    [
      "unset everywhere",
      { containers: [good("a", { seccompProfile: null }), good("b", { seccompProfile: null })] },
      "latest",
      [
        [
          "seccompProfile_restricted",
          "seccompProfile",
          'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
        ],
      ],
    ],
    [
      "explicit bad value hides the implicit ones",
      { securityContext: sp("Unconfined"), containers: [good("a", { seccompProfile: null })] },
      "latest",
      [
        [
          "seccompProfile_baseline",
          "seccompProfile",
          'pod must not set securityContext.seccompProfile.type to "Unconfined"',
        ],
        [
          "seccompProfile_restricted",
          "seccompProfile",
          'pod must not set securityContext.seccompProfile.type to "Unconfined"',
        ],
      ],
    ],
    [
      "Windows pods are not exempt before 1.25",
      { os: { name: "windows" }, containers: [good("a", { seccompProfile: null })] },
      "v1.24",
      [
        [
          "seccompProfile_restricted",
          "seccompProfile",
          'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
        ],
      ],
    ],
    [
      "Windows pods are exempt from 1.25",
      { os: { name: "windows" }, containers: [good("a", { seccompProfile: null })] },
      "v1.25",
      [],
    ],
    ["not checked before 1.19", { containers: [good("a", { seccompProfile: null })] }, "v1.18", []],
  ])("%s", (_name, spec, version, expected) => {
    expect(failures("restricted", spec, {}, version)).toEqual(expected);
  });
});

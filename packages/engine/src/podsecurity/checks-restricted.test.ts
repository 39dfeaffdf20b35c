import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { evaluatePodSecurity } from "./evaluate.js";

type Json = { [key: string]: JsonValue };
type Row = [string, string, string];

function failures(level: string, spec: Json, version = "latest"): Row[] {
  const r = evaluatePodSecurity({ level, version, podMetadata: {}, podSpec: spec });
  if (!r.ok) throw new Error(r.error);
  return r.failures.map((f) => [f.id, f.forbiddenReason, f.forbiddenDetail]);
}

/** A container meeting every restricted control, with `extra` merged into its securityContext. */
const good = (name: string, extra: Json = {}): Json => ({
  name,
  image: "img",
  securityContext: {
    allowPrivilegeEscalation: false,
    runAsNonRoot: true,
    seccompProfile: { type: "RuntimeDefault" },
    capabilities: { drop: ["ALL"] },
    ...extra,
  },
});

describe("allowPrivilegeEscalation", () => {
  it.each<[string, Json, string, Row[]]>([
    ["false", { containers: [good("a")] }, "latest", []],
    [
      "unset and true",
      {
        containers: [
          good("a", { allowPrivilegeEscalation: null }),
          good("b", { allowPrivilegeEscalation: true }),
        ],
      },
      "latest",
      [
        [
          "allowPrivilegeEscalation",
          "allowPrivilegeEscalation != false",
          'containers "a", "b" must set securityContext.allowPrivilegeEscalation=false',
        ],
      ],
    ],
    [
      "no securityContext at all (restricted reports four checks)",
      { containers: [{ name: "container01", image: "img" }] },
      "latest",
      [
        [
          "allowPrivilegeEscalation",
          "allowPrivilegeEscalation != false",
          'container "container01" must set securityContext.allowPrivilegeEscalation=false',
        ],
        [
          "capabilities_restricted",
          "unrestricted capabilities",
          'container "container01" must set securityContext.capabilities.drop=["ALL"]',
        ],
        [
          "runAsNonRoot",
          "runAsNonRoot != true",
          'pod or container "container01" must set securityContext.runAsNonRoot=true',
        ],
        [
          "seccompProfile_restricted",
          "seccompProfile",
          'pod or container "container01" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
        ],
      ],
    ],
    [
      "Windows pod before 1.25",
      { os: { name: "windows" }, containers: [good("a", { allowPrivilegeEscalation: null })] },
      "v1.24",
      [
        [
          "allowPrivilegeEscalation",
          "allowPrivilegeEscalation != false",
          'container "a" must set securityContext.allowPrivilegeEscalation=false',
        ],
      ],
    ],
    [
      "Windows pod from 1.25",
      { os: { name: "windows" }, containers: [good("a", { allowPrivilegeEscalation: null })] },
      "v1.25",
      [],
    ],
    ["linux pod from 1.25", { os: { name: "linux" }, containers: [good("a")] }, "v1.25", []],
    ["not checked before 1.8", { containers: [good("a", { allowPrivilegeEscalation: true })] }, "v1.7", []],
  ])("%s", (_name, spec, version, expected) => {
    expect(failures("restricted", spec, version)).toEqual(expected);
  });
});

describe("capabilities_baseline", () => {
  const add = (name: string, caps: string[]): Json => ({
    name,
    image: "img",
    securityContext: { capabilities: { add: caps } },
  });
  it.each<[string, Json, Row[]]>([
    [
      "default capabilities",
      { containers: [add("a", ["CHOWN", "KILL", "NET_BIND_SERVICE", "SYS_CHROOT"])] },
      [],
    ],
    [
      "SYS_ADMIN",
      { containers: [add("container01", ["SYS_ADMIN"])] },
      [
        [
          "capabilities_baseline",
          "non-default capabilities",
          'container "container01" must not include "SYS_ADMIN" in securityContext.capabilities.add',
        ],
      ],
    ],
    [
      "no CAP_ prefix normalisation, values sorted and distinct",
      { containers: [add("a", ["NET_RAW", "CAP_CHOWN"]), add("b", ["NET_RAW"])] },
      [
        [
          "capabilities_baseline",
          "non-default capabilities",
          'containers "a", "b" must not include "CAP_CHOWN", "NET_RAW" in securityContext.capabilities.add',
        ],
      ],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(failures("baseline", spec)).toEqual(expected);
  });
});

describe("capabilities_restricted", () => {
  it.each<[string, Json, string, Row[]]>([
    [
      "drop ALL, add NET_BIND_SERVICE",
      { containers: [good("a", { capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } })] },
      "latest",
      [],
    ],
    [
      "drop without ALL",
      { containers: [good("a", { capabilities: { drop: ["NET_RAW"] } })] },
      "latest",
      [
        [
          "capabilities_restricted",
          "unrestricted capabilities",
          'container "a" must set securityContext.capabilities.drop=["ALL"]',
        ],
      ],
    ],
    [
      "add CHOWN (a baseline default) is still restricted",
      { containers: [good("a", { capabilities: { drop: ["ALL"], add: ["CHOWN"] } })] },
      "latest",
      [
        [
          "capabilities_restricted",
          "unrestricted capabilities",
          'container "a" must not include "CHOWN" in securityContext.capabilities.add',
        ],
      ],
    ],
    [
      "both problems, joined with ;",
      {
        containers: [good("a", { capabilities: { add: ["SYS_ADMIN"] } }), good("b", { capabilities: null })],
      },
      "latest",
      [
        [
          "capabilities_baseline",
          "non-default capabilities",
          'container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add',
        ],
        [
          "capabilities_restricted",
          "unrestricted capabilities",
          'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add',
        ],
      ],
    ],
    ["not checked before 1.22", { containers: [good("a", { capabilities: null })] }, "v1.21", []],
    [
      "Windows pod before 1.25",
      { os: { name: "windows" }, containers: [good("a", { capabilities: null })] },
      "v1.24",
      [
        [
          "capabilities_restricted",
          "unrestricted capabilities",
          'container "a" must set securityContext.capabilities.drop=["ALL"]',
        ],
      ],
    ],
    [
      "Windows pod from 1.25",
      { os: { name: "windows" }, containers: [good("a", { capabilities: null })] },
      "latest",
      [],
    ],
  ])("%s", (_name, spec, version, expected) => {
    expect(failures("restricted", spec, version)).toEqual(expected);
  });
});

describe("runAsNonRoot", () => {
  it.each<[string, Json, Row[]]>([
    [
      "pod-level true covers containers",
      { securityContext: { runAsNonRoot: true }, containers: [good("a", { runAsNonRoot: null })] },
      [],
    ],
    [
      "explicit false in container",
      { containers: [good("a", { runAsNonRoot: false })] },
      [
        [
          "runAsNonRoot",
          "runAsNonRoot != true",
          'container "a" must not set securityContext.runAsNonRoot=false',
        ],
      ],
    ],
    [
      "explicit false in pod and container",
      {
        securityContext: { runAsNonRoot: false },
        containers: [good("a", { runAsNonRoot: false }), good("b")],
      },
      [
        [
          "runAsNonRoot",
          "runAsNonRoot != true",
          'pod and container "a" must not set securityContext.runAsNonRoot=false',
        ],
      ],
    ],
    [
      "container false overrides pod true",
      { securityContext: { runAsNonRoot: true }, containers: [good("a", { runAsNonRoot: false })] },
      [
        [
          "runAsNonRoot",
          "runAsNonRoot != true",
          'container "a" must not set securityContext.runAsNonRoot=false',
        ],
      ],
    ],
    [
      "implicit, init container included",
      {
        initContainers: [good("i", { runAsNonRoot: null })],
        containers: [good("a", { runAsNonRoot: null }), good("b")],
      },
      [
        [
          "runAsNonRoot",
          "runAsNonRoot != true",
          'pod or containers "i", "a" must set securityContext.runAsNonRoot=true',
        ],
      ],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(failures("restricted", spec)).toEqual(expected);
  });
});

describe("runAsUser", () => {
  it.each<[string, Json, string, Row[]]>([
    [
      "non-zero",
      { securityContext: { runAsUser: 1000 }, containers: [good("a", { runAsUser: 1 })] },
      "latest",
      [],
    ],
    [
      "zero in container",
      { containers: [good("container01", { runAsUser: 0 })] },
      "latest",
      [["runAsUser", "runAsUser=0", 'container "container01" must not set runAsUser=0']],
    ],
    [
      "zero in pod and containers",
      {
        securityContext: { runAsUser: 0 },
        containers: [good("a", { runAsUser: 0 }), good("b", { runAsUser: 0 })],
      },
      "latest",
      [["runAsUser", "runAsUser=0", 'pod and containers "a", "b" must not set runAsUser=0']],
    ],
    ["not checked before 1.23", { securityContext: { runAsUser: 0 }, containers: [good("a")] }, "v1.22", []],
  ])("%s", (_name, spec, version, expected) => {
    expect(failures("restricted", spec, version)).toEqual(expected);
  });
});

describe("restrictedVolumes", () => {
  const allowed: Json[] = [
    { name: "a", configMap: { name: "c" } },
    { name: "b", csi: { driver: "d" } },
    { name: "c", downwardAPI: {} },
    { name: "d", emptyDir: {} },
    { name: "e", ephemeral: { volumeClaimTemplate: {} } },
    { name: "f", persistentVolumeClaim: { claimName: "p" } },
    { name: "g", projected: { sources: [] } },
    { name: "h", secret: { secretName: "s" } },
  ];
  it.each<[string, Json[], Row[]]>([
    ["allowed sources", allowed, []],
    [
      "awsElasticBlockStore",
      [{ name: "udev", awsElasticBlockStore: { volumeID: "vol-1", fsType: "ext4" } }],
      [
        [
          "restrictedVolumes",
          "restricted volume types",
          'volume "udev" uses restricted volume type "awsElasticBlockStore"',
        ],
      ],
    ],
    [
      "hostPath fails baseline and restricted",
      [{ name: "h", hostPath: { path: "/" } }],
      [
        ["hostPathVolumes", "hostPath volumes", 'volume "h"'],
        ["restrictedVolumes", "restricted volume types", 'volume "h" uses restricted volume type "hostPath"'],
      ],
    ],
    [
      "several, types sorted; no source is unknown",
      [
        { name: "x", nfs: { server: "s", path: "/" } },
        { name: "y" },
        { name: "z", gitRepo: { repository: "r" } },
        { name: "w", nfs: {} },
      ],
      [
        [
          "restrictedVolumes",
          "restricted volume types",
          'volumes "x", "y", "z", "w" use restricted volume types "gitRepo", "nfs", "unknown"',
        ],
      ],
    ],
  ])("%s", (_name, volumes, expected) => {
    expect(failures("restricted", { containers: [good("a")], volumes })).toEqual(expected);
  });
});

import type { JsonValue, PodSecurityExclude } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { evaluatePodSecurity } from "./evaluate.js";
import type { PssCheckResult } from "./types.js";

type Json = { [key: string]: JsonValue };

function run(
  level: string,
  spec: Json,
  exclude: PodSecurityExclude[],
  metadata: Json = {},
): PssCheckResult[] {
  const r = evaluatePodSecurity({ level, version: "latest", exclude, podMetadata: metadata, podSpec: spec });
  if (!r.ok) throw new Error(r.error);
  expect(r.allowed).toBe(r.failures.length === 0);
  return r.failures;
}
const ids = (failures: PssCheckResult[]): string[] => failures.map((f) => f.id);

const good = (name: string, image: string, extra: Json = {}): Json => ({
  name,
  image,
  securityContext: {
    allowPrivilegeEscalation: false,
    runAsNonRoot: true,
    seccompProfile: { type: "RuntimeDefault" },
    capabilities: { drop: ["ALL"] },
    ...extra,
  },
});

describe("control-level exclusions", () => {
  it("exempts a pod-level control (docs: Host Namespaces)", () => {
    const spec = { hostIPC: true, containers: [{ name: "container01", image: "dummyimagename" }] };
    expect(ids(run("baseline", spec, []))).toEqual(["hostNamespaces"]);
    expect(run("baseline", spec, [{ controlName: "Host Namespaces" }])).toEqual([]);
  });

  it("does not exempt container-level findings without images", () => {
    const spec = { containers: [{ name: "a", image: "nginx", securityContext: { privileged: true } }] };
    expect(ids(run("baseline", spec, [{ controlName: "Privileged Containers" }]))).toEqual(["privileged"]);
    expect(run("baseline", spec, [{ controlName: "Privileged Containers", images: ["*"] }])).toEqual([]);
  });

  it("accepts Kyverno's aliases procMount and privileged", () => {
    const spec = {
      containers: [{ name: "a", image: "x", securityContext: { privileged: true, procMount: "Unmasked" } }],
    };
    expect(
      run("baseline", spec, [
        { controlName: "privileged", images: ["x"] },
        { controlName: "procMount", images: ["x"] },
      ]),
    ).toEqual([]);
  });

  it("exempts only the named control", () => {
    const spec = {
      hostPID: true,
      volumes: [{ name: "v", hostPath: { path: "/" } }],
      containers: [{ name: "a", image: "x" }],
    };
    expect(ids(run("baseline", spec, [{ controlName: "Host Namespaces" }]))).toEqual(["hostPathVolumes"]);
  });

  it("treats AppArmor annotations as a pod-level control", () => {
    const metadata = { annotations: { "container.apparmor.security.beta.kubernetes.io/a": "unconfined" } };
    const spec = { containers: [{ name: "a", image: "x" }] };
    expect(run("baseline", spec, [{ controlName: "AppArmor" }], metadata)).toEqual([]);
    expect(ids(run("baseline", spec, [{ controlName: "AppArmor", images: ["*"] }], metadata))).toEqual([
      "appArmorProfile",
    ]);
  });
});

describe("image-level exclusions", () => {
  const spec = (image: string): Json => ({
    containers: [good("container01", image, { capabilities: { add: ["SYS_ADMIN"], drop: ["ALL"] } })],
  });
  const exclude: PodSecurityExclude[] = [{ controlName: "Capabilities", images: ["nginx*", "redis*"] }];

  it("exempts both capabilities checks for a matching image (docs)", () => {
    expect(run("restricted", spec("nginx:1.1.9"), exclude)).toEqual([]);
  });

  it("keeps them for other images, with upstream's texts", () => {
    const failures = run("restricted", spec("busybox:1.28"), exclude);
    expect(failures.map((f) => [f.forbiddenReason, f.forbiddenDetail])).toEqual([
      [
        "non-default capabilities",
        'container "container01" must not include "SYS_ADMIN" in securityContext.capabilities.add',
      ],
      [
        "unrestricted capabilities",
        'container "container01" must not include "SYS_ADMIN" in securityContext.capabilities.add',
      ],
    ]);
  });

  it("fails when one of several containers is not covered, and reports only its findings", () => {
    const pod = {
      initContainers: [good("init", "busybox", { capabilities: { add: ["NET_RAW"], drop: ["ALL"] } })],
      containers: [good("web", "nginx:1", { capabilities: { add: ["NET_RAW"], drop: ["ALL"] } })],
    };
    const failures = run("baseline", pod, [{ controlName: "Capabilities", images: ["nginx*"] }]);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.forbiddenDetail).toBe(
      'containers "init", "web" must not include "NET_RAW" in securityContext.capabilities.add',
    );
    expect(failures[0]?.findings).toEqual([
      {
        restrictedField: "spec.initContainers[*].securityContext.capabilities.add",
        field: "spec.initContainers[0].securityContext.capabilities.add",
        container: { name: "init", image: "busybox", kind: "initContainers" },
        values: ["NET_RAW"],
      },
    ]);
  });

  it("supports ? wildcards", () => {
    const pod = { containers: [{ name: "a", image: "app-1", securityContext: { privileged: true } }] };
    expect(run("baseline", pod, [{ controlName: "Privileged Containers", images: ["app-?"] }])).toEqual([]);
    expect(ids(run("baseline", pod, [{ controlName: "Privileged Containers", images: ["app-??"] }]))).toEqual(
      ["privileged"],
    );
  });
});

describe("controls at both levels (Seccomp)", () => {
  const spec = {
    securityContext: { seccompProfile: { type: "Unconfined" } },
    containers: [good("container01", "busybox:1.28", { seccompProfile: null })],
  };
  it("needs the pod-level and the container-level entries", () => {
    expect(ids(run("restricted", spec, []))).toEqual([
      "seccompProfile_baseline",
      "seccompProfile_restricted",
    ]);
    expect(ids(run("restricted", spec, [{ controlName: "Seccomp" }]))).toEqual(["seccompProfile_restricted"]);
    expect(ids(run("restricted", spec, [{ controlName: "Seccomp", images: ["*"] }]))).toEqual([
      "seccompProfile_baseline",
      "seccompProfile_restricted",
    ]);
    expect(
      run("restricted", spec, [{ controlName: "Seccomp" }, { controlName: "Seccomp", images: ["*"] }]),
    ).toEqual([]);
  });

  it("reports the inherited pod value on containers that rely on it", () => {
    const [restricted] = run("restricted", spec, [{ controlName: "Seccomp" }]);
    expect(restricted?.findings).toEqual([
      {
        restrictedField: "spec.containers[*].securityContext.seccompProfile.type",
        field: "spec.containers[0].securityContext.seccompProfile.type",
        container: { name: "container01", image: "busybox:1.28", kind: "containers" },
        values: ["Unconfined"],
      },
    ]);
  });
});

describe("field and value exclusions", () => {
  const capsExclude: PodSecurityExclude[] = [
    {
      controlName: "Capabilities",
      images: ["nginx*"],
      restrictedField: "spec.containers[*].securityContext.capabilities.add",
      values: ["FOO", "BAR"],
    },
  ];
  const capsPod = (...add: string[]): Json => ({
    containers: [{ name: "nginx", image: "nginx:latest", securityContext: { capabilities: { add } } }],
  });

  it("exempts listed values (docs: FOO)", () => {
    expect(run("baseline", capsPod("FOO"), capsExclude)).toEqual([]);
    expect(run("baseline", capsPod("FOO", "BAR"), capsExclude)).toEqual([]);
  });

  it("keeps other values (docs: BAZ), also when mixed with listed ones", () => {
    expect(ids(run("baseline", capsPod("BAZ"), capsExclude))).toEqual(["capabilities_baseline"]);
    expect(ids(run("baseline", capsPod("FOO", "BAZ"), capsExclude))).toEqual(["capabilities_baseline"]);
  });

  it("requires the restricted field to match, container kind included", () => {
    const pod = {
      initContainers: [{ name: "i", image: "nginx", securityContext: { capabilities: { add: ["FOO"] } } }],
    };
    expect(ids(run("baseline", pod, capsExclude))).toEqual(["capabilities_baseline"]);
  });

  const seccompExclude: PodSecurityExclude[] = [
    {
      controlName: "Seccomp",
      restrictedField: "spec.securityContext.seccompProfile.type",
      values: ["Unconfined"],
    },
    {
      controlName: "Seccomp",
      images: ["nginx*"],
      restrictedField: "spec.containers[*].securityContext.seccompProfile.type",
      values: ["Unconfined"],
    },
  ];
  const seccompPod = (podType: string, containerType: string): Json => ({
    securityContext: { seccompProfile: { type: podType } },
    containers: [
      { name: "nginx", image: "nginx:latest", securityContext: { seccompProfile: { type: containerType } } },
    ],
  });

  it("exempts values at pod and container level (docs: Unconfined)", () => {
    expect(run("baseline", seccompPod("Unconfined", "Unconfined"), seccompExclude)).toEqual([]);
  });

  it("rejects a value outside the list (docs: Unknown)", () => {
    const failures = run("baseline", seccompPod("Unknown", "Unconfined"), seccompExclude);
    expect(failures.map((f) => f.findings)).toEqual([
      [{ restrictedField: "spec.securityContext.seccompProfile.type", values: ["Unknown"] }],
    ]);
  });

  it("never value-exempts a missing required field", () => {
    const pod = { containers: [good("a", "nginx", { allowPrivilegeEscalation: null })] };
    const exclude = (values: string[]): PodSecurityExclude[] => [
      {
        controlName: "Privilege Escalation",
        images: ["*"],
        restrictedField: "spec.containers[*].securityContext.allowPrivilegeEscalation",
        values,
      },
    ];
    expect(ids(run("restricted", pod, exclude(["true"])))).toEqual(["allowPrivilegeEscalation"]);
    expect(run("restricted", pod, exclude([]))).toEqual([]);
  });

  it("exempts hostPath volumes by path", () => {
    const pod = {
      containers: [{ name: "a", image: "x" }],
      volumes: [{ name: "sock", hostPath: { path: "/var/run/docker.sock" } }],
    };
    const exclude = (path: string): PodSecurityExclude[] => [
      { controlName: "HostPath Volumes", restrictedField: "spec.volumes[*].hostPath", values: [path] },
    ];
    expect(run("baseline", pod, exclude("/var/run/docker.sock"))).toEqual([]);
    expect(ids(run("baseline", pod, exclude("/etc")))).toEqual(["hostPathVolumes"]);
  });

  it("exempts host namespaces field by field", () => {
    const pod = { hostNetwork: true, hostPID: true, containers: [{ name: "a", image: "x" }] };
    const failures = run("baseline", pod, [
      { controlName: "Host Namespaces", restrictedField: "spec.hostNetwork", values: ["true"] },
    ]);
    expect(failures.map((f) => [f.forbiddenDetail, f.findings])).toEqual([
      ["hostNetwork=true, hostPID=true", [{ restrictedField: "spec.hostPID", values: ["true"] }]],
    ]);
  });
});

describe("invalid input", () => {
  const pod = { containers: [{ name: "a", image: "x" }] };
  it.each<[string, string, string | undefined, PodSecurityExclude[]]>([
    ["unknown level", "strict", "latest", []],
    ["capitalised level", "Baseline", "latest", []],
    ["bad version", "baseline", "1.25", []],
    ["major version 2", "baseline", "v2.0", []],
    ["leading zero", "baseline", "v1.025", []],
    ["unknown control", "baseline", "latest", [{ controlName: "Host Network" }]],
  ])("%s is an error", (_name, level, version, exclude) => {
    const r = evaluatePodSecurity({ level, version, exclude, podMetadata: {}, podSpec: pod });
    expect(r.ok).toBe(false);
  });

  it("privileged allows anything", () => {
    const r = evaluatePodSecurity({ level: "privileged", podMetadata: {}, podSpec: { hostPID: true } });
    expect(r).toEqual({ ok: true, allowed: true, failures: [] });
  });

  it("defaults to latest and tolerates non-object input", () => {
    expect(evaluatePodSecurity({ level: "restricted", podMetadata: null, podSpec: "x" })).toEqual({
      ok: true,
      allowed: true,
      failures: [],
    });
    expect(
      evaluatePodSecurity({ level: "baseline", version: "", podMetadata: {}, podSpec: { hostIPC: true } }),
    ).toMatchObject({
      ok: true,
      allowed: false,
    });
  });
});

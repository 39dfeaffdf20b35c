import type { JsonValue } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { evaluatePodSecurity } from "./evaluate.js";

type Json = { [key: string]: JsonValue };

/** Baseline failures of a pod as [id, reason, detail] triples. */
function baseline(spec: Json, metadata: Json = {}, version = "latest"): Array<[string, string, string]> {
  const r = evaluatePodSecurity({ level: "baseline", version, podMetadata: metadata, podSpec: spec });
  if (!r.ok) throw new Error(r.error);
  return r.failures.map((f) => [f.id, f.forbiddenReason, f.forbiddenDetail]);
}

const c = (name: string, extra: Json = {}): Json => ({ name, image: `${name}:1`, ...extra });
const sc = (name: string, securityContext: Json): Json => c(name, { securityContext });

describe("hostNamespaces", () => {
  it.each<[string, Json, Array<[string, string, string]>]>([
    ["none set", { containers: [c("a")] }, []],
    ["all false", { hostNetwork: false, hostPID: false, hostIPC: false, containers: [c("a")] }, []],
    [
      "hostIPC",
      { hostIPC: true, containers: [c("a")] },
      [["hostNamespaces", "host namespaces", "hostIPC=true"]],
    ],
    [
      "all three, upstream order",
      { hostIPC: true, hostPID: true, hostNetwork: true, containers: [c("a")] },
      [["hostNamespaces", "host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true"]],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(baseline(spec)).toEqual(expected);
  });
});

describe("hostPathVolumes", () => {
  it.each<[string, Json, Array<[string, string, string]>]>([
    ["emptyDir only", { containers: [c("a")], volumes: [{ name: "t", emptyDir: {} }] }, []],
    ["hostPath: null is unset", { containers: [c("a")], volumes: [{ name: "t", hostPath: null }] }, []],
    [
      "one hostPath",
      {
        containers: [c("a")],
        volumes: [
          { name: "t", emptyDir: {} },
          { name: "udev", hostPath: { path: "/etc/udev" } },
        ],
      },
      [["hostPathVolumes", "hostPath volumes", 'volume "udev"']],
    ],
    [
      "two hostPaths",
      {
        containers: [c("a")],
        volumes: [
          { name: "x", hostPath: { path: "/x" } },
          { name: "y", hostPath: {} },
        ],
      },
      [["hostPathVolumes", "hostPath volumes", 'volumes "x", "y"']],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(baseline(spec)).toEqual(expected);
  });
});

describe("hostPorts", () => {
  it.each<[string, Json, Array<[string, string, string]>]>([
    ["containerPort only", { containers: [c("a", { ports: [{ containerPort: 80 }] })] }, []],
    ["hostPort 0", { containers: [c("a", { ports: [{ containerPort: 80, hostPort: 0 }] })] }, []],
    [
      "one port",
      { containers: [c("a", { ports: [{ containerPort: 8080, hostPort: 6000 }] })] },
      [["hostPorts", "hostPort", 'container "a" uses hostPort 6000']],
    ],
    [
      "ports sorted as strings across containers",
      {
        initContainers: [c("i", { ports: [{ hostPort: 9 }] })],
        containers: [c("a", { ports: [{ hostPort: 80 }, { hostPort: 10 }] })],
      },
      [["hostPorts", "hostPort", 'containers "i", "a" use hostPorts 10, 80, 9']],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(baseline(spec)).toEqual(expected);
  });
});

describe("privileged", () => {
  it.each<[string, Json, Array<[string, string, string]>]>([
    ["privileged false", { containers: [sc("a", { privileged: false })] }, []],
    [
      "privileged container",
      { containers: [sc("a", { privileged: true })] },
      [["privileged", "privileged", 'container "a" must not set securityContext.privileged=true']],
    ],
    [
      "ephemeral and init containers, visited init first",
      {
        containers: [c("a")],
        ephemeralContainers: [sc("e", { privileged: true })],
        initContainers: [sc("i", { privileged: true })],
      },
      [["privileged", "privileged", 'containers "i", "e" must not set securityContext.privileged=true']],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(baseline(spec)).toEqual(expected);
  });
});

describe("procMount", () => {
  it.each<[string, Json, Array<[string, string, string]>]>([
    ["Default", { containers: [sc("a", { procMount: "Default" })] }, []],
    [
      "Unmasked",
      { containers: [sc("a", { procMount: "Unmasked" }), sc("b", { procMount: "Unmasked" })] },
      [
        [
          "procMount",
          "procMount",
          'containers "a", "b" must not set securityContext.procMount to "Unmasked"',
        ],
      ],
    ],
    [
      "user namespaces are not relaxed (feature gate off in Kyverno)",
      { hostUsers: false, containers: [sc("a", { procMount: "Unmasked" })] },
      [["procMount", "procMount", 'container "a" must not set securityContext.procMount to "Unmasked"']],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(baseline(spec)).toEqual(expected);
  });
});

describe("sysctls", () => {
  const withSysctls = (...names: string[]): Json => ({
    securityContext: { sysctls: names.map((name) => ({ name, value: "1" })) },
    containers: [c("a")],
  });
  it.each<[string, Json, string, Array<[string, string, string]>]>([
    ["safe set", withSysctls("kernel.shm_rmid_forced", "net.ipv4.tcp_syncookies"), "latest", []],
    [
      "unsafe, in order",
      withSysctls("kernel.shm_rmid_forced", "kernel.shm_next_id", "kernel.msgmax"),
      "latest",
      [["sysctls", "forbidden sysctls", "kernel.shm_next_id, kernel.msgmax"]],
    ],
    [
      "ip_local_reserved_ports before 1.27",
      withSysctls("net.ipv4.ip_local_reserved_ports"),
      "v1.26",
      [["sysctls", "forbidden sysctls", "net.ipv4.ip_local_reserved_ports"]],
    ],
    ["ip_local_reserved_ports from 1.27", withSysctls("net.ipv4.ip_local_reserved_ports"), "v1.27", []],
    [
      "tcp_keepalive_time before 1.29",
      withSysctls("net.ipv4.tcp_keepalive_time"),
      "v1.28",
      [["sysctls", "forbidden sysctls", "net.ipv4.tcp_keepalive_time"]],
    ],
    ["tcp_fin_timeout from 1.29", withSysctls("net.ipv4.tcp_fin_timeout"), "v1.29", []],
    [
      "tcp_rmem before 1.32",
      withSysctls("net.ipv4.tcp_rmem"),
      "v1.31",
      [["sysctls", "forbidden sysctls", "net.ipv4.tcp_rmem"]],
    ],
    ["tcp_wmem from 1.32", withSysctls("net.ipv4.tcp_wmem"), "v1.32", []],
    ["tcp_wmem at latest", withSysctls("net.ipv4.tcp_wmem"), "latest", []],
  ])("%s (%s)", (_name, spec, version, expected) => {
    expect(baseline(spec, {}, version)).toEqual(expected);
  });
});

describe("windowsHostProcess", () => {
  const hp = (v: boolean): Json => ({ windowsOptions: { hostProcess: v } });
  it.each<[string, Json, Array<[string, string, string]>]>([
    ["false everywhere", { securityContext: hp(false), containers: [sc("a", hp(false))] }, []],
    [
      "pod",
      { securityContext: hp(true), containers: [c("a")] },
      [
        [
          "windowsHostProcess",
          "hostProcess",
          "pod must not set securityContext.windowsOptions.hostProcess=true",
        ],
      ],
    ],
    [
      "pod and containers",
      { securityContext: hp(true), containers: [sc("a", hp(true)), sc("b", hp(true))] },
      [
        [
          "windowsHostProcess",
          "hostProcess",
          'pod and containers "a", "b" must not set securityContext.windowsOptions.hostProcess=true',
        ],
      ],
    ],
  ])("%s", (_name, spec, expected) => {
    expect(baseline(spec)).toEqual(expected);
  });
});

describe("baseline as a whole", () => {
  it("reports failures in upstream's check order", () => {
    const spec: Json = {
      hostPID: true,
      containers: [sc("a", { privileged: true, capabilities: { add: ["SYS_ADMIN"] } })],
      volumes: [{ name: "h", hostPath: { path: "/" } }],
    };
    expect(baseline(spec).map(([id]) => id)).toEqual([
      "capabilities_baseline",
      "hostNamespaces",
      "hostPathVolumes",
      "privileged",
    ]);
  });

  it("does not run restricted checks", () => {
    expect(
      baseline({ containers: [c("a")], volumes: [{ name: "n", nfs: { server: "s", path: "/" } }] }),
    ).toEqual([]);
  });
});

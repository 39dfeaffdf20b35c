import type { JsonValue, PodSecurityExclude } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { evaluatePodSecurity } from "./evaluate.js";
import { podSecurityMessage } from "./message.js";

function message(level: string, spec: JsonValue, rule?: string, exclude: PodSecurityExclude[] = []): string {
  const r = evaluatePodSecurity({ level, version: "latest", exclude, podMetadata: {}, podSpec: spec });
  if (!r.ok) throw new Error(r.error);
  return podSecurityMessage(level, "latest", r.failures, rule);
}

const badpod01 = { hostIPC: true, containers: [{ name: "container01", image: "dummyimagename" }] };

// Upstream's messages name each failing field (Kyverno's fork of the Pod Security library adds the
// field errors), where the older documentation shows `{Allowed:false ForbiddenReason:… ForbiddenDetail:…}`.
describe("podSecurityMessage", () => {
  it("words a baseline failure with the field and its forbidden value", () => {
    expect(message("baseline", badpod01, "baseline")).toBe(
      `Validation rule 'baseline' failed. It violates PodSecurity "baseline:latest": (Forbidden reason: host namespaces, field error list: [spec.hostIPC is forbidden, forbidden values found: true])`,
    );
  });

  it("lists every failed check in upstream order, a missing required field by its indexed path", () => {
    expect(message("restricted", badpod01, "baseline")).toBe(
      [
        `Validation rule 'baseline' failed. It violates PodSecurity "restricted:latest": `,
        `(Forbidden reason: allowPrivilegeEscalation != false, field error list: [spec.containers[0].securityContext.allowPrivilegeEscalation: Required value])`,
        `(Forbidden reason: unrestricted capabilities, field error list: [spec.containers[0].securityContext.capabilities.drop: Required value])`,
        `(Forbidden reason: host namespaces, field error list: [spec.hostIPC is forbidden, forbidden values found: true])`,
        `(Forbidden reason: runAsNonRoot != true, field error list: [spec.containers[0].securityContext.runAsNonRoot: Required value])`,
        `(Forbidden reason: seccompProfile, field error list: [spec.containers[0].securityContext.seccompProfile.type: Required value])`,
      ].join(""),
    );
  });

  it("names only the fields an image exclusion did not cover", () => {
    const spec: JsonValue = {
      containers: [
        { name: "nginx", image: "nginx:1.27", securityContext: { capabilities: { add: ["NET_ADMIN"] } } },
        {
          name: "container01",
          image: "busybox:1.28",
          securityContext: {
            allowPrivilegeEscalation: false,
            runAsNonRoot: true,
            seccompProfile: { type: "RuntimeDefault" },
            capabilities: { add: ["SYS_ADMIN"], drop: ["ALL"] },
          },
        },
      ],
    };
    const exclude = [{ controlName: "Capabilities", images: ["nginx*", "redis*"] }];
    expect(message("baseline", spec, "baseline", exclude)).toBe(
      `Validation rule 'baseline' failed. It violates PodSecurity "baseline:latest": (Forbidden reason: non-default capabilities, field error list: [spec.containers[1].securityContext.capabilities.add is forbidden, forbidden values found: [SYS_ADMIN]])`,
    );
  });

  it("indexes volumes and init containers in their own lists", () => {
    const spec: JsonValue = {
      initContainers: [{ name: "init", image: "busybox", securityContext: { privileged: true } }],
      containers: [{ name: "app", image: "nginx" }],
      volumes: [
        { name: "cfg", configMap: { name: "c" } },
        { name: "host", hostPath: { path: "/var/run" } },
      ],
    };
    expect(message("baseline", spec)).toBe(
      `It violates PodSecurity "baseline:latest": (Forbidden reason: hostPath volumes, field error list: [spec.volumes[1].hostPath is forbidden, forbidden values found: /var/run])(Forbidden reason: privileged, field error list: [spec.initContainers[0].securityContext.privileged is forbidden, forbidden values found: true])`,
    );
  });
});

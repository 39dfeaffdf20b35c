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

// The messages below are the ones shown in Kyverno's documentation of validate.podSecurity.
describe("podSecurityMessage", () => {
  it("words a baseline failure", () => {
    expect(message("baseline", badpod01, "baseline")).toBe(
      `Validation rule 'baseline' failed. It violates PodSecurity "baseline:latest": ({Allowed:false ForbiddenReason:host namespaces ForbiddenDetail:hostIPC=true})`,
    );
  });

  it("lists every failed check on its own line, in upstream order", () => {
    expect(message("restricted", badpod01, "baseline")).toBe(
      [
        `Validation rule 'baseline' failed. It violates PodSecurity "restricted:latest": ({Allowed:false ForbiddenReason:allowPrivilegeEscalation != false ForbiddenDetail:container "container01" must set securityContext.allowPrivilegeEscalation=false})`,
        `({Allowed:false ForbiddenReason:unrestricted capabilities ForbiddenDetail:container "container01" must set securityContext.capabilities.drop=["ALL"]})`,
        `({Allowed:false ForbiddenReason:host namespaces ForbiddenDetail:hostIPC=true})`,
        `({Allowed:false ForbiddenReason:runAsNonRoot != true ForbiddenDetail:pod or container "container01" must set securityContext.runAsNonRoot=true})`,
        `({Allowed:false ForbiddenReason:seccompProfile ForbiddenDetail:pod or container "container01" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"})`,
      ].join("\n"),
    );
  });

  it("words a failure that an image exclusion did not cover", () => {
    const spec = {
      containers: [
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
    expect(message("restricted", spec, "restricted", exclude)).toBe(
      [
        `Validation rule 'restricted' failed. It violates PodSecurity "restricted:latest": ({Allowed:false ForbiddenReason:non-default capabilities ForbiddenDetail:container "container01" must not include "SYS_ADMIN" in securityContext.capabilities.add})`,
        `({Allowed:false ForbiddenReason:unrestricted capabilities ForbiddenDetail:container "container01" must not include "SYS_ADMIN" in securityContext.capabilities.add})`,
      ].join("\n"),
    );
  });

  it("omits the rule prefix without a rule name", () => {
    expect(message("baseline", badpod01)).toBe(
      `It violates PodSecurity "baseline:latest": ({Allowed:false ForbiddenReason:host namespaces ForbiddenDetail:hostIPC=true})`,
    );
  });
});

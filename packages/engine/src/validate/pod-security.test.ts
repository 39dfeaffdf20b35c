import type { JsonObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { podSecurityOutcome } from "./pod-security.js";

const pod = (securityContext: JsonObject, spec: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p" },
  spec: { ...spec, containers: [{ name: "c", image: "nginx", securityContext }] },
});

describe("podSecurityOutcome", () => {
  it("gives a failure upstream's report properties: standard, version and the failed check IDs sorted", () => {
    const out = podSecurityOutcome(
      "baseline",
      { level: "baseline", version: "v1.29" },
      pod({ privileged: true }, { hostNetwork: true }),
      [],
    );
    expect(out.status).toBe("fail");
    expect(out.properties).toEqual({
      standard: "baseline",
      version: "v1.29",
      controls: "hostNamespaces,privileged",
    });
  });

  it("leaves out the checks an exclusion exempts, and has no properties on a pass", () => {
    const excluded = podSecurityOutcome(
      "baseline",
      { level: "baseline" },
      pod({ privileged: true }, { hostNetwork: true }),
      [{ controlName: "Host Namespaces" }],
    );
    expect(excluded.properties).toEqual({ standard: "baseline", version: "latest", controls: "privileged" });
    const passed = podSecurityOutcome("baseline", { level: "baseline" }, pod({}), []);
    expect(passed).toEqual({ status: "pass", message: expect.any(String) });
  });
});

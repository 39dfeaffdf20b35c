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
    expect(out.properties).toMatchObject({
      standard: "baseline",
      version: "v1.29",
      controls: "hostNamespaces,privileged",
    });
  });

  it("lists each failed check in controlsJSON: ID, the images of the containers it names, the reason", () => {
    const out = podSecurityOutcome(
      "restricted",
      { level: "restricted", version: "latest" },
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p" },
        spec: {
          hostNetwork: true,
          initContainers: [
            { name: "init", image: `registry.example.com/tools/init@sha256:${"a".repeat(64)}` },
          ],
          containers: [
            { name: "app", image: "nginx:1.27", securityContext: { privileged: true } },
            { name: "side", image: "busybox", securityContext: { privileged: true } },
          ],
        },
      },
      [],
    );
    const controls = JSON.parse(out.properties?.controlsJSON ?? "[]") as {
      ID: string;
      Images: string[] | null;
      Name: string;
    }[];
    expect(Object.keys(controls[0] ?? {})).toEqual(["ID", "Images", "Name"]);
    const byId = Object.fromEntries(controls.map((c) => [c.ID, c]));
    expect(byId.hostNamespaces).toEqual({ ID: "hostNamespaces", Images: null, Name: "host namespaces" });
    expect(byId.privileged).toEqual({
      ID: "privileged",
      Images: ["docker.io/nginx:1.27", "docker.io/busybox:latest"],
      Name: "privileged",
    });
    expect(byId.allowPrivilegeEscalation?.Images).toEqual([
      `registry.example.com/tools/init@sha256:${"a".repeat(64)}`,
      "docker.io/nginx:1.27",
      "docker.io/busybox:latest",
    ]);
    // The same checks as `controls`, in evaluation order.
    expect(
      controls
        .map((c) => c.ID)
        .sort()
        .join(","),
    ).toBe(out.properties?.controls);
  });

  it("leaves out the checks an exclusion exempts, and has no properties on a pass", () => {
    const excluded = podSecurityOutcome(
      "baseline",
      { level: "baseline" },
      pod({ privileged: true }, { hostNetwork: true }),
      [{ controlName: "Host Namespaces" }],
    );
    expect(excluded.properties).toEqual({
      standard: "baseline",
      version: "latest",
      controls: "privileged",
      controlsJSON: '[{"ID":"privileged","Images":["docker.io/nginx:latest"],"Name":"privileged"}]',
    });
    const passed = podSecurityOutcome("baseline", { level: "baseline" }, pod({}), []);
    expect(passed).toEqual({ status: "pass", message: expect.any(String) });
  });
});

import type { KubeObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { downstreamLabels, inSync } from "./downstream.js";

const desired: KubeObject = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "regcred", namespace: "team-a", labels: { "generate.kyverno.io/rule-name": "r" } },
  data: { token: "b25l" },
};

describe("downstream", () => {
  it("tells drift from server defaults: added Secret keys and changed values are drift, defaults are not", () => {
    const fromServer = {
      ...desired,
      type: "Opaque",
      metadata: { ...desired.metadata, uid: "u", resourceVersion: "3" },
    };
    expect(inSync(fromServer as KubeObject, desired)).toBe(true);
    expect(inSync({ ...fromServer, data: { token: "dHdv" } } as KubeObject, desired)).toBe(false);
    expect(inSync({ ...fromServer, data: { token: "b25l", extra: "eA==" } } as KubeObject, desired)).toBe(
      false,
    );
    const noLabel = { ...fromServer, metadata: { ...fromServer.metadata, labels: {} } };
    expect(inSync(noLabel as KubeObject, desired)).toBe(false);
  });

  it("labels a clone with upstream's source labels and the trigger's name (label values only)", () => {
    const labels = downstreamLabels(
      {
        object: desired,
        labels: {
          "generate.kyverno.io/policy-name": "p",
          "generate.kyverno.io/clone-source": "shared/regcred",
        },
      },
      "team-a",
    );
    expect(labels).toEqual({
      "generate.kyverno.io/policy-name": "p",
      "generate.kyverno.io/trigger-name": "team-a",
      "generate.kyverno.io/source-namespace": "shared",
      "generate.kyverno.io/source-name": "regcred",
      "generate.kyverno.io/source-kind": "Secret",
      "generate.kyverno.io/source-group": "",
      "generate.kyverno.io/source-version": "v1",
    });
    const long = downstreamLabels({ object: desired, labels: {} }, "x".repeat(64));
    expect(long["generate.kyverno.io/trigger-name"]).toBeUndefined();
  });
});

import type { KubeObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import {
  celDesiredObject,
  celDownstreamLabels,
  celPolicySelector,
  createGeneratedKinds,
} from "./cel-generate.js";

const trigger = { apiVersion: "v1", kind: "Namespace", namespace: "", name: "team-a", uid: "u-1" };

describe("GeneratingPolicy downstream", () => {
  it("carries upstream's labels: the policy (and its namespace when namespaced) and the trigger", () => {
    expect(celDownstreamLabels({ name: "defaults", namespace: undefined }, trigger)).toEqual({
      "app.kubernetes.io/managed-by": "kyverno",
      "generate.kyverno.io/policy-name": "defaults",
      "generate.kyverno.io/trigger-kind": "Namespace",
      "generate.kyverno.io/trigger-group": "",
      "generate.kyverno.io/trigger-version": "v1",
      "generate.kyverno.io/trigger-namespace": "",
      "generate.kyverno.io/trigger-name": "team-a",
      "generate.kyverno.io/trigger-uid": "u-1",
    });
    const apps = { ...trigger, apiVersion: "apps/v1", kind: "Deployment", namespace: "prod" };
    expect(celDownstreamLabels({ name: "p", namespace: "prod" }, apps)).toMatchObject({
      "generate.kyverno.io/policy-namespace": "prod",
      "generate.kyverno.io/trigger-group": "apps",
    });
    expect(celPolicySelector({ name: "p", namespace: undefined })).toEqual([
      "generate.kyverno.io/policy-name=p",
      "!generate.kyverno.io/policy-namespace",
      "!generate.kyverno.io/rule-name",
    ]);
  });

  it("writes a clone without the source's server fields, with source labels", () => {
    const source = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "regcred",
        namespace: "team-a",
        uid: "src",
        resourceVersion: "7",
        creationTimestamp: "2026-01-01T00:00:00Z",
        managedFields: [],
        labels: { a: "b" },
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}", keep: "me" },
      },
      data: { token: "eA==" },
    } as unknown as KubeObject;
    expect(celDesiredObject(source, { "generate.kyverno.io/policy-name": "p" })).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "regcred",
        namespace: "team-a",
        labels: {
          a: "b",
          "generate.kyverno.io/source-name": "regcred",
          "generate.kyverno.io/source-kind": "Secret",
          "generate.kyverno.io/source-group": "",
          "generate.kyverno.io/source-version": "v1",
          "generate.kyverno.io/policy-name": "p",
        },
        annotations: { keep: "me" },
      },
      data: { token: "eA==" },
    });
  });

  it("remembers the kinds each policy generated, announcing a kind once", () => {
    const announced: string[] = [];
    const kinds = createGeneratedKinds((k) => announced.push(k.kind));
    kinds.add("GeneratingPolicy/a", { apiVersion: "v1", kind: "ConfigMap" });
    kinds.add("GeneratingPolicy/b", { apiVersion: "v1", kind: "ConfigMap" });
    kinds.add("GeneratingPolicy/a", { apiVersion: "v1", kind: "Secret" });
    expect(announced).toEqual(["ConfigMap", "Secret"]);
    expect(kinds.of("GeneratingPolicy/a").map((k) => k.kind)).toEqual(["ConfigMap", "Secret"]);
    kinds.forget("GeneratingPolicy/a");
    expect(kinds.of("GeneratingPolicy/a")).toEqual([]);
  });
});

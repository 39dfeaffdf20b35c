import type { JsonObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { builtinResources } from "../registry/builtins.js";
import type { ResourceType } from "../registry/types.js";
import { admitPodServiceAccount } from "./service-account-admission.js";
import { toStoredForm } from "./stored-form.js";

const resource = (kind: string): ResourceType => {
  const found = builtinResources().find((r) => r.kind === kind);
  if (found === undefined) throw new Error(`no built-in ${kind}`);
  return found;
};

describe("the stored form of built-in objects", () => {
  it("drops empty omitempty lists and maps, keeps structs, nulls and lists without omitempty", () => {
    const pod: JsonObject = {
      metadata: { name: "p", labels: {}, annotations: null },
      spec: {
        containers: [{ name: "c", env: [], resources: { limits: {} }, securityContext: {} }],
        volumes: [],
        nodeSelector: {},
        tolerations: [],
      },
    };
    expect(toStoredForm(resource("Pod"), pod)).toEqual({
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", resources: {}, securityContext: {} }] },
    });
    // The input is not changed (stored objects are shared with watch history).
    expect((pod.spec as JsonObject).volumes).toEqual([]);
    const role = { metadata: { name: "r" }, rules: [] };
    expect(toStoredForm(resource("ClusterRole"), role)).toEqual(role);
    const template = { metadata: { creationTimestamp: null }, spec: { containers: [] } };
    const deployment = { spec: { selector: {}, strategy: {}, template } };
    expect(toStoredForm(resource("Deployment"), deployment)).toEqual(deployment);
    expect(toStoredForm(resource("Service"), { spec: { selector: {}, ports: [] } })).toEqual({ spec: {} });
  });

  it("keeps serviceAccount equal to serviceAccountName in Pods and Pod templates", () => {
    const cronJob = {
      spec: { jobTemplate: { spec: { template: { spec: { serviceAccount: "old", containers: [] } } } } },
    };
    const stored = toStoredForm(resource("CronJob"), cronJob);
    expect(stored).toMatchObject({
      spec: {
        jobTemplate: {
          spec: { template: { spec: { serviceAccount: "old", serviceAccountName: "old" } } },
        },
      },
    });
    const pod = { spec: { serviceAccountName: "new", serviceAccount: "old", containers: [] } };
    expect(toStoredForm(resource("Pod"), pod).spec).toMatchObject({
      serviceAccountName: "new",
      serviceAccount: "new",
    });
  });

  it("reuses a kube-api-access volume already there and leaves mirror Pods alone", () => {
    const lookup = { serviceAccount: () => ({}), nameSuffix: () => "zzzzz" };
    const pod: JsonObject = {
      spec: {
        volumes: [{ name: "kube-api-access-abcde", emptyDir: {} }],
        containers: [{ name: "c" }],
      },
    };
    expect(admitPodServiceAccount(pod, "ns", lookup)).toBeUndefined();
    expect(pod.spec).toEqual({
      serviceAccountName: "default",
      volumes: [{ name: "kube-api-access-abcde", emptyDir: {} }],
      containers: [
        {
          name: "c",
          volumeMounts: [
            {
              name: "kube-api-access-abcde",
              readOnly: true,
              mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
            },
          ],
        },
      ],
    });
    const mirror: JsonObject = {
      metadata: { annotations: { "kubernetes.io/config.mirror": "x" } },
      spec: { containers: [{ name: "c" }] },
    };
    expect(admitPodServiceAccount(mirror, "ns", { ...lookup, serviceAccount: () => undefined })).toBe(
      undefined,
    );
    expect(mirror.spec).toEqual({ containers: [{ name: "c" }] });
  });
});

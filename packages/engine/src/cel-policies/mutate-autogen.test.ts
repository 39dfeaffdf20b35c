import type { CelPolicy, JsonValue, KubeObject } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { createCelEngine } from "./engine.js";
import { nestUnderTemplate } from "./mutations.js";

const podSpec = { containers: [{ name: "app", image: "nginx" }] };

function mpol(mutation: Record<string, unknown>, autogen?: Record<string, unknown>): CelPolicy {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name: "add-labels" },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] },
        ],
      },
      mutations: [mutation],
      ...(autogen ? { autogen } : {}),
    },
  } as unknown as CelPolicy;
}

const APPLY = {
  patchType: "ApplyConfiguration",
  applyConfiguration: {
    expression:
      "Object{metadata: Object.metadata{labels: {'team': 'shop'}}, spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, imagePullPolicy: 'Always'})}}",
  },
};

function mutate(policy: CelPolicy, resource: KubeObject): JsonValue | undefined {
  const engine = createCelEngine();
  const compiled = engine.compile(policy);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.issues));
  return engine.mutate(compiled.policy, { resource, operation: "CREATE" }).patchedResource;
}

describe("MutatingPolicy autogen", () => {
  it("mutates the Pod template of a Deployment as it mutates a Pod", () => {
    const deployment: KubeObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop" },
      spec: { selector: {}, template: { metadata: { labels: { app: "web" } }, spec: podSpec } },
    };
    expect(mutate(mpol(APPLY), deployment)).toMatchObject({
      metadata: { name: "web" },
      spec: {
        template: {
          metadata: { labels: { app: "web", team: "shop" } },
          spec: { containers: [{ name: "app", image: "nginx", imagePullPolicy: "Always" }] },
        },
      },
    });
    const pod: KubeObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: podSpec };
    expect(mutate(mpol(APPLY), pod)).toMatchObject({
      metadata: { labels: { team: "shop" } },
      spec: { containers: [{ imagePullPolicy: "Always" }] },
    });
  });

  it("moves JSON patch paths under a CronJob's job template, and follows autogen.podControllers", () => {
    const jsonPatch = {
      patchType: "JSONPatch",
      jsonPatch: {
        expression:
          "[JSONPatch{op: 'add', path: '/metadata/annotations', value: {'owner': object.spec.containers[0].name}}]",
      },
    };
    const cronJob: KubeObject = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "nightly" },
      spec: { schedule: "0 0 * * *", jobTemplate: { spec: { template: { metadata: {}, spec: podSpec } } } },
    };
    expect(mutate(mpol(jsonPatch), cronJob)).toMatchObject({
      spec: { jobTemplate: { spec: { template: { metadata: { annotations: { owner: "app" } } } } } },
    });
    // Only the controllers listed get variants.
    const onlyDeployments = mpol(jsonPatch, { podControllers: { controllers: ["deployments"] } });
    expect(mutate(onlyDeployments, cronJob)).toBeUndefined();
  });

  it("leaves the policy's own patches as they are", () => {
    const patch: JsonValue = [{ op: "add", path: "/spec/x", value: 1 }];
    expect(nestUnderTemplate(patch, "JSONPatch", "")).toBe(patch);
    expect(nestUnderTemplate(patch, "JSONPatch", "autogen")).toEqual([
      { op: "add", path: "/spec/template/spec/x", value: 1 },
    ]);
  });
});

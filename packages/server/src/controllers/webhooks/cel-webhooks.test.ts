import { type CelPolicy, type JsonValue, loadCelPolicy } from "@kyverno-ts/api";
import { createCelEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { andSelectors, celWebhookRules, celWebhooks, webhookCondition } from "./cel-webhooks.js";

function celPolicy(kind: string, name: string, spec: Record<string, unknown>): CelPolicy {
  const loaded = loadCelPolicy(
    { apiVersion: "policies.kyverno.io/v1", kind, metadata: { name }, spec } as JsonValue,
    { file: "test" },
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

const rules = (resources: string[], group = "", operations = ["CREATE", "UPDATE"]) => ({
  resourceRules: [{ apiGroups: [group], apiVersions: ["v1"], operations, resources }],
});
const validations = [{ expression: "true" }];

const inputs = {
  clientConfig: (path: string) => ({ url: `https://127.0.0.1:9443${path}`, caBundle: "CA" }),
  defaultTimeoutSeconds: 10,
  namespaceSelector: {},
  objectSelector: {},
  clampTimeout: (s: number) => Math.min(30, Math.max(1, s)),
};

function webhooksOf(...policies: CelPolicy[]) {
  const store = createCelPolicyStore({ engine: createCelEngine() });
  for (const p of policies) store.set(p);
  return celWebhooks(store.policies(), inputs);
}

describe("CEL webhooks", () => {
  it("registers vpol/mpol webhooks per failure policy with the policies' rules, Pod controllers for autogen", () => {
    const { validating, mutating } = webhooksOf(
      celPolicy("ValidatingPolicy", "pods", { matchConstraints: rules(["pods"]), validations }),
      celPolicy("ValidatingPolicy", "services", {
        failurePolicy: "Ignore",
        matchConstraints: rules(["services"]),
        validations,
      }),
      celPolicy("MutatingPolicy", "cm", {
        reinvocationPolicy: "IfNeeded",
        matchConstraints: rules(["configmaps"], "", ["CREATE"]),
        mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: "[]" } }],
      }),
    );
    expect(validating.map((w) => [w.name, w.clientConfig.url, w.failurePolicy])).toEqual([
      ["vpol.validate.kyverno.svc-fail", "https://127.0.0.1:9443/vpol/fail", "Fail"],
      ["vpol.validate.kyverno.svc-ignore", "https://127.0.0.1:9443/vpol/ignore", "Ignore"],
    ]);
    expect(validating[0]?.rules.map((r) => `${r.apiGroups[0]}:${r.resources.join(",")}`)).toEqual([
      ":pods",
      "apps:daemonsets,deployments,replicasets,statefulsets",
      "batch:cronjobs,jobs",
    ]);
    expect(mutating).toMatchObject([
      {
        name: "mpol.mutate.kyverno.svc-fail",
        clientConfig: { url: "https://127.0.0.1:9443/mpol/fail" },
        reinvocationPolicy: "IfNeeded",
        rules: [{ apiGroups: [""], resources: ["configmaps"], operations: ["CREATE"] }],
      },
    ]);
  });

  it("gives a policy with its own timeout a fine-grained webhook, and leaves out policies admission skips", () => {
    const { validating } = webhooksOf(
      celPolicy("ValidatingPolicy", "slow", {
        webhookConfiguration: { timeoutSeconds: 25 },
        matchConstraints: rules(["services"]),
        validations,
      }),
      celPolicy("ValidatingPolicy", "background-only", {
        evaluation: { admission: { enabled: false } },
        matchConstraints: rules(["services"]),
        validations,
      }),
    );
    expect(validating.map((w) => [w.name, w.clientConfig.url, w.timeoutSeconds])).toEqual([
      [
        "vpol.validate.kyverno.svc-fail-finegrained-slow",
        "https://127.0.0.1:9443/vpol/fail/finegrained/slow",
        25,
      ],
    ]);
  });

  it("merges rules by group, version and operations; no operations means every operation", () => {
    expect(
      celWebhookRules([
        { apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"], operations: ["CREATE"] },
        { apiGroups: ["apps"], apiVersions: ["v1"], resources: ["statefulsets"], operations: ["CREATE"] },
        { apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
      ]),
    ).toEqual([
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["pods"],
        operations: ["CREATE", "UPDATE", "DELETE", "CONNECT"],
        scope: "*",
      },
      {
        apiGroups: ["apps"],
        apiVersions: ["v1"],
        resources: ["deployments", "statefulsets"],
        operations: ["CREATE"],
        scope: "*",
      },
    ]);
  });
});

describe("GeneratingPolicy webhooks", () => {
  it("registers gpol.validate.kyverno.svc-* on /gpol, with DELETE for a synchronized policy", () => {
    const generate = [{ expression: "generator.Apply('a', [])" }];
    const { validating } = webhooksOf(
      celPolicy("GeneratingPolicy", "ns", {
        evaluation: { synchronize: { enabled: true } },
        matchConstraints: rules(["namespaces"], "", ["CREATE"]),
        generate,
      }),
      celPolicy("GeneratingPolicy", "cm", {
        matchConstraints: rules(["configmaps"], "", ["CREATE"]),
        generate,
      }),
    );
    expect(validating).toMatchObject([
      {
        name: "gpol.validate.kyverno.svc-fail",
        clientConfig: { url: "https://127.0.0.1:9443/gpol/fail" },
        rules: [
          { resources: ["configmaps"], operations: ["CREATE"] },
          { resources: ["namespaces"], operations: ["CREATE", "DELETE"] },
        ],
      },
    ]);
  });

  it("registers a policy with matchConditions on a webhook of its own carrying its conditions, match policy and selectors", () => {
    const configured = {
      ...inputs,
      namespaceSelector: {
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
        ],
      },
    };
    const store = createCelPolicyStore({ engine: createCelEngine() });
    store.set(
      celPolicy("ValidatingPolicy", "team-services", {
        matchConstraints: {
          ...rules(["services"]),
          matchPolicy: "Exact",
          namespaceSelector: { matchLabels: { team: "a" } },
          objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
        },
        matchConditions: [
          { name: "not-kubelet", expression: "!('system:nodes' in request.userInfo.groups)" },
          { name: "namespace-label", expression: "namespaceObject.metadata.name != 'x'" },
        ],
        validations,
      }),
    );
    store.set(
      celPolicy("ValidatingPolicy", "plain", { matchConstraints: rules(["configmaps"]), validations }),
    );
    const { validating } = celWebhooks(store.policies(), configured);
    expect(validating.map((w) => w.name)).toEqual([
      "vpol.validate.kyverno.svc-fail",
      "vpol.validate.kyverno.svc-fail-finegrained-team-services",
    ]);
    const [shared, own] = validating;
    expect(shared?.rules.flatMap((r) => r.resources)).toEqual(["configmaps"]);
    expect(shared?.matchConditions).toBeUndefined();
    expect(shared?.namespaceSelector).toEqual(configured.namespaceSelector);
    expect(own).toMatchObject({
      clientConfig: { url: "https://127.0.0.1:9443/vpol/fail/finegrained/team-services" },
      rules: [{ resources: ["services"] }],
      timeoutSeconds: 10,
      matchPolicy: "Exact",
      // The condition over namespaceObject is the engine's: the API server cannot bind it.
      matchConditions: [{ name: "not-kubelet", expression: "!('system:nodes' in request.userInfo.groups)" }],
      namespaceSelector: {
        matchLabels: { team: "a" },
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
        ],
      },
      objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
    });
    // Admission on the shared path no longer evaluates it; its own path does.
    expect(store.select({ type: "validate", namespace: "a" }).map((p) => p.compiled.name)).toEqual(["plain"]);
    expect(store.select({ type: "validate", namespace: "a", name: "team-services" })).toHaveLength(1);
  });

  it("lets requests for the Pod controllers autogen added through a policy's match conditions (the engine checks the variants')", () => {
    const { validating } = webhooksOf(
      celPolicy("ValidatingPolicy", "pods", {
        matchConstraints: rules(["pods"]),
        matchConditions: [{ name: "labelled", expression: "has(object.metadata.labels)" }],
        validations,
      }),
    );
    expect(validating.map((w) => w.name)).toEqual(["vpol.validate.kyverno.svc-fail-finegrained-pods"]);
    expect(validating[0]?.matchConditions).toEqual([
      {
        name: "labelled",
        expression:
          "request.resource.resource in ['cronjobs', 'daemonsets', 'deployments', 'jobs', 'replicasets', 'statefulsets'] || (has(object.metadata.labels))",
      },
    ]);
  });

  it("lets DELETE through a synchronized GeneratingPolicy's conditions (added for it; object is null then)", () => {
    const { validating } = webhooksOf(
      celPolicy("GeneratingPolicy", "companion", {
        evaluation: { synchronize: { enabled: true } },
        matchConstraints: rules(["configmaps"], "", ["CREATE"]),
        matchConditions: [{ name: "apps", expression: "object.metadata.name.startsWith('app-')" }],
        generate: [{ expression: "generator.Apply(object.metadata.namespace, [])" }],
      }),
    );
    expect(validating.map((w) => [w.name, w.rules[0]?.operations])).toEqual([
      ["gpol.validate.kyverno.svc-fail-finegrained-companion", ["CREATE", "DELETE"]],
    ]);
    expect(validating[0]?.matchConditions).toEqual([
      {
        name: "apps",
        expression: "request.operation == 'DELETE' || (object.metadata.name.startsWith('app-'))",
      },
    ]);
  });

  it("keeps only conditions the API server can evaluate", () => {
    expect(webhookCondition("object.spec.containers.all(c, c.image.startsWith('registry/'))")).toBe(true);
    expect(webhookCondition("request.userInfo.username != 'admin'")).toBe(true);
    expect(webhookCondition("object.metadata.name != 'variables.x'")).toBe(true);
    expect(webhookCondition("variables.enabled")).toBe(false);
    expect(webhookCondition("namespaceObject.metadata.labels.team == 'a'")).toBe(false);
    expect(webhookCondition("resource.Get('v1', 'configmaps', 'a', 'b').data.x == 'y'")).toBe(false);
  });

  it("ANDs the configured selector with the policy's; conflicting labels select nothing", () => {
    expect(andSelectors({ matchLabels: { a: "1" } }, { matchLabels: { b: "2" } })).toEqual({
      matchLabels: { a: "1", b: "2" },
    });
    expect(andSelectors({ matchLabels: { a: "1" } }, { matchLabels: { a: "2" } })).toEqual({
      matchLabels: { a: "1" },
      matchExpressions: [{ key: "a", operator: "In", values: ["2"] }],
    });
    expect(andSelectors({}, {})).toEqual({});
  });
});

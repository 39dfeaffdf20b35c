import { type CelPolicy, type JsonValue, loadCelPolicy } from "@kyverno-ts/api";
import { createCelEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import { celWebhookRules, celWebhooks } from "./cel-webhooks.js";

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
});

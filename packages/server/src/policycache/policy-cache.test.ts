import { createEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { createAdmissionMetrics } from "../metrics/metrics.js";
import { exception, podValidatePolicy, policy } from "../testing/fixtures.js";
import { createPolicyCache } from "./policy-cache.js";

const engine = createEngine();

function validatePolicy(
  name: string,
  resources: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return policy({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name, ...((extra.metadata as object) ?? {}) },
    spec: {
      ...((extra.spec as object) ?? {}),
      rules: [
        {
          name: "r",
          match: { any: [{ resources: resources as never }] },
          validate: { message: "m", pattern: { metadata: { labels: { app: "?*" } } } },
        },
      ],
    },
  });
}

const query = (
  kind: string | undefined,
  extra: Partial<Parameters<ReturnType<typeof createPolicyCache>["select"]>[0]> = {},
) => ({
  type: "validate" as const,
  kind,
  namespace: "default",
  operation: "CREATE" as const,
  ...extra,
});

describe("policy cache index", () => {
  it("selects policies by kind, including the controllers autogen adds", () => {
    const cache = createPolicyCache({ engine });
    cache.set(podValidatePolicy({ name: "pods" }));
    cache.set(validatePolicy("services", { kinds: ["v1/Service"] }));
    const keys = (kind: string) => cache.select(query(kind)).map((p) => p.key);
    expect(keys("Pod")).toEqual(["pods"]);
    expect(keys("Deployment")).toEqual(["pods"]);
    expect(keys("CronJob")).toEqual(["pods"]);
    expect(keys("Service")).toEqual(["services"]);
    expect(keys("ConfigMap")).toEqual([]);
    expect(cache.select(query(undefined)).map((p) => p.key)).toEqual(["pods", "services"]);
  });

  it("puts wildcard kinds in every bucket, and does not grow for unknown kinds", () => {
    const cache = createPolicyCache({ engine });
    const foreground = { spec: { background: false } };
    cache.set(validatePolicy("everything", { kinds: ["*"] }, foreground));
    cache.set(validatePolicy("scale", { kinds: ["*/scale"] }, foreground));
    cache.set(
      validatePolicy(
        "pods",
        { kinds: ["Pod"] },
        { metadata: { annotations: { "pod-policies.kyverno.io/autogen-controllers": "none" } } },
      ),
    );
    expect(cache.select(query("Pod")).map((p) => p.key)).toEqual(["everything", "pods", "scale"]);
    expect(cache.select(query("Anything")).map((p) => p.key)).toEqual(["everything", "scale"]);
    expect(cache.select(query("Deployment")).map((p) => p.key)).toEqual(["everything", "scale"]);
  });

  it("filters by operation, by namespace for namespaced Policies, and by failure policy", () => {
    const cache = createPolicyCache({ engine });
    cache.set(validatePolicy("on-delete", { kinds: ["Pod"], operations: ["DELETE"] }));
    cache.set(
      policy({
        apiVersion: "kyverno.io/v1",
        kind: "Policy",
        metadata: { name: "team", namespace: "team-a" },
        spec: {
          failurePolicy: "Ignore",
          rules: [{ name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate: { deny: {} } }],
        },
      }),
    );
    expect(cache.select(query("Pod")).map((p) => p.key)).toEqual([]);
    expect(cache.select(query("Pod", { operation: "DELETE" })).map((p) => p.key)).toEqual(["on-delete"]);
    expect(cache.select(query("Pod", { namespace: "team-a" })).map((p) => p.key)).toEqual(["team-a/team"]);
    expect(cache.select(query("Pod", { namespace: "team-a", failurePolicy: "Fail" }))).toEqual([]);
    expect(
      cache.select(query("Pod", { namespace: "team-a", failurePolicy: "Ignore" })).map((p) => p.key),
    ).toEqual(["team-a/team"]);
  });

  it("indexes by rule type and leaves out admission: false policies", () => {
    const cache = createPolicyCache({ engine });
    cache.set(validatePolicy("background-only", { kinds: ["Pod"] }, { spec: { admission: false } }));
    cache.set(
      policy({
        apiVersion: "kyverno.io/v1",
        kind: "ClusterPolicy",
        metadata: { name: "label" },
        spec: {
          rules: [
            {
              name: "r",
              match: { any: [{ resources: { kinds: ["Pod"] } }] },
              mutate: { patchStrategicMerge: { metadata: { labels: { a: "b" } } } },
            },
          ],
        },
      }),
    );
    expect(cache.select(query("Pod")).map((p) => p.key)).toEqual([]);
    expect(cache.select(query("Pod", { type: "mutate" })).map((p) => p.key)).toEqual(["label"]);
  });

  it("replaces and deletes policies, and reports compile errors as not ready", async () => {
    const metrics = createAdmissionMetrics({ version: "test" });
    const cache = createPolicyCache({ engine, metrics });
    expect(cache.set(podValidatePolicy({ name: "p" })).autogenRules).toContain("autogen-check-privileged");
    const broken = podValidatePolicy({
      name: "p",
      deny: {
        conditions: {
          any: [{ key: "{{ request.object | bogus_function(@) }}", operator: "Equals", value: 1 }],
        },
      },
    });
    const status = cache.set(broken);
    expect(status.ready).toBe(false);
    expect(status.message).toMatch(
      /^spec\.rules\[0\]\.validate\.deny\.conditions\.any\[0\]\.key: invalid JMESPath expression/,
    );
    expect(cache.select(query("Pod"))).toEqual([]);
    expect(cache.status("p")?.ready).toBe(false);
    const text = await metrics.render();
    expect(text).toContain(
      'kyverno_policy_changes_total{policy_validation_mode="enforce",policy_type="cluster",policy_background_mode="true",policy_namespace="-",policy_name="p",policy_change_type="create"} 1',
    );
    expect(text).toContain('policy_change_type="update"} 1');
    expect(text).toMatch(
      /kyverno_policy_rule_info_total\{[^}]*status_ready="false"[^}]*rule_name="check-privileged"[^}]*\} 1/,
    );
    expect(text).not.toContain('status_ready="true"');
    expect(cache.delete("p")).toBe(true);
    expect(cache.delete("p")).toBe(false);
    expect(await metrics.render()).not.toContain("kyverno_policy_rule_info_total{");
  });

  it("keeps a policy with verifyImages or validate.manifests rules evaluated but not ready, naming the rules (validate.cel is evaluated)", async () => {
    const metrics = createAdmissionMetrics({ version: "test" });
    const cache = createPolicyCache({ engine, metrics });
    const status = cache.set(
      policy({
        apiVersion: "kyverno.io/v1",
        kind: "ClusterPolicy",
        metadata: { name: "verify-signed" },
        spec: {
          validationFailureAction: "Enforce",
          rules: [
            {
              name: "verify-signature",
              match: { any: [{ resources: { kinds: ["Pod"] } }] },
              verifyImages: [{ imageReferences: ["ghcr.io/acme/*"], attestors: [] }],
            },
            {
              name: "cel",
              match: { any: [{ resources: { kinds: ["Pod"] } }] },
              validate: { cel: { expressions: [{ expression: "true" }] } },
            },
            {
              name: "signed-manifest",
              match: { any: [{ resources: { kinds: ["Pod"] } }] },
              validate: { manifests: { attestors: [{ entries: [{ keys: { publicKeys: "k" } }] }] } },
            },
          ],
        },
      }),
    );
    expect(status.ready).toBe(false);
    expect(status.message).toBe(
      "rule verify-signature: verifyImages is not supported by kyverno-ts yet (image signatures and attestations are not verified): the rule reports an error instead of a result; " +
        "rule signed-manifest: validate.manifests is not supported by kyverno-ts yet (manifest signatures are not verified): the rule reports an error instead of a result",
    );
    // Still evaluated by the validate webhook, where its rules answer `error`, never a pass.
    expect(cache.select(query("Pod")).map((p) => p.key)).toEqual(["verify-signed"]);
    const info = (await metrics.render()).split("\n").find((l) => l.includes('rule_name="verify-signature"'));
    expect(info).toContain('status_ready="false"');
    expect(info).toContain('rule_type="imageVerify"');
  });

  it("pre-selects the PolicyExceptions naming a policy (wildcards included)", () => {
    const cache = createPolicyCache({ engine });
    cache.set(podValidatePolicy({ name: "disallow-privileged" }));
    const ex = (name: string, policyName: string) =>
      exception({
        apiVersion: "kyverno.io/v2",
        kind: "PolicyException",
        metadata: { name, namespace: "default" },
        spec: {
          exceptions: [{ policyName, ruleNames: ["*"] }],
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
        },
      });
    cache.setExceptions([ex("a", "disallow-*"), ex("b", "other")]);
    const p = cache.get("disallow-privileged");
    expect(p && cache.exceptionsFor(p).map((e) => e.metadata.name)).toEqual(["a"]);
    cache.setException(ex("c", "disallow-privileged"));
    expect(p && cache.exceptionsFor(p).map((e) => e.metadata.name)).toEqual(["a", "c"]);
    expect(cache.deleteException("default/a")).toBe(true);
    expect(p && cache.exceptionsFor(p).map((e) => e.metadata.name)).toEqual(["c"]);
  });
});

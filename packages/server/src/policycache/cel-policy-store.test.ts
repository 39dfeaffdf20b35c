import {
  type CelPolicy,
  type CelPolicyException,
  type JsonValue,
  loadCelPolicy,
  loadCelPolicyException,
} from "@kyverno-ts/api";
import { createCelEngine } from "@kyverno-ts/engine";
import { describe, expect, it } from "vitest";
import { createCelPolicyStore, isCelPolicyKey } from "./cel-policy-store.js";

function celPolicy(kind: string, name: string, spec: Record<string, unknown>, namespace?: string): CelPolicy {
  const loaded = loadCelPolicy(
    {
      apiVersion: "policies.kyverno.io/v1",
      kind,
      metadata: { name, ...(namespace ? { namespace } : {}) },
      spec,
    } as JsonValue,
    { file: "test" },
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

function celException(name: string, policy: string): CelPolicyException {
  const loaded = loadCelPolicyException(
    {
      apiVersion: "policies.kyverno.io/v1",
      kind: "PolicyException",
      metadata: { name, namespace: "kyverno" },
      spec: {
        policyRefs: [{ name: policy, kind: "ValidatingPolicy" }],
        matchConditions: [{ name: "debug", expression: "object.metadata.name == 'debug'" }],
      },
    } as JsonValue,
    { file: "test" },
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
};
const deny = (expression: string) => ({
  validationActions: ["Deny"],
  matchConstraints: podRules,
  validations: [{ expression, message: "no" }],
});
const pod = (name: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "shop" } });

describe("CEL policy store", () => {
  it("keys policies by kind, so a ValidatingPolicy and a MutatingPolicy may share a name", () => {
    const store = createCelPolicyStore({ engine: createCelEngine() });
    store.set(celPolicy("ValidatingPolicy", "p", deny("true")));
    store.set(celPolicy("NamespacedValidatingPolicy", "p", deny("true"), "shop"));
    expect(store.policies().map((p) => p.key)).toEqual([
      "NamespacedValidatingPolicy/shop/p",
      "ValidatingPolicy/p",
    ]);
    expect(isCelPolicyKey("ValidatingPolicy/p")).toBe(true);
    expect(isCelPolicyKey("shop/p")).toBe(false);
    expect(store.select({ type: "validate", namespace: "other" }).map((p) => p.key)).toEqual([
      "ValidatingPolicy/p",
    ]);
  });

  it("keeps a policy that does not compile out, with each issue once (not again per autogen variant)", () => {
    const store = createCelPolicyStore({ engine: createCelEngine() });
    const status = store.set(celPolicy("ValidatingPolicy", "broken", deny("object.metadata.name == ")));
    expect(status.ready).toBe(false);
    expect(status.issues).toHaveLength(1);
    expect(status.message).toMatch(/^spec\.validations\[0\]\.expression: .*1:22/);
    expect(store.get("ValidatingPolicy/broken")).toBeUndefined();
  });

  it("says a GeneratingPolicy is Ready: the background controller processes it", () => {
    const store = createCelPolicyStore({ engine: createCelEngine() });
    const status = store.set(
      celPolicy("GeneratingPolicy", "gen", {
        matchConstraints: podRules,
        generate: [{ expression: "true" }],
      }),
    );
    expect(status).toMatchObject({ ready: true, message: "Ready" });
  });

  it("says a DeletingPolicy is Ready: the cleanup controller runs it", () => {
    const store = createCelPolicyStore({ engine: createCelEngine() });
    const status = store.set(
      celPolicy("DeletingPolicy", "old-pods", {
        matchConstraints: podRules,
        conditions: [{ name: "old", expression: "true" }],
        schedule: "*/5 * * * *",
      }),
    );
    expect(status).toMatchObject({ ready: true, message: "Ready" });
  });

  it("recompiles the policies a CEL PolicyException names when it comes and goes", () => {
    const engine = createCelEngine();
    const store = createCelPolicyStore({ engine });
    store.set(celPolicy("ValidatingPolicy", "no-debug", deny("false")));
    const statusOf = () => {
      const p = store.get("ValidatingPolicy/no-debug");
      if (p === undefined) throw new Error("not stored");
      return engine.validate(p.compiled, { resource: pod("debug"), operation: "CREATE" }).rules[0]?.status;
    };
    expect(statusOf()).toBe("fail");
    store.setException(celException("allow-debug", "no-debug"));
    expect(statusOf()).toBe("skip");
    store.deleteException("kyverno/allow-debug");
    expect(statusOf()).toBe("fail");
  });
});

import { describe, expect, it } from "vitest";
import { readWebhooks } from "./config.js";
import { configuration } from "./testing/attrs.js";

describe("readWebhooks", () => {
  it("applies the admissionregistration/v1 defaults", () => {
    const [hook] = readWebhooks([
      configuration("Validating", "c", [{ name: "w", clientConfig: { url: "https://x" } }]),
    ]);
    expect(hook).toEqual({
      uid: "c/w/0",
      configurationName: "c",
      name: "w",
      clientConfig: { url: "https://x" },
      rules: [],
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      namespaceSelector: {},
      objectSelector: {},
      matchConditions: [],
      sideEffects: undefined,
      timeoutSeconds: 10,
      admissionReviewVersions: [],
      reinvocationPolicy: "Never",
    });
  });

  it("reads rules, service references and clamps timeouts to 1..30", () => {
    const [a, b] = readWebhooks([
      configuration("Mutating", "c", [
        {
          name: "a",
          timeoutSeconds: 45,
          clientConfig: { service: { namespace: "ns", name: "svc" }, caBundle: "Q0E=" },
          rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
        },
        { name: "b", timeoutSeconds: 0, failurePolicy: "Ignore", reinvocationPolicy: "IfNeeded" },
      ]),
    ]);
    expect(a?.timeoutSeconds).toBe(30);
    expect(a?.clientConfig).toEqual({
      service: { namespace: "ns", name: "svc", port: 443 },
      caBundle: "Q0E=",
    });
    expect(a?.rules).toEqual([
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], scope: "*" },
    ]);
    expect(b).toMatchObject({ timeoutSeconds: 1, failurePolicy: "Ignore", reinvocationPolicy: "IfNeeded" });
  });

  it("orders by configuration name, then webhook order", () => {
    const hooks = readWebhooks([
      configuration("Mutating", "b", [{ name: "b1" }, { name: "b2" }]),
      configuration("Mutating", "a", [{ name: "a1" }]),
      "not an object",
    ]);
    expect(hooks.map((hook) => hook.uid)).toEqual(["a/a1/0", "b/b1/0", "b/b2/1"]);
  });
});

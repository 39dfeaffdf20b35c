import { describe, expect, it } from "vitest";
import { createVariables, parseSetFlags } from "./variables.js";

describe("variables", () => {
  const vars = createVariables(
    {
      globalValues: { "request.mode": "dev", shared: 1 },
      policies: [
        {
          name: "p",
          rules: [{ name: "r", values: { "cm.data.x": "y" } }],
          resources: [
            { name: "prod-pod", values: { "request.mode": "prod", "request.operation": "UPDATE" } },
          ],
        },
      ],
      namespaceSelector: [{ name: "ns1", labels: { team: "a" } }],
      namespaces: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns2", labels: { team: "b" } } }],
    },
    { shared: "from-set" },
  );

  it("layers global, per-resource and --set values and defaults request.operation", () => {
    expect(vars.forResource("p", "prod-pod")).toEqual({
      "request.mode": "prod",
      "request.operation": "UPDATE",
      shared: "from-set",
    });
    expect(vars.forResource("p", "other")).toEqual({
      "request.mode": "dev",
      shared: "from-set",
      "request.operation": "CREATE",
    });
  });

  it("looks rule values up by exact rule name", () => {
    expect(vars.forRule("p", "r")).toEqual({ "cm.data.x": "y" });
    expect(vars.forRule("p", "autogen-r")).toBeUndefined();
  });

  it("takes namespace labels from namespaceSelector and namespaces", () => {
    expect(vars.namespaceLabels("ns1")).toEqual({ team: "a" });
    expect(vars.namespaceLabels("ns2")).toEqual({ team: "b" });
    expect(vars.namespaceLabels("ns3")).toBeUndefined();
  });

  it("parses --set items", () => {
    expect(parseSetFlags(["a=1,b=x=y", "c=3"])).toEqual({ ok: true, value: { a: "1", b: "x=y", c: "3" } });
    expect(parseSetFlags(["oops"]).ok).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { intOrPercent, matches, templateHash } from "./objects.js";

describe("workload helpers", () => {
  it("matches labels against matchLabels and every matchExpressions operator", () => {
    const labels = { app: "web", tier: "front" };
    expect(matches({ matchLabels: { app: "web" } }, labels)).toBe(true);
    expect(matches({ matchLabels: { app: "db" } }, labels)).toBe(false);
    expect(
      matches({ matchExpressions: [{ key: "tier", operator: "In", values: ["front", "back"] }] }, labels),
    ).toBe(true);
    expect(
      matches({ matchExpressions: [{ key: "tier", operator: "NotIn", values: ["front"] }] }, labels),
    ).toBe(false);
    expect(matches({ matchExpressions: [{ key: "zone", operator: "Exists" }] }, labels)).toBe(false);
    expect(matches({ matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] }, labels)).toBe(true);
  });

  it("rounds surge up and unavailability down, as the Deployment controller", () => {
    expect(intOrPercent("40%", 2, "25%", false)).toBe(0);
    expect(intOrPercent("40%", 3, "25%", false)).toBe(1);
    expect(intOrPercent("25%", 3, "25%", true)).toBe(1);
    expect(intOrPercent(undefined, 4, "25%", true)).toBe(1);
    expect(intOrPercent(2, 10, "25%", true)).toBe(2);
  });

  it("hashes a template stably and differently per template", () => {
    const a = { spec: { containers: [{ name: "c", image: "a" }] } };
    expect(templateHash(a)).toBe(templateHash(structuredClone(a)));
    expect(templateHash(a)).not.toBe(templateHash({ spec: { containers: [{ name: "c", image: "b" }] } }));
    expect(templateHash(a)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{10}$/);
    // The same template with keys in another order (as `kubectl rollout undo` writes it back).
    const reordered = JSON.parse(
      '{"spec":{"containers":[{"image":"a","name":"c","resources":{}}]},"metadata":{"creationTimestamp":null}}',
    ) as typeof a;
    expect(templateHash(reordered)).toBe(templateHash(a));
  });
});

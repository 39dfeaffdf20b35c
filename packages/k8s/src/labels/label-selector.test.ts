import type { LabelSelector } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { matchLabelSelector } from "./label-selector.js";

const labels = { app: "nginx", tier: "frontend" };

describe("matchLabelSelector (Kubernetes)", () => {
  it.each<[string, LabelSelector, boolean]>([
    ["the empty selector selects everything", {}, true],
    ["matchLabels equal", { matchLabels: { app: "nginx" } }, true],
    ["matchLabels all must hold", { matchLabels: { app: "nginx", tier: "backend" } }, false],
    ["a * value is a literal, not a wildcard", { matchLabels: { app: "ng*" } }, false],
    ["a * key is a literal, not a wildcard", { matchLabels: { "*": "nginx" } }, false],
    ["In", { matchExpressions: [{ key: "tier", operator: "In", values: ["frontend"] }] }, true],
    [
      "NotIn on a missing key",
      { matchExpressions: [{ key: "env", operator: "NotIn", values: ["x"] }] },
      true,
    ],
    ["Exists", { matchExpressions: [{ key: "app", operator: "Exists" }] }, true],
    ["DoesNotExist", { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] }, false],
    [
      "In without values is invalid: selects nothing",
      { matchExpressions: [{ key: "app", operator: "In" }] },
      false,
    ],
    [
      "Exists with values is invalid: selects nothing",
      { matchExpressions: [{ key: "app", operator: "Exists", values: ["nginx"] }] },
      false,
    ],
  ])("%s", (_, selector, expected) => {
    expect(matchLabelSelector(selector, labels)).toBe(expected);
  });
});

import type { LabelSelector } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import { matchWildcardSelector } from "./selector.js";

const labels = { app: "nginx", tier: "frontend", "app.kubernetes.io/name": "shop" };

describe("matchWildcardSelector", () => {
  it.each<[string, LabelSelector, Record<string, string>, boolean]>([
    ["empty selector selects everything", {}, labels, true],
    ["empty selector selects no labels", {}, {}, true],
    ["matchLabels equal", { matchLabels: { app: "nginx" } }, labels, true],
    ["matchLabels all must hold", { matchLabels: { app: "nginx", tier: "backend" } }, labels, false],
    ["matchLabels missing key", { matchLabels: { env: "prod" } }, labels, false],
    ["matchLabels empty value needs the key", { matchLabels: { env: "" } }, labels, false],
    ["matchLabels wildcard value", { matchLabels: { app: "ng*" } }, labels, true],
    ["matchLabels wildcard value misses", { matchLabels: { app: "ht*" } }, labels, false],
    ["matchLabels wildcard key", { matchLabels: { "app.kubernetes.io/*": "shop" } }, labels, true],
    ["matchLabels ? wildcard", { matchLabels: { tier: "front?nd" } }, labels, true],
    ["matchLabels * needs some label", { matchLabels: { "*": "*" } }, {}, false],
    [
      "In",
      { matchExpressions: [{ key: "tier", operator: "In", values: ["frontend", "web"] }] },
      labels,
      true,
    ],
    [
      "In missing key",
      { matchExpressions: [{ key: "env", operator: "In", values: ["prod"] }] },
      labels,
      false,
    ],
    ["In is literal", { matchExpressions: [{ key: "app", operator: "In", values: ["ng*"] }] }, labels, false],
    [
      "NotIn",
      { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["frontend"] }] },
      labels,
      false,
    ],
    [
      "NotIn missing key",
      { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] },
      labels,
      true,
    ],
    ["Exists", { matchExpressions: [{ key: "app", operator: "Exists" }] }, labels, true],
    ["DoesNotExist", { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] }, labels, false],
    ["DoesNotExist missing", { matchExpressions: [{ key: "env", operator: "DoesNotExist" }] }, labels, true],
    [
      "invalid: In without values",
      { matchExpressions: [{ key: "app", operator: "In", values: [] }] },
      labels,
      false,
    ],
    ["invalid: NotIn without values", { matchExpressions: [{ key: "x", operator: "NotIn" }] }, labels, false],
    [
      "invalid: Exists with values",
      { matchExpressions: [{ key: "app", operator: "Exists", values: ["a"] }] },
      labels,
      false,
    ],
    [
      "labels and expressions are ANDed",
      {
        matchLabels: { app: "nginx" },
        matchExpressions: [{ key: "tier", operator: "In", values: ["backend"] }],
      },
      labels,
      false,
    ],
    [
      "prototype keys are not labels",
      { matchExpressions: [{ key: "toString", operator: "Exists" }] },
      {},
      false,
    ],
  ])("%s", (_name, selector, input, expected) => {
    expect(matchWildcardSelector(selector, input)).toBe(expected);
  });
});

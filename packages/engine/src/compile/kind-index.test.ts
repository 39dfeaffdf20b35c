import type { MatchResources, Policy, Rule } from "@kyverno-ts/api";
import { describe, expect, it } from "vitest";
import type { RequestKind } from "../match/index.js";
import { makeCompiled } from "./compiled.js";
import { buildKindIndex, kindPrecheck, ruleKinds } from "./kind-index.js";

const rule = (name: string, match: MatchResources): Rule =>
  ({ name, match, validate: { pattern: { spec: {} } } }) as Rule;
const kinds = (...list: string[]): MatchResources => ({ any: [{ resources: { kinds: list } }] });

function policy(rules: Rule[]): Policy {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: {
      rules,
      applyRules: "All",
      validationFailureAction: "Audit",
      background: true,
      admission: true,
      emitWarning: false,
      failurePolicy: "Fail",
    },
  };
}

const req = (kind: string, group = "", version = "v1", subresource = ""): RequestKind => ({
  group,
  version,
  kind,
  subresource,
});

describe("ruleKinds", () => {
  it("reads exact kind names from every spelling of a selector", () => {
    const r = ruleKinds(rule("r", kinds("Pod", "apps/v1/Deployment", "v1/Service", "Pod/status")));
    expect([...(r.kinds ?? [])].sort()).toEqual(["Deployment", "Pod", "Service"]);
    expect(r.selectors).toHaveLength(4);
  });

  it("has no kind names when a selector's kind holds a wildcard", () => {
    expect(ruleKinds(rule("r", kinds("Pod", "*/scale"))).kinds).toBeUndefined();
    expect(ruleKinds(rule("r", kinds("Po?"))).kinds).toBeUndefined();
    expect(ruleKinds(rule("r", kinds("*"))).kinds).toBeUndefined();
  });

  it("selects any kind when a filter names no kinds or the block is `all`", () => {
    const noKinds = ruleKinds(
      rule("r", { any: [{ resources: { kinds: ["Pod"] } }, { resources: { names: ["x"] } }] }),
    );
    expect(noKinds).toEqual({ selectors: undefined, kinds: undefined });
    const all = ruleKinds(rule("r", { all: [{ resources: { kinds: ["Pod"] } }] }));
    expect(all).toEqual({ selectors: undefined, kinds: undefined });
  });

  it("reads the legacy form (resources directly in the block)", () => {
    expect([...(ruleKinds(rule("r", { resources: { kinds: ["ConfigMap"] } })).kinds ?? [])]).toEqual([
      "ConfigMap",
    ]);
  });

  it("drops selectors it cannot parse, as matching does", () => {
    const r = ruleKinds(rule("r", kinds("a/b/c/d/e", "Pod")));
    expect(r.selectors).toHaveLength(1);
    expect([...(r.kinds ?? [])]).toEqual(["Pod"]);
  });
});

describe("kindPrecheck", () => {
  it("checks group, version and subresource, not only the kind name", () => {
    const check = kindPrecheck(ruleKinds(rule("r", kinds("apps/v1/Deployment", "Pod"))));
    expect(check(req("Deployment", "apps"))).toBe(true);
    expect(check(req("Deployment", "extensions", "v1beta1"))).toBe(false);
    expect(check(req("Pod"))).toBe(true);
    expect(check(req("Pod", "", "v1", "status"))).toBe(false);
    expect(check(req("Pod", "", "v1", "ephemeralcontainers"))).toBe(true);
    expect(check(req("Service"))).toBe(false);
  });

  it("lets everything through when the rule selects any kind", () => {
    const check = kindPrecheck(ruleKinds(rule("r", { any: [{ resources: { names: ["x"] } }] })));
    expect(check(req("Anything", "x.io"))).toBe(true);
  });
});

describe("buildKindIndex", () => {
  const rules = [
    rule("pods", kinds("Pod")),
    rule("anything", kinds("*")),
    rule("deployments", kinds("apps/v1/Deployment")),
    rule("pods-and-services", kinds("Pod", "Service")),
    rule("no-kinds", { any: [{ resources: { namespaces: ["prod"] } }] }),
  ];
  const index = buildKindIndex(rules, ruleKinds);
  const names = (kind: string) => index.rulesFor(kind).map((r) => r.name);

  it("returns the rules naming a kind plus the wildcard ones, in rule order", () => {
    expect(names("Pod")).toEqual(["pods", "anything", "pods-and-services", "no-kinds"]);
    expect(names("Deployment")).toEqual(["anything", "deployments", "no-kinds"]);
    expect(names("Service")).toEqual(["anything", "pods-and-services", "no-kinds"]);
  });

  it("returns only the wildcard rules for kinds no rule names", () => {
    expect(names("ConfigMap")).toEqual(["anything", "no-kinds"]);
    expect(names("")).toEqual(["anything", "no-kinds"]);
  });

  it("is case-sensitive, as kind matching is", () => {
    expect(names("pod")).toEqual(["anything", "no-kinds"]);
  });

  it("returns nothing when every rule names other kinds", () => {
    const only = buildKindIndex([rule("pods", kinds("Pod"))], ruleKinds);
    expect(only.rulesFor("Deployment")).toEqual([]);
    expect(only.rulesFor("Pod").map((r) => r.name)).toEqual(["pods"]);
  });
});

describe("compiled policy index", () => {
  it("indexes the rules after autogen by the kinds each one matches", () => {
    const compiled = makeCompiled(policy([]), [
      rule("require-labels", kinds("Pod")),
      rule("autogen-require-labels", kinds("DaemonSet", "Deployment", "Job", "StatefulSet")),
      rule("autogen-cronjob-require-labels", kinds("CronJob")),
    ]);
    expect(compiled.rulesFor("Pod").map((r) => r.rule.name)).toEqual(["require-labels"]);
    expect(compiled.rulesFor("Deployment").map((r) => r.rule.name)).toEqual(["autogen-require-labels"]);
    expect(compiled.rulesFor("CronJob").map((r) => r.rule.name)).toEqual(["autogen-cronjob-require-labels"]);
    expect(compiled.rulesFor("Service")).toEqual([]);
    // Every rule is in some bucket, and buckets are subsets of `rules` in the same order.
    for (const kind of ["Pod", "Deployment", "CronJob"]) {
      const bucket = compiled.rulesFor(kind);
      expect(bucket.every((r) => compiled.compiledRules.includes(r))).toBe(true);
      expect(bucket.map((r) => compiled.compiledRules.indexOf(r))).toEqual(
        bucket.map((r) => compiled.compiledRules.indexOf(r)).sort((a, b) => a - b),
      );
    }
  });
});

import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { loadPolicy } from "./load.js";
import type { JsonObject, JsonValue } from "./types.js";

const MATCH = { any: [{ resources: { kinds: ["Pod"] } }] };
const VALIDATE = { pattern: { metadata: { name: "?*" } } };

/** Errors of a ClusterPolicy (or `kind`) with the given rules (YAML) and spec fields. */
function errors(rulesYaml: string, spec: JsonObject = {}, kind = "ClusterPolicy"): string[] {
  const rules = parse(rulesYaml) as JsonValue;
  const policy = { apiVersion: "kyverno.io/v1", kind, metadata: { name: "p" }, spec: { ...spec, rules } };
  const r = loadPolicy(policy, { file: "p.yaml" });
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
}

/** A rule with the default match and the given extra YAML fields. */
function rule(extra: string, name = "r"): string {
  return `- name: ${name}\n  match: ${JSON.stringify(MATCH)}\n${extra.replace(/^/gm, "  ")}`;
}

describe("rule structure", () => {
  test("a rule has exactly one of validate, mutate, generate, verifyImages", () => {
    expect(errors(`- name: r\n  match: ${JSON.stringify(MATCH)}`)).toEqual([
      'spec.rules[0]: no operation defined in the rule "r" (one of validate, mutate, generate or verifyImages)',
    ]);
    expect(
      errors(rule(`validate: ${JSON.stringify(VALIDATE)}\nmutate: {patchStrategicMerge: {a: 1}}`)),
    ).toEqual([
      'spec.rules[0]: multiple operations defined in the rule "r": only one of validate, mutate, generate or verifyImages is allowed',
    ]);
  });

  test("validate has exactly one of pattern, anyPattern, deny, foreach, podSecurity, cel, manifests, assert", () => {
    expect(errors(rule("validate: {message: m}"))).toEqual([
      'spec.rules[0].validate: one of "pattern", "anyPattern", "deny", "foreach", "podSecurity", "cel", "manifests" or "assert" must be specified',
    ]);
    expect(errors(rule("validate: {pattern: {a: 1}, deny: {}}"))).toEqual([
      'spec.rules[0].validate: only one of "pattern", "anyPattern", "deny", "foreach", "podSecurity", "cel", "manifests" or "assert" can be specified, found "pattern" and "deny"',
    ]);
  });

  test("validate.foreach needs a list and exactly one validation", () => {
    expect(errors(rule("validate: {foreach: [{pattern: {a: 1}}]}"))).toEqual([
      'spec.rules[0].validate.foreach[0]: missing required field "list"',
    ]);
    expect(errors(rule('validate: {foreach: [{list: "x", pattern: {}, anyPattern: [{}]}]}'))).toEqual([
      'spec.rules[0].validate.foreach[0]: foreach: only one of "pattern", "anyPattern", "deny" or "foreach" can be specified, found "pattern" and "anyPattern"',
    ]);
  });

  test("rule names are unique", () => {
    const v = `validate: ${JSON.stringify(VALIDATE)}`;
    expect(errors(`${rule(v, "a")}\n${rule(v, "a")}`)).toEqual([
      'spec.rules[1].name: duplicate rule name "a"',
    ]);
  });

  test("patterns use only supported anchors", () => {
    expect(errors(rule("validate: {pattern: {spec: {+(x): 1, ^(y): [], z: []}}}"))).toEqual([
      'spec.rules[0].validate.pattern.spec["+(x)"]: unsupported anchor "+(x)" in a validate pattern',
      'spec.rules[0].validate.pattern.spec["^(y)"]: an existence anchor needs a non-empty list',
      "spec.rules[0].validate.pattern.spec.z: an array in a pattern must not be empty",
    ]);
    expect(errors(rule("validate: {anyPattern: [{X(a): null}, {=(b): 1, <(c): 2, (d): 3}]}"))).toEqual([]);
  });

  test("unknown condition operators are errors in any/all", () => {
    expect(
      errors(
        rule("preconditions: {any: [{key: a, operator: Equalz, value: b}]}\nvalidate: {pattern: {a: 1}}"),
      )[0],
    ).toMatch(/^spec\.rules\[0\]\.preconditions\.any\[0\]\.operator: invalid value "Equalz"/);
  });
});

describe("match and exclude", () => {
  const v = `validate: ${JSON.stringify(VALIDATE)}`;

  test("a match must name resources with kinds", () => {
    expect(errors(`- name: r\n  match: {}\n  ${v}`)).toEqual([
      'spec.rules[0].match: match resources not specified: "resources" must not be empty',
    ]);
    expect(errors(`- name: r\n  match: {any: [{resources: {names: [a]}}]}\n  ${v}`)).toEqual([
      "spec.rules[0].match.any[0].resources: at least one kind must be specified: kinds is mandatory in match resources",
    ]);
    expect(errors(`- name: r\n  ${v}`)).toEqual(['spec.rules[0]: missing required field "match"']);
  });

  test("any and all are not combined, nor mixed with the legacy form", () => {
    const both = `- name: r\n  match: {any: [{resources: {kinds: [Pod]}}], all: [{resources: {kinds: [Pod]}}]}\n  ${v}`;
    expect(errors(both)).toEqual(["spec.rules[0].match: can't specify any and all together"]);
    const mixed = `- name: r\n  match: {any: [{resources: {kinds: [Pod]}}], resources: {kinds: [Pod]}}\n  ${v}`;
    expect(errors(mixed)).toEqual(["spec.rules[0].match: can't specify any/all together with resources"]);
  });

  test("filters: name with names, empty selectors, subjects and roles", () => {
    const filter = (f: string) =>
      errors(`- name: r\n  match: {any: [${f}]}\n  ${v}\n`, { background: false });
    expect(filter("{resources: {kinds: [Pod], name: a, names: [b]}}")).toEqual([
      "spec.rules[0].match.any[0].resources: both name and names can not be specified together",
    ]);
    expect(filter("{resources: {kinds: [Pod], selector: {}}}")).toEqual([
      "spec.rules[0].match.any[0].resources.selector: the requirements are not specified in selector",
    ]);
    expect(
      filter("{resources: {kinds: [Pod], selector: {matchExpressions: [{key: a, operator: In}]}}}"),
    ).toEqual([
      'spec.rules[0].match.any[0].resources.selector.matchExpressions[0]: values must not be empty for operator "In"',
    ]);
    expect(filter("{resources: {kinds: [Pod]}, subjects: [{kind: ServiceAccount, name: sa}]}")).toEqual([
      'spec.rules[0].match.any[0].subjects[0]: missing required field "namespace" (required when kind is ServiceAccount)',
    ]);
    expect(filter("{resources: {kinds: [Pod]}, roles: [admin]}")).toEqual([
      'spec.rules[0].match.any[0].roles[0]: role "admin" must be in namespace:name format',
    ]);
  });

  test("user info needs background off", () => {
    const r = `- name: r\n  match: {any: [{resources: {kinds: [Pod]}, clusterRoles: [admin]}]}\n  ${v}`;
    expect(errors(r)).toEqual([
      "spec.rules[0].match.any[0].clusterRoles: clusterRoles cannot be used in background mode; set spec.background to false",
    ]);
    expect(errors(r, { background: false })).toEqual([]);
  });

  test("an exclude equal to the match matches nothing", () => {
    const r = `- name: r\n  match: ${JSON.stringify(MATCH)}\n  exclude: ${JSON.stringify(MATCH)}\n  ${v}`;
    expect(errors(r)).toEqual([
      "spec.rules[0]: rule is matching an empty set: the exclude block is the same as the match block",
    ]);
  });

  test("a namespaced Policy cannot filter namespaces", () => {
    const r = `- name: r\n  match: {any: [{resources: {kinds: [Pod], namespaces: [a]}}]}\n  ${v}`;
    expect(errors(r, {}, "Policy")).toEqual([
      "spec.rules[0].match.any[0].resources.namespaces: filtering namespaces is not allowed in a namespaced Policy",
    ]);
    expect(errors(r, {}, "ClusterPolicy")).toEqual([]);
  });

  test("wildcard kinds", () => {
    const r = `- name: r\n  match: {any: [{resources: {kinds: ["*"]}}]}\n  ${v}`;
    expect(errors(r)).toEqual([
      "spec.rules[0].match.any[0].resources.kinds: wildcard policy not allowed in background mode; set spec.background to false",
    ]);
    expect(errors(r, { background: false })).toEqual([]);
  });
});

describe("context, mutate, generate, verifyImages", () => {
  const v = `validate: ${JSON.stringify(VALIDATE)}`;

  test("context entries: one source, a usable variable, no reserved names", () => {
    expect(
      errors(rule(`context: [{name: a, configMap: {name: c, namespace: n}, variable: {value: 1}}]\n${v}`)),
    ).toEqual([
      "spec.rules[0].context[0]: exactly one of configMap, apiCall, imageRegistry, variable or globalReference must be provided",
    ]);
    expect(errors(rule(`context: [{name: request.x, variable: {value: 1}}]\n${v}`))).toEqual([
      'spec.rules[0].context[0].name: entry name "request.x" conflicts with the pre-defined variable "request"',
    ]);
    expect(errors(rule(`context: [{name: a, variable: {default: 1}}]\n${v}`))).toEqual([
      "spec.rules[0].context[0].variable: a variable must define a value or a jmesPath expression",
    ]);
    expect(
      errors(rule(`context: [{name: a, apiCall: {urlPath: /x, service: {url: http://s}}}]\n${v}`)),
    ).toEqual(["spec.rules[0].context[0].apiCall: a urlPath cannot be used for service API calls"]);
  });

  test("mutate: one kind of patch, JSON patch paths start with a slash", () => {
    expect(errors(rule('mutate: {patchStrategicMerge: {a: 1}, patchesJson6902: "[]"}'))).toEqual([
      'spec.rules[0].mutate: only one of "foreach", "patchStrategicMerge" or "patchesJson6902" can be specified, found "patchStrategicMerge" and "patchesJson6902"',
    ]);
    expect(
      errors(rule("mutate:\n  patchesJson6902: |-\n    - op: add\n      path: spec/x\n      value: 1")),
    ).toEqual([
      'spec.rules[0].mutate.patchesJson6902: operation 0: path "spec/x" must begin with a forward slash',
    ]);
    expect(
      errors(rule("mutate:\n  patchesJson6902: \"- {op: add, path: /a, value: '{{request.name}}'}\"")),
    ).toEqual([]);
    expect(
      errors(rule('mutate:\n  patchesJson6902: "- {op: add, path: /a/{{request.name}}, value: 1}"')),
    ).toEqual([
      'spec.rules[0].mutate.patchesJson6902: rule "r" should not have variables in patchesJSON6902 path section',
    ]);
    expect(
      errors(rule('mutate: {foreach: [{list: "x", patchStrategicMerge: {}, patchesJson6902: "[]"}]}')),
    ).toEqual([
      'spec.rules[0].mutate.foreach[0]: only one of "patchStrategicMerge" or "patchesJson6902" can be specified, found "patchStrategicMerge" and "patchesJson6902"',
    ]);
  });

  test("generate: one source; a clone names its target, and watches kinds without variables", () => {
    expect(errors(rule("generate: {kind: A, name: a, data: {}, clone: {name: x}}"))).toEqual([
      'spec.rules[0].generate: only one of "data", "clone", "cloneList" or "foreach" can be specified, found "data" and "clone"',
    ]);
    expect(errors(rule("generate: {clone: {name: x, namespace: y}}"))).toEqual([
      "spec.rules[0].generate.kind: kind can not be empty",
      "spec.rules[0].generate.name: name can not be empty",
    ]);
    // A cloneList without kinds is a clone of nothing: it still needs the kind and name of one.
    expect(errors(rule("generate: {namespace: n, cloneList: {namespace: y}}"))).toEqual([
      "spec.rules[0].generate.kind: kind can not be empty",
      "spec.rules[0].generate.name: name can not be empty",
    ]);
    expect(errors(rule('generate: {kind: "{{request.object.kind}}", name: a, clone: {name: x}}'))).toEqual([
      "spec.rules[0].generate.kind: the kinds a clone or cloneList rule reads (kind, apiVersion, cloneList.kinds) should not have variables",
    ]);
    expect(
      errors(
        rule('generate: {kind: A, name: "{{request.object.metadata.name}}", namespace: n, data: {a: 1}}'),
      ),
    ).toEqual([]);
  });

  test("generate: the source of a synchronized clone or cloneList may be named by variables", () => {
    const clone = `generate:
  synchronize: true
  apiVersion: v1
  kind: Secret
  name: regcred
  namespace: "{{request.object.metadata.name}}"
  clone:
    namespace: "{{request.object.metadata.labels.source}}"
    name: "{{request.object.metadata.annotations.secret}}"`;
    expect(errors(rule(clone))).toEqual([]);
    const cloneList = `generate:
  synchronize: true
  namespace: "{{request.object.metadata.name}}"
  cloneList:
    namespace: "{{request.object.metadata.labels.source}}"
    kinds: [v1/Secret, v1/ConfigMap]`;
    expect(errors(rule(cloneList))).toEqual([]);
  });

  test("verifyImages: an image reference, and no digest mutation in Audit", () => {
    expect(errors(rule("verifyImages: [{attestors: []}]"))).toEqual([
      "spec.rules[0].verifyImages[0]: an image reference is required (imageReferences)",
    ]);
    expect(errors(rule('verifyImages: [{imageReferences: ["*"], mutateDigest: true}]'))).toEqual([
      "spec.rules[0].verifyImages[0].mutateDigest: mutateDigest must be false when the failure action is Audit",
    ]);
    expect(
      errors(rule('verifyImages: [{imageReferences: ["*"], mutateDigest: true}]'), {
        validationFailureAction: "Enforce",
      }),
    ).toEqual([]);
  });

  test("webhook timeouts are between 1 and 30 seconds", () => {
    expect(errors(rule(v), { webhookTimeoutSeconds: 31 })).toEqual([
      "spec.webhookTimeoutSeconds: the timeout must be between 1 and 30 seconds",
    ]);
  });
});

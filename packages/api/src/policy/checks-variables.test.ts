import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { loadPolicy } from "./load.js";
import type { JsonObject, JsonValue } from "./types.js";

/** Errors of a ClusterPolicy with the given spec fields and rules (YAML). */
function errors(rulesYaml: string, spec: JsonObject = {}): string[] {
  const rules = parse(rulesYaml) as JsonValue;
  const policy = { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", metadata: { name: "p" } };
  const r = loadPolicy({ ...policy, spec: { ...spec, rules } }, { file: "p.yaml" });
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
}

const MATCH = "match: {any: [{resources: {kinds: [Pod]}}]}";
const BACKGROUND_OFF = { background: false };

/** A deny rule whose condition key is `key`. */
function denyOn(key: string, extra = ""): string {
  return `- name: r
  ${MATCH}
${extra}  validate:
    deny:
      conditions:
        any:
        - {key: "${key}", operator: Equals, value: x}`;
}

describe("requester variables need background off", () => {
  test.each([
    "{{ request.userInfo.username }}",
    "{{request.roles}}",
    "{{ request.clusterRoles[0] }}",
    "{{serviceAccountName}}",
    "{{ serviceAccountNamespace }}",
  ])("%s is rejected in background mode, accepted without", (variable) => {
    expect(errors(denyOn(variable))).toEqual([
      `spec.rules[0].validate.deny.conditions.any[0].key: only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: variable ${variable} is not allowed`,
    ]);
    expect(errors(denyOn(variable), BACKGROUND_OFF)).toEqual([]);
  });

  test("a field of the object named serviceAccountName is not the requester's", () => {
    expect(errors(denyOn("{{ request.object.spec.serviceAccountName }}"))).toEqual([]);
  });

  test("in a generate rule too", () => {
    const rule = `- name: g
  match: {any: [{resources: {kinds: [Namespace]}}]}
  generate:
    kind: ConfigMap
    apiVersion: v1
    name: owner
    namespace: "{{request.object.metadata.name}}"
    data: {data: {user: "{{request.userInfo.username}}"}}`;
    expect(errors(rule)).toEqual([
      "spec.rules[0].generate.data.data.user: only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: variable {{request.userInfo.username}} is not allowed",
    ]);
    expect(errors(rule, BACKGROUND_OFF)).toEqual([]);
  });
});

describe("variables must read something the rule has", () => {
  const INVALID = (v: string, re: string) =>
    `policy contains invalid variables: variable substitution failed for rule r: variable ${v} must match regex "${re}"`;
  const ADMISSION_RE =
    "request|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|image|([a-z_0-9]+\\()[^{}]";
  const BACKGROUND_RE = "request\\.|element|elementIndex|@|images|images\\.|image\\.|([a-z_0-9]+\\()[^{}]";

  test("an undeclared name is rejected, with the allow-list of the mode", () => {
    expect(errors(denyOn("{{ foo.bar }}"))).toEqual([
      `spec.rules[0].validate.deny.conditions.any[0].key: ${INVALID("foo.bar", BACKGROUND_RE)}`,
    ]);
    expect(errors(denyOn("{{ foo.bar }}"), BACKGROUND_OFF)).toEqual([
      `spec.rules[0].validate.deny.conditions.any[0].key: ${INVALID("foo.bar", ADMISSION_RE)}`,
    ]);
  });

  test("context entries, built-in variables and function calls are accepted", () => {
    const ctx = `  context:
  - {name: cm, configMap: {name: c, namespace: n}}
  - {name: "my-var", variable: {value: 1}}
`;
    for (const key of [
      "{{ cm.data.key }}",
      '{{ \\"my-var\\".x }}',
      "{{ request.object.metadata.name }}",
      "{{ images.containers.*.tag }}",
      "{{ time_now_utc() }}",
      "{{ @ }}",
      "{{ length(cm.data) }}",
    ])
      expect(errors(denyOn(key, ctx)), key).toEqual([]);
  });

  test("a variable nested in another is read too", () => {
    expect(errors(denyOn('{{ foo.\\"{{ request.object.metadata.name }}\\" }}'))).toEqual([
      `spec.rules[0].validate.deny.conditions.any[0].key: ${INVALID("foo.null", BACKGROUND_RE)}`,
    ]);
  });

  test("escaped variables are not read", () => {
    expect(errors(denyOn("\\\\{{ foo }}"))).toEqual([]);
  });

  test("target. is only for mutate-existing rules, outside the targets' own fields", () => {
    expect(errors(denyOn("{{ target.metadata.name }}"))[0]).toContain(
      "variable target.metadata.name must match regex",
    );
    const existing = (name: string) => `- name: m
  match: {any: [{resources: {kinds: [ConfigMap]}}]}
  mutate:
    targets:
    - apiVersion: v1
      kind: Secret
      name: "${name}"
      namespace: "{{ request.object.metadata.namespace }}"
      preconditions:
        any: [{key: "{{ target.metadata.labels.app }}", operator: Equals, value: x}]
    patchStrategicMerge:
      metadata: {labels: {from: "{{ target.metadata.name }}"}}`;
    expect(errors(existing("secret-1"))).toEqual([]);
    expect(errors(existing("{{ target.metadata.name }}"))).toEqual([
      'spec.rules[0].mutate.targets[0].name: policy contains invalid variables: invalid variables defined at mutate.targets[0]: variable target.metadata.name must match regex "request\\.|element|elementIndex|@|images|images\\.|image\\.|([a-z_0-9]+\\()[^{}]"',
    ]);
  });

  test("match and exclude never hold variables", () => {
    const rule = `- name: r
  match: {any: [{resources: {kinds: [Pod], namespaces: ["{{ request.namespace }}"]}}]}
  validate: {pattern: {metadata: {name: "?*"}}}`;
    expect(errors(rule)).toEqual([
      'spec.rules[0].match: rule "r" should not have variables in match section',
    ]);
  });
});

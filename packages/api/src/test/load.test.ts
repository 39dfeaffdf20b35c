import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import type { JsonValue } from "../policy/types.js";
import { loadTest, loadUserInfo, loadValues } from "./load.js";

const TEST = `
apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: add-default-resources
policies: [add-default-resources.yaml]
resources: [resource.yaml]
variables: values.yaml
results:
- policy: add-default-resources
  rule: add-default-requests
  resources: [nginx-demo1]
  patchedResources: patchedResource1.yaml
  kind: Pod
  result: pass
`;

const where = { file: "kyverno-test.yaml", document: 0 };
const y = (text: string) => parse(text) as JsonValue;

describe("loadTest", () => {
  test("loads a test with empty lists for what is not given", () => {
    const r = loadTest(y(TEST), where);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({
      policies: ["add-default-resources.yaml"],
      targetResources: [],
      exceptions: [],
      checks: [],
      variables: "values.yaml",
    });
    expect(r.value.results[0]).toEqual({
      policy: "add-default-resources",
      rule: "add-default-requests",
      resources: ["nginx-demo1"],
      patchedResources: "patchedResource1.yaml",
      kind: "Pod",
      result: "pass",
    });
  });

  test("fills result from the deprecated status, and resources default to empty", () => {
    const r = loadTest(
      y(
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nresults: [{policy: p, rule: r, resource: a, status: fail}]",
      ),
      where,
    );
    expect(r.ok && r.value.results[0]).toEqual({
      policy: "p",
      rule: "r",
      resource: "a",
      result: "fail",
      resources: [],
    });
    expect(r.ok && r.warnings.map((w) => w.message)).toEqual([
      'field "resource" is deprecated; use "resources"',
      'field "status" is deprecated; use "result"',
    ]);
  });

  test("accepts inline values, checks and the mocks of the CEL kinds", () => {
    const text = `${TEST}values:\n  globalValues: {request.operation: UPDATE}\nchecks:\n- match: {policy: {name: p}}\n  assert: {status: pass}\napiCallResponses:\n- url: https://x\n  response: {statusCode: 200, body: {}}\nglobalContextEntries:\n- name: g\n  data: [1]\n`;
    const r = loadTest(y(text), where);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.values?.globalValues).toEqual({ "request.operation": "UPDATE" });
  });

  test("unknown fields and bad results are errors", () => {
    const r = loadTest(y(`${TEST}resource: [x]\n`.replace("result: pass", "result: passed")), where);
    expect(r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      'results[0].result: invalid value "passed": must be one of "pass", "fail", "warn", "error", "skip"',
      ': unknown field "resource" (did you mean "resources"?)',
    ]);
    const missing = loadTest(
      y("apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nresults: [{policy: p}]"),
      where,
    );
    expect(missing.ok ? [] : missing.errors.map((e) => e.message)).toEqual([
      'missing required field "result"',
    ]);
  });

  test("field names in another case are read as Go does, with a warning", () => {
    const r = loadTest(y(`${TEST.replace("  kind: Pod\n", "  isMUtatingPolicy: true\n")}`), where);
    expect(r.ok && r.value.results[0]?.isMutatingPolicy).toBe(true);
    expect(r.ok && r.warnings.map((w) => w.path)).toEqual(["results[0]"]);
  });

  test("a file without apiVersion/kind is the legacy form; other kinds are rejected", () => {
    const legacy = loadTest(y("policies: [p.yaml]\nresources: [r.yaml]\nresults: []"), where);
    expect(legacy.ok && legacy.warnings.map((w) => w.code)).toEqual(["deprecated"]);
    const other = loadTest(y("apiVersion: cli.kyverno.io/v1alpha1\nkind: Values"), where);
    expect(other.ok ? [] : other.errors.map((e) => e.message)).toEqual(['expected kind Test, got "Values"']);
    const version = loadTest(y("apiVersion: cli.kyverno.io/v1\nkind: Test"), where);
    expect(version.ok ? [] : version.errors.map((e) => e.message)).toEqual([
      'expected apiVersion cli.kyverno.io/v1alpha1, got "cli.kyverno.io/v1"',
    ]);
  });
});

describe("loadValues", () => {
  const VALUES = `
policies:
- name: p
  rules:
  - name: r
    values: {dictionary.data.env: dev1}
    foreachValues: {element: [a, b]}
  resources:
  - name: nginx
    values: {request.operation: UPDATE}
globalValues: {request.mode: dev}
namespaceSelector:
- name: test1
  labels: {foo.com/managed-state: managed}
subresources:
- subresource: {name: deployments/scale, kind: Scale, group: autoscaling, version: v1}
  parentResource: {name: deployments, kind: Deployment, group: apps, version: v1}
`;

  test("loads kind Values and Value, with every list present", () => {
    for (const kind of ["Values", "Value"]) {
      const r = loadValues(
        y(`apiVersion: cli.kyverno.io/v1alpha1\nkind: ${kind}\nmetadata: {name: values}\n${VALUES}`),
        where,
      );
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      expect(r.value.namespaces).toEqual([]);
      expect(r.value.policies[0]?.rules[0]?.foreachValues).toEqual({ element: ["a", "b"] });
      expect(r.value.policies[0]?.resources[0]?.values).toEqual({ "request.operation": "UPDATE" });
      expect(r.value.namespaceSelector[0]?.labels).toEqual({ "foo.com/managed-state": "managed" });
      expect(r.warnings).toEqual([]);
    }
  });

  test("loads the legacy file without apiVersion/kind", () => {
    const r = loadValues(y(VALUES), where);
    expect(r.ok && r.value.globalValues).toEqual({ "request.mode": "dev" });
  });

  test("namespaces are Namespace objects with a name", () => {
    const r = loadValues(
      y(
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\nnamespaces:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {labels: {a: b}}",
      ),
      where,
    );
    expect(r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      'namespaces[0].metadata: missing required field "name"',
    ]);
  });

  test("reports typos", () => {
    const r = loadValues(y("apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\nglobalValue: {a: 1}"), where);
    expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual([
      'unknown field "globalValue" (did you mean "globalValues"?)',
    ]);
  });
});

describe("loadUserInfo", () => {
  test("groups the inline fields as requestInfo", () => {
    const text =
      "apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nmetadata: {name: user-info}\nclusterRoles: [admin]\nuserInfo:\n  username: someone@somecorp.com\n  groups: [dev]\n";
    const r = loadUserInfo(y(text), where);
    expect(r.ok && r.value.requestInfo).toEqual({
      roles: [],
      clusterRoles: ["admin"],
      userInfo: { username: "someone@somecorp.com", groups: ["dev"] },
    });
  });

  test("rejects unknown fields", () => {
    const r = loadUserInfo(
      y("apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nclusterRole: [admin]"),
      where,
    );
    expect(r.ok).toBe(false);
  });
});

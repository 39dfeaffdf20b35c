import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { loadPolicy } from "./load.js";
import { backgroundPermissionChecks, type PermissionCheck, permissionIssues } from "./permissions.js";
import type { JsonValue, Policy } from "./types.js";

const USER = "system:serviceaccount:kyverno:kyverno-background-controller";

function policy(rules: string): Policy {
  const doc = parse(
    `apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n  rules:\n${rules.replace(/^/gm, "  ")}`,
  ) as JsonValue;
  const r = loadPolicy(doc, { file: "p.yaml" });
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join("\n"));
  return r.value;
}

const GENERATE = `- name: repo
  match: {any: [{resources: {kinds: [Namespace]}}]}
  generate:
    apiVersion: source.toolkit.fluxcd.io/v1beta2
    kind: HelmRepository
    name: charts
    namespace: "{{request.object.metadata.name}}"
    data: {spec: {url: "https://charts.example.com"}}
`;

const EXISTING = `- name: label-secret
  match: {any: [{resources: {kinds: [ConfigMap]}}]}
  mutate:
    targets:
    - {apiVersion: v1, kind: Secret, name: secret-1, namespace: staging}
    - {apiVersion: apps/v1, kind: "{{ request.object.data.kind }}"}
    patchStrategicMerge: {metadata: {labels: {a: b}}}
`;

const key = (c: PermissionCheck) =>
  `${c.verb} ${c.group}/${c.version}/${c.kind}/${c.subresource} ns=${c.namespace} name=${c.name} @${c.path}`;

describe("what the background controller must be allowed to do", () => {
  test("a generate rule needs create, update, get and delete of what it generates", () => {
    expect(backgroundPermissionChecks(policy(GENERATE)).map(key)).toEqual([
      "create source.toolkit.fluxcd.io/v1beta2/HelmRepository/ ns={{request.object.metadata.name}} name= @spec.rules[0].generate",
      "update source.toolkit.fluxcd.io/v1beta2/HelmRepository/ ns={{request.object.metadata.name}} name= @spec.rules[0].generate",
      "get source.toolkit.fluxcd.io/v1beta2/HelmRepository/ ns={{request.object.metadata.name}} name= @spec.rules[0].generate",
      "delete source.toolkit.fluxcd.io/v1beta2/HelmRepository/ ns={{request.object.metadata.name}} name= @spec.rules[0].generate",
    ]);
  });

  test("a cloneList needs them per kind, a mutate-existing rule get and update per target with a known kind", () => {
    const clone = `- name: c
  match: {any: [{resources: {kinds: [Namespace]}}]}
  generate:
    namespace: team-a
    cloneList: {namespace: staging, kinds: [v1/Secret, v1/ConfigMap]}
`;
    const checks = backgroundPermissionChecks(policy(clone));
    expect(checks.filter((c) => c.verb === "create").map(key)).toEqual([
      "create /v1/Secret/ ns=team-a name= @spec.rules[0].generate",
      "create /v1/ConfigMap/ ns=team-a name= @spec.rules[0].generate",
    ]);
    expect(backgroundPermissionChecks(policy(EXISTING)).map(key)).toEqual([
      "get /v1/Secret/ ns=staging name=secret-1 @spec.rules[0].mutate.targets[0]",
      "update /v1/Secret/ ns=staging name=secret-1 @spec.rules[0].mutate.targets[0]",
    ]);
  });

  test("denied checks become upstream's messages; allowed ones nothing", () => {
    const denyCreate = (c: PermissionCheck) => ({ allowed: c.verb !== "create" });
    expect(permissionIssues(policy(GENERATE), USER, denyCreate)).toEqual([
      {
        path: "spec.rules[0].generate",
        message: `${USER} does not have permissions to 'create' resource source.toolkit.fluxcd.io/v1beta2/HelmRepository//{{request.object.metadata.name}}. Grant proper permissions to the background controller`,
      },
    ]);
    const denyUpdate = (c: PermissionCheck) => ({ allowed: c.verb !== "update" });
    expect(permissionIssues(policy(EXISTING), USER, denyUpdate)).toEqual([
      {
        path: "spec.rules[0].mutate.targets[0]",
        message: `auth check fails, additional privileges are required for the service account '${USER}': ${USER} does not have permissions to 'update' resource v1/Secret//staging`,
      },
    ]);
    expect(permissionIssues(policy(GENERATE), USER, () => ({ allowed: true }))).toEqual([]);
  });
});

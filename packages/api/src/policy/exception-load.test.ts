import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { loadPolicyException } from "./exception-load.js";
import type { JsonValue } from "./types.js";

const EXCEPTION = `
apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: delta-exception
  namespace: delta
spec:
  exceptions:
  - policyName: disallow-host-namespaces
    ruleNames:
    - host-namespaces
    - autogen-host-namespaces
  match:
    any:
    - resources:
        kinds: [Pod, Deployment]
        namespaces: [delta]
        names: [important-tool*]
  conditions:
    any:
    - key: "{{ request.object.metadata.labels.app || '' }}"
      operator: Equals
      value: busybox
`;

function errorsOf(value: JsonValue): string[] {
  const r = loadPolicyException(value, { file: "e.yaml" });
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
}

describe("loadPolicyException", () => {
  test("loads v2 and v2beta1", () => {
    const r = loadPolicyException(parse(EXCEPTION) as JsonValue, { file: "e.yaml" });
    expect(r.ok).toBe(true);
    if (r.ok)
      expect(r.value.spec.exceptions[0]?.ruleNames).toEqual(["host-namespaces", "autogen-host-namespaces"]);
    const beta = parse(EXCEPTION.replace("kyverno.io/v2", "kyverno.io/v2beta1")) as JsonValue;
    expect(errorsOf(beta)).toEqual([]);
  });

  test("requires exceptions and match, and reports unknown fields", () => {
    const v = parse(
      "apiVersion: kyverno.io/v2\nkind: PolicyException\nmetadata: {name: e}\nspec: {exception: []}",
    ) as JsonValue;
    expect(errorsOf(v)).toEqual([
      'spec: unknown field "exception" (did you mean "exceptions"?)',
      'spec: missing required field "exceptions"',
      'spec: missing required field "match"',
    ]);
  });

  test("conditions use the v2 operators", () => {
    expect(errorsOf(parse(EXCEPTION.replace("operator: Equals", "operator: In")) as JsonValue)[0]).toMatch(
      /^spec\.conditions\.any\[0\]\.operator: invalid value "In"/,
    );
  });

  test("user info is only allowed without background processing", () => {
    const withRoles = EXCEPTION.replace(
      "    - resources:\n",
      "    - clusterRoles: [admin]\n      resources:\n",
    );
    expect(errorsOf(parse(withRoles) as JsonValue)).toEqual([
      "spec.match.any[0].clusterRoles: clusterRoles cannot be used when background processing is enabled",
    ]);
    expect(
      errorsOf(parse(withRoles.replace("spec:\n", "spec:\n  background: false\n")) as JsonValue),
    ).toEqual([]);
  });

  test("every exception names a policy; one without rule names is warned about", () => {
    expect(
      errorsOf(
        parse(EXCEPTION.replace("policyName: disallow-host-namespaces", 'policyName: ""')) as JsonValue,
      ),
    ).toEqual(["spec.exceptions[0].policyName: An exception requires a policy name"]);
    const noRules = EXCEPTION.replace(/ruleNames:\n(\s+- .*\n)+/, "ruleNames: []\n");
    const r = loadPolicyException(parse(noRules) as JsonValue, { file: "e.yaml" });
    expect(r.ok && r.warnings.map((w) => `${w.path}: ${w.message}`)).toEqual([
      "spec.exceptions[0].ruleNames: no rule names: this exception applies to no rule",
    ]);
  });

  test("Pod Security exclusions follow the rules of a policy's", () => {
    const pss = (entry: string) => errorsOf(parse(`${EXCEPTION}  podSecurity:\n  - ${entry}\n`) as JsonValue);
    expect(pss("{controlName: Capabilities}")).toEqual([
      'spec.podSecurity[0].images: exclude.images must be specified for the container level control "Capabilities"',
    ]);
    expect(pss("{controlName: Volume Types, images: [nginx]}")).toEqual([
      'spec.podSecurity[0].images: exclude.images must not be specified for the pod level control "Volume Types"',
    ]);
    expect(pss("{controlName: Running as Non-root}")).toEqual([]);
    expect(pss("{controlName: Root}")[0]).toMatch(
      /^spec\.podSecurity\[0\]\.controlName: invalid value "Root"/,
    );
  });

  test("rejects other kinds and versions", () => {
    expect(errorsOf(parse(EXCEPTION.replace("kyverno.io/v2", "kyverno.io/v1")) as JsonValue)).toEqual([
      'apiVersion: unsupported apiVersion "kyverno.io/v1" for PolicyException: use kyverno.io/v2 or kyverno.io/v2beta1',
    ]);
    expect(errorsOf({ kind: "ClusterPolicy" })).toEqual([
      'kind: expected kind PolicyException, got "ClusterPolicy"',
    ]);
  });
});

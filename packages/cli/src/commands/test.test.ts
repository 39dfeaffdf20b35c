import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BAD_DEPLOYMENT, cli, PODS, REQUIRE_APP_LABEL, tempTree } from "../testing/harness.js";

const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: require-app-label
policies:
  - ../policy.yaml
resources:
  - pods.yaml
  - ../../shared/deploy.yaml
results:
  - policy: require-app-label
    rule: check-app-label
    kind: Pod
    resources:
      - good
    result: pass
  - policy: require-app-label
    rule: check-app-label
    kind: Pod
    resources:
      - default/bad
    result: fail
  - policy: require-app-label
    rule: check-app-label
    kind: Deployment
    resources:
      - bad-deploy
    result: fail
`;

/** The same test, with one line whose expectation is wrong. */
const WRONG = TEST.replace("      - good\n    result: pass", "      - good\n    result: fail");

describe("kyverno-ts test", () => {
  const trees: Array<() => void> = [];
  const tree = (files: Record<string, string>) => {
    const t = tempTree(files);
    trees.push(t.cleanup);
    return t.dir;
  };
  afterEach(() => {
    for (const cleanup of trees.splice(0)) cleanup();
  });

  const layout = (test: string) => ({
    "suite/require-app-label/policy.yaml": REQUIRE_APP_LABEL,
    "suite/require-app-label/.kyverno-test/kyverno-test.yaml": test,
    "suite/require-app-label/.kyverno-test/pods.yaml": PODS,
    "suite/shared/deploy.yaml": BAD_DEPLOYMENT,
  });

  it("finds tests in hidden folders, resolves ../ paths and passes every line", async () => {
    const dir = tree(layout(TEST));
    const run = await cli(["test", "suite"], dir);
    expect(run.stdout).toContain(
      "Loading test require-app-label ( suite/require-app-label/.kyverno-test/kyverno-test.yaml ) ...",
    );
    expect(run.stdout).toContain("Applying 1 policy to 3 resources ...");
    expect(run.stdout).toMatch(/│ ID │ POLICY +│ RULE +│ RESOURCE +│ RESULT │ REASON │/);
    expect(run.stdout).toContain("Test Summary: 3 tests passed and 0 tests failed");
    expect(run.stderr).toMatch(/Ran 3 tests from 1 test file in \d/);
    expect(run.code).toBe(0);
  });

  it("fails a line whose expectation differs and exits 1", async () => {
    const dir = tree(layout(WRONG));
    const run = await cli(["test", "suite"], dir);
    expect(run.stdout).toContain("Want fail, got pass");
    expect(run.stdout).toContain("Test Summary: 2 tests passed and 1 test failed");
    expect(run.stdout).toContain("Failed tests:");
    expect(run.code).toBe(1);
  });

  it("prints one JSON object with -o json", async () => {
    const dir = tree(layout(WRONG));
    const run = await cli(["test", "suite", "-o", "json"], dir);
    const doc = JSON.parse(run.stdout);
    expect(Object.keys(doc)).toEqual(["results", "summary"]);
    expect(doc.results).toHaveLength(3);
    expect(doc.results[0]).toEqual({
      test: "suite/require-app-label/.kyverno-test/kyverno-test.yaml",
      policy: "require-app-label",
      rule: "check-app-label",
      resource: "good",
      kind: "Pod",
      expected: "fail",
      actual: "pass",
      ok: false,
      reason: "Want fail, got pass",
    });
    expect(doc.summary).toMatchObject({ passed: 2, failed: 1, tests: 1, testsFailed: 1 });
    expect(run.code).toBe(1);
  });

  it("shows only failing lines with --fail-only", async () => {
    const dir = tree(layout(WRONG));
    const run = await cli(["test", "suite", "--fail-only"], dir);
    expect(run.stdout).toContain("Want fail, got pass");
    expect(run.stdout).not.toContain("│ Pass");
  });

  it("runs only selected cases with --test-case-selector", async () => {
    const dir = tree(layout(WRONG));
    const run = await cli(["test", "suite", "-t", "policy=require-*, resource=bad*", "-o", "json"], dir);
    const doc = JSON.parse(run.stdout);
    expect(doc.results.map((r: { resource: string }) => r.resource)).toEqual(["default/bad", "bad-deploy"]);
    expect(run.code).toBe(0);
  });

  it("writes JUnit XML with --junit-path", async () => {
    const dir = tree(layout(WRONG));
    const run = await cli(["test", "suite", "--junit-path", "out/junit.xml"], dir);
    expect(run.code).toBe(1);
    expect(existsSync(join(dir, "out/junit.xml"))).toBe(true);
    const xml = readFileSync(join(dir, "out/junit.xml"), "utf8");
    expect(xml).toContain('<testsuites name="kyverno-ts test" tests="3" failures="1"');
    expect(xml).toContain("<failure");
  });

  it("reports a test that fails to load, keeps running the others, and exits 2", async () => {
    const files = {
      ...layout(TEST),
      "suite/broken/kyverno-test.yaml":
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: broken\npolicies:\n  - missing.yaml\nresources: []\nresults: []\n",
    };
    const dir = tree(files);
    const run = await cli(["test", "suite", "-o", "json"], dir);
    const doc = JSON.parse(run.stdout);
    const broken = doc.results.find((r: { test: string }) => r.test === "suite/broken/kyverno-test.yaml");
    expect(broken).toMatchObject({ ok: false, actual: "error" });
    expect(broken.reason).toContain("missing.yaml");
    expect(doc.summary).toMatchObject({ tests: 2, testsFailed: 1, loadErrors: 1, passed: 3 });
    expect(run.code).toBe(2);
  });

  it("applies the test's PolicyExceptions", async () => {
    const exception = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: prod-exception
  namespace: prod
spec:
  exceptions:
    - policyName: require-app-label
      ruleNames: [check-app-label, autogen-check-app-label]
  match:
    any:
      - resources:
          kinds: [Deployment]
          namespaces: [prod]
`;
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: with-exception
policies: [policy.yaml]
resources: [deploy.yaml]
exceptions: [exception.yaml]
results:
  - policy: require-app-label
    rule: check-app-label
    kind: Deployment
    resources: [prod/bad-deploy]
    result: skip
`;
    const dir = tree({
      "t/policy.yaml": REQUIRE_APP_LABEL,
      "t/deploy.yaml": BAD_DEPLOYMENT,
      "t/exception.yaml": exception,
      "t/kyverno-test.yaml": test,
    });
    const run = await cli(["test", "t"], dir);
    expect(run.stdout).toContain("Applying 1 policy to 1 resource with 1 exception ...");
    expect(run.stdout).toContain("Test Summary: 1 test passed and 0 tests failed");
    expect(run.code).toBe(0);
  });

  it("uses the user info file and the values file named by the test", async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: who
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: only-admins
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: "{{ request.userInfo.username }} may not ({{ request.operation }})"
        deny:
          conditions:
            all:
              - key: admin
                operator: AnyNotIn
                value: "{{ request.clusterRoles }}"
              - key: "{{ request.operation }}"
                operator: Equals
                value: UPDATE
`;
    const userInfo = `apiVersion: cli.kyverno.io/v1alpha1
kind: UserInfo
metadata:
  name: user-info
clusterRoles: [view]
userInfo:
  username: someone@example.com
`;
    const values = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
policies:
  - name: who
    resources:
      - name: bad
        values:
          request.operation: UPDATE
`;
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: who
policies: [policy.yaml]
resources: [pods.yaml]
userinfo: user-info.yaml
variables: values.yaml
results:
  - policy: who
    rule: only-admins
    resources: [good]
    result: pass
  - policy: who
    rule: only-admins
    resources: [bad]
    result: fail
`;
    const dir = tree({
      "t/policy.yaml": policy,
      "t/pods.yaml": PODS,
      "t/user-info.yaml": userInfo,
      "t/values.yaml": values,
      "t/kyverno-test.yaml": test,
    });
    const run = await cli(["test", "t", "--detailed-results"], dir);
    expect(run.stdout).toContain("someone@example.com may not (UPDATE)");
    expect(run.stdout).toContain("Test Summary: 2 tests passed and 0 tests failed");
  });

  it("exits 2 for a missing path", async () => {
    const run = await cli(["test", "nowhere"], process.cwd());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("nowhere: no such file or directory");
  });
});

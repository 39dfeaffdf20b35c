import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../program.js";
import { BAD_DEPLOYMENT, cli, PODS, REQUIRE_APP_LABEL, tempTree } from "../testing/harness.js";

describe("kyverno-ts apply", () => {
  const trees: Array<() => void> = [];
  const tree = (files: Record<string, string>) => {
    const t = tempTree(files);
    trees.push(t.cleanup);
    return t.dir;
  };
  afterEach(() => {
    for (const cleanup of trees.splice(0)) cleanup();
  });

  it("reports passes and failures like upstream and exits 1 on a failure", async () => {
    const dir = tree({ "policy.yaml": REQUIRE_APP_LABEL, "pods.yaml": PODS });
    const run = await cli(["apply", "policy.yaml", "--resource", "pods.yaml"], dir);
    expect(run.stdout).toContain("Applying 3 policy rule(s) to 2 resource(s)...");
    expect(run.stdout).toContain(
      "policy require-app-label -> resource default/Pod/bad failed: \n1. check-app-label: ",
    );
    expect(run.stdout).toContain("pass: 1, fail: 1, warn: 0, error: 0, skip: 0");
    expect(run.code).toBe(1);
  });

  it("exits 0 when everything passes and covers Pod controllers through autogen", async () => {
    const dir = tree({ "p/policy.yaml": REQUIRE_APP_LABEL, "r/good.yaml": PODS.split("---")[0] ?? "" });
    const ok = await cli(["apply", "p", "-r", "r"], dir);
    expect(ok.stdout).toContain("pass: 1, fail: 0, warn: 0, error: 0, skip: 0");
    expect(ok.code).toBe(0);
    const deploy = tree({ "policy.yaml": REQUIRE_APP_LABEL, "deploy.yaml": BAD_DEPLOYMENT });
    const bad = await cli(["apply", "policy.yaml", "-r", "deploy.yaml"], deploy);
    expect(bad.stdout).toContain("policy require-app-label -> resource prod/Deployment/bad-deploy failed:");
    expect(bad.stdout).toContain("1. autogen-check-app-label:");
    expect(bad.code).toBe(1);
  });

  it("names the policy argument that held no policy and what it held (resources swapped for policies)", async () => {
    const dir = tree({ "pods.yaml": PODS, "empty.yaml": "# nothing\n", "policy.yaml": REQUIRE_APP_LABEL });
    const swapped = await cli(["apply", "pods.yaml", "-r", "policy.yaml"], dir);
    expect(swapped.stderr).toContain(
      "pods.yaml: holds no kyverno.io ClusterPolicy or Policy, only 2 × Pod: policy files come first, resources go after --resource (-r)",
    );
    expect(swapped.code).toBe(2);
    const empty = await cli(["apply", "empty.yaml", "-r", "pods.yaml"], dir);
    expect(empty.stderr).toContain("empty.yaml: holds no YAML or JSON document");
    expect(empty.code).toBe(2);
  });

  it("reports Audit failures as warnings with --audit-warn", async () => {
    const audit = REQUIRE_APP_LABEL.replace(
      "validationFailureAction: Enforce",
      "validationFailureAction: Audit",
    );
    const dir = tree({ "policy.yaml": audit, "pods.yaml": PODS });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "--audit-warn"], dir);
    expect(run.stdout).toContain("pass: 1, fail: 0, warn: 1, error: 0, skip: 0");
    expect(run.code).toBe(0);
    const warnExit = await cli(
      ["apply", "policy.yaml", "-r", "pods.yaml", "--audit-warn", "--warn-exit-code", "3"],
      dir,
    );
    expect(warnExit.code).toBe(3);
  });

  it("prints a ClusterPolicyReport with -o json and nothing else on stdout", async () => {
    const dir = tree({ "policy.yaml": REQUIRE_APP_LABEL, "pods.yaml": PODS });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "-o", "json"], dir);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "ClusterPolicyReport",
      summary: { pass: 1, fail: 1, warn: 0, error: 0, skip: 0 },
    });
    expect(report.results[1]).toMatchObject({
      source: "kyverno",
      policy: "require-app-label",
      rule: "check-app-label",
      result: "fail",
      category: "Best Practices",
      severity: "medium",
      scored: true,
      resources: [{ apiVersion: "v1", kind: "Pod", name: "bad", namespace: "default" }],
    });
    expect(run.code).toBe(1);
  });

  it("prints the report block with --policy-report and a table with -t", async () => {
    const dir = tree({ "policy.yaml": REQUIRE_APP_LABEL, "pods.yaml": PODS });
    const report = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "-p"], dir);
    expect(report.stdout).toContain("POLICY REPORT:");
    expect(report.stdout).toContain("kind: ClusterPolicyReport");
    expect(report.code).toBe(1);
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "-t"], dir);
    expect(run.stdout).toMatch(/│ 2 +│ require-app-label │ check-app-label │ default\/Pod\/bad +│ Fail +│/);
  });

  it("reads resources from stdin", async () => {
    const dir = tree({ "policy.yaml": REQUIRE_APP_LABEL });
    const run = await cli(["apply", "policy.yaml", "--stdin"], dir, PODS);
    expect(run.stdout).toContain("pass: 1, fail: 1");
  });

  it("prints a YAML error on stdin once, naming stdin and the line", async () => {
    const dir = tree({ "policy.yaml": REQUIRE_APP_LABEL });
    const run = await cli(["apply", "policy.yaml", "--stdin"], dir, "a: [\nb: 1\n");
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^Error: stdin:2 \(document 1\): /),
    ]);
  });

  it("matches a Scale by its parent's kind and subresource (Deployment/scale), as declared in the values file", async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: max-replicas
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: scale-at-most-3
      match:
        any:
          - resources:
              kinds: [Deployment/scale]
      validate:
        message: "{{ request.object.spec.replicas }} replicas: at most 3"
        deny:
          conditions:
            any:
              - key: "{{ request.object.spec.replicas }}"
                operator: GreaterThan
                value: 3
`;
    const scales = `apiVersion: autoscaling/v1
kind: Scale
metadata: {name: web, namespace: default}
spec: {replicas: 5}
---
apiVersion: autoscaling/v1
kind: Scale
metadata: {name: api, namespace: default}
spec: {replicas: 2}
`;
    const values = `apiVersion: cli.kyverno.io/v1alpha1
kind: Value
subresources:
  - subresource: {name: deployments/scale, kind: Scale, group: autoscaling, version: v1}
    parentResource: {name: deployments, kind: Deployment, group: apps, version: v1}
`;
    const dir = tree({
      "policy.yaml": policy,
      "scales.yaml": scales,
      "values.yaml": values,
      "deploy.yaml": BAD_DEPLOYMENT,
    });
    const run = await cli(["apply", "policy.yaml", "-r", "scales.yaml", "-f", "values.yaml"], dir);
    expect(run.stdout).toContain(
      "policy max-replicas -> resource default/Scale/web failed: \n1. scale-at-most-3: 5 replicas: at most 3",
    );
    expect(run.stdout).toContain("pass: 1, fail: 1, warn: 0, error: 0, skip: 0");
    expect(run.code).toBe(1);
    // Without the values file a Scale is just a Scale; a Deployment is not its scale subresource.
    const unmapped = await cli(["apply", "policy.yaml", "-r", "scales.yaml", "-r", "deploy.yaml"], dir);
    expect(unmapped.stdout).toContain("pass: 0, fail: 0, warn: 0, error: 0, skip: 0");
    expect(unmapped.code).toBe(0);
  });

  it("reports verifyImages and validate.manifests rules as errors, never a silent pass, and exits 1", async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: signed
spec:
  validationFailureAction: Enforce
  rules:
    - name: verify-signature
      match:
        any:
          - resources:
              kinds: [Pod]
      verifyImages:
        - imageReferences: ["*"]
          attestors: [{entries: [{keys: {publicKeys: "k"}}]}]
    - name: signed-manifest
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        manifests:
          attestors: [{entries: [{keys: {publicKeys: "k"}}]}]
`;
    const dir = tree({ "policy.yaml": policy, "pods.yaml": PODS });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml"], dir);
    expect(run.stdout).toContain("pass: 0, fail: 0, warn: 0, error: 4, skip: 0");
    expect(run.stdout).toContain("verify-signature: verifyImages is not supported by kyverno-ts yet");
    expect(run.stdout).toContain("signed-manifest: validate.manifests is not supported by kyverno-ts yet");
    expect(run.code).toBe(1);
  });

  it("exits 2 on invalid YAML, naming the file and line", async () => {
    const dir = tree({
      "policy.yaml": REQUIRE_APP_LABEL,
      "pods.yaml": "apiVersion: v1\nkind: Pod\nmetadata: [\n",
    });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/pods\.yaml:\d+/);
    expect(run.stdout).toBe("");
  });

  it("exits 2 on an unknown policy field, naming the file and field path", async () => {
    const typo = REQUIRE_APP_LABEL.replace("        pattern:", "        patern:");
    const dir = tree({ "policy.yaml": typo, "pods.yaml": PODS });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("policy.yaml");
    expect(run.stderr).toContain("spec.rules[0].validate");
    expect(run.stderr).toContain("patern");
  });

  it("exits 2 on a missing file, a URL, or no resources", async () => {
    const dir = tree({ "policy.yaml": REQUIRE_APP_LABEL });
    const missing = await cli(["apply", "policy.yaml", "-r", "nope.yaml"], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.yaml: no such file or directory");
    const url = await cli(["apply", "https://example.com/p.yaml", "-r", "nope.yaml"], dir);
    expect(url.stderr).toContain("URLs are not fetched");
    expect(url.code).toBe(2);
    expect((await cli(["apply", "policy.yaml"], dir)).code).toBe(2);
  });

  it("exits 2 on an unknown flag", async () => {
    const run = await cli(["apply", "--bogus"], process.cwd());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option");
  });

  it("skips rules excepted by a PolicyException given with -e", async () => {
    const exception = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: bad-pod-exception
  namespace: default
spec:
  exceptions:
    - policyName: require-app-label
      ruleNames: [check-app-label]
  match:
    any:
      - resources:
          kinds: [Pod]
          names: [bad]
`;
    const dir = tree({ "policy.yaml": REQUIRE_APP_LABEL, "pods.yaml": PODS, "exception.yaml": exception });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "-e", "exception.yaml"], dir);
    expect(run.stdout).toContain("Applying 3 policy rule(s) to 2 resource(s) with 1 exception(s)...");
    expect(run.stdout).toContain("pass: 1, fail: 0, warn: 0, error: 0, skip: 1");
    expect(run.code).toBe(0);
  });

  it("draws progress on a terminal but not in CI, and always ends with a timing line", async () => {
    const dir = tree({ "policy.yaml": REQUIRE_APP_LABEL, "pods.yaml": PODS });
    const run = async (env: Record<string, string>) => {
      let stderr = "";
      const io = {
        stdout: { write: () => true },
        stderr: { write: (s: string) => (stderr += s) },
        cwd: dir,
        env,
        isTTY: true,
      };
      await runCli(["apply", "policy.yaml", "-r", "pods.yaml"], io);
      return stderr;
    };
    expect(await run({})).toContain("[2/2] resources evaluated");
    const ci = await run({ CI: "true" });
    expect(ci).not.toContain("resources evaluated");
    expect(ci).toMatch(/Applied policies to 2 resources in \d/);
  });

  it("uses --set variables and values files", async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: mode
spec:
  validationFailureAction: Enforce
  rules:
    - name: validate-mode
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: "mode {{ request.mode }} is not dev"
        deny:
          conditions:
            any:
              - key: "{{ request.mode }}"
                operator: NotEquals
                value: dev
`;
    const values = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
metadata:
  name: values
policies:
  - name: mode
    resources:
      - name: bad
        values:
          request.mode: prod
globalValues:
  request.mode: dev
`;
    const dir = tree({ "policy.yaml": policy, "pods.yaml": PODS, "values.yaml": values });
    const withValues = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "-f", "values.yaml"], dir);
    expect(withValues.stdout).toContain("pass: 1, fail: 1");
    expect(withValues.stdout).toContain("mode prod is not dev");
    const withSet = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "--set", "request.mode=dev"], dir);
    expect(withSet.stdout).toContain("pass: 2, fail: 0");
  });
});

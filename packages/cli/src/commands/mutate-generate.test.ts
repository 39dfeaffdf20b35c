import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { cli, PODS, REQUIRE_APP_LABEL, tempTree } from "../testing/harness.js";

/** Adds `team: platform` to Pods, then a foreach adds an env var to every container. */
const ADD_LABELS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-labels
spec:
  rules:
    - name: add-team
      match:
        any:
          - resources:
              kinds: [Pod]
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              +(team): platform
`;

/** Requires the label the mutate policy adds: passes only when validate sees the patched Pod. */
const REQUIRE_TEAM = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team
spec:
  validationFailureAction: Enforce
  rules:
    - name: check-team
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: "label team is required"
        pattern:
          metadata:
            labels:
              team: "?*"
`;

const PATCHED_GOOD = `apiVersion: v1
kind: Pod
metadata:
  name: good
  namespace: default
  labels:
    app: web
    team: platform
spec:
  containers:
    - name: c
      image: nginx:1.25
`;

const PATCHED_BAD = `apiVersion: v1
kind: Pod
metadata:
  name: bad
  labels:
    team: platform
spec:
  containers:
    - name: c
      image: nginx:1.25
`;

const MUTATE_TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: add-labels
policies:
  - add-labels.yaml
  - require-team.yaml
resources:
  - pods.yaml
results:
  - policy: add-labels
    rule: add-team
    kind: Pod
    resources: [good]
    patchedResources: patched-good.yaml
    result: pass
  - policy: add-labels
    rule: add-team
    kind: Pod
    resources: [bad]
    patchedResources: patched-bad.yaml
    result: pass
  - policy: require-team
    rule: check-team
    kind: Pod
    resources: [good, bad]
    result: pass
`;

/** Generates a ConfigMap from data, and clones a Secret, for every Namespace. */
const GENERATE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: namespace-defaults
spec:
  rules:
    - name: settings
      match:
        any:
          - resources:
              kinds: [Namespace]
      generate:
        apiVersion: v1
        kind: ConfigMap
        name: settings
        namespace: "{{request.object.metadata.name}}"
        synchronize: true
        data:
          data:
            owner: "{{request.object.metadata.labels.owner}}"
    - name: regcred
      match:
        any:
          - resources:
              kinds: [Namespace]
      generate:
        apiVersion: v1
        kind: Secret
        name: regcred
        namespace: "{{request.object.metadata.name}}"
        clone:
          namespace: default
          name: regcred
`;

const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels:
    owner: alice
`;

const SECRET = `apiVersion: v1
kind: Secret
metadata:
  name: regcred
  namespace: default
  uid: 1234
  resourceVersion: "99"
type: kubernetes.io/dockerconfigjson
data:
  .dockerconfigjson: e30=
`;

const GENERATED_CM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-a
  labels:
    generate.kyverno.io/rule-name: settings
data:
  owner: alice
`;

const GENERATED_SECRET = `apiVersion: v1
kind: Secret
metadata:
  name: regcred
  namespace: team-a
type: kubernetes.io/dockerconfigjson
data:
  .dockerconfigjson: e30=
`;

const GENERATE_TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: namespace-defaults
policies:
  - generate.yaml
resources:
  - namespace.yaml
clusterResources:
  - cluster/secret.yaml
results:
  - policy: namespace-defaults
    rule: settings
    kind: Namespace
    resources: [team-a]
    generatedResource: generated-cm.yaml
    result: pass
  - policy: namespace-defaults
    rule: regcred
    kind: Namespace
    resources: [team-a]
    generatedResource: generated-secret.yaml
    result: pass
`;

/** Mutate-existing: a ConfigMap in staging labels the Secrets of staging. */
const MUTATE_EXISTING = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: mutate-existing-secret
spec:
  rules:
    - name: label-secrets
      match:
        any:
          - resources:
              kinds: [ConfigMap]
              namespaces: [staging]
      mutate:
        targets:
          - apiVersion: v1
            kind: Secret
            namespace: staging
        patchStrategicMerge:
          metadata:
            labels:
              foo: bar
`;

const TRIGGER = `apiVersion: v1
kind: ConfigMap
metadata:
  name: dictionary-1
  namespace: staging
`;

const TARGET = `apiVersion: v1
kind: Secret
metadata:
  name: secret-1
  namespace: staging
`;

/** A rule whose patch cannot apply (a string where a list is), next to a rule that works. */
const BAD_PATCH = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: bad-patch
spec:
  rules:
    - name: clash
      match:
        any:
          - resources:
              kinds: [Pod]
      mutate:
        patchStrategicMerge:
          spec:
            containers: oops
    - name: replace-missing
      match:
        any:
          - resources:
              kinds: [Pod]
      mutate:
        patchesJson6902: |-
          - op: replace
            path: /spec/nothing/here
            value: 1
`;

const EXCEPTION = (namespace: string, policy = "require-app-label") => `apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: bad-pod-exception
  namespace: ${namespace}
spec:
  exceptions:
    - policyName: ${policy}
      ruleNames: [check-app-label]
  match:
    any:
      - resources:
          kinds: [Pod]
          names: [bad]
`;

describe("mutate and generate", () => {
  const trees: Array<() => void> = [];
  const tree = (files: Record<string, string>) => {
    const t = tempTree(files);
    trees.push(t.cleanup);
    return t.dir;
  };
  afterEach(() => {
    for (const cleanup of trees.splice(0)) cleanup();
  });

  it("apply: a later foreach's elementIndex indexes the list an earlier foreach patched, as upstream", async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: reindex}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        preconditions: {all: [{key: "{{element.name}}", operator: Equals, value: a}]}
        patchesJson6902: |-
          - op: remove
            path: /spec/containers/{{elementIndex}}
      - list: request.object.spec.containers
        patchesJson6902: |-
          - op: add
            path: /spec/containers/{{elementIndex}}/env
            value: [{name: IDX, value: "{{elementIndex}}"}]
`;
    const pod = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - {name: a, image: nginx}
  - {name: b, image: nginx}
  - {name: c, image: nginx}
`;
    const run = await cli(
      ["apply", "policy.yaml", "--resource", "pod.yaml"],
      tree({ "policy.yaml": policy, "pod.yaml": pod }),
    );
    const body = run.stdout.split("applied to default/Pod/p:\n")[1]?.split("\n---")[0] ?? "";
    const patched = parse(body) as {
      spec: { containers: Array<{ name: string; env?: Array<{ value: string }> }> };
    };
    // The second foreach sees [b, c]: b is index 0, c index 1.
    expect(patched.spec.containers.map((c) => [c.name, c.env?.[0]?.value])).toEqual([
      ["b", "0"],
      ["c", "1"],
    ]);
    expect(run.code).toBe(0);
  });

  describe("test", () => {
    const mutateTree = (patchedBad: string) =>
      tree({
        "t/add-labels.yaml": ADD_LABELS,
        "t/require-team.yaml": REQUIRE_TEAM,
        "t/pods.yaml": PODS,
        "t/patched-good.yaml": PATCHED_GOOD,
        "t/patched-bad.yaml": patchedBad,
        "t/kyverno-test.yaml": MUTATE_TEST,
      });

    it("judges patchedResources and validates the mutated resource", async () => {
      const run = await cli(["test", "t", "-o", "json"], mutateTree(PATCHED_BAD));
      const out = JSON.parse(run.stdout) as { results: Array<Record<string, unknown>> };
      expect(out.results.map((r) => [r.policy, r.resource, r.ok, r.reason])).toEqual([
        ["add-labels", "good", true, "Ok"],
        ["add-labels", "bad", true, "Ok"],
        ["require-team", "good", true, "Ok"],
        ["require-team", "bad", true, "Ok"],
      ]);
      expect(run.code).toBe(0);
    });

    it("fails a line whose patched resource differs, naming the differing field", async () => {
      const run = await cli(
        ["test", "t", "--detailed-results"],
        mutateTree(PATCHED_BAD.replace("team: platform", "team: other")),
      );
      expect(run.stdout).toMatch(/│ 2 +│ add-labels +│ add-team +│ Pod\/bad +│ Fail +│ Resource diff +│/);
      expect(run.stdout).toContain('/metadata/labels/team: expected "other", got "platform"');
      expect(run.code).toBe(1);
    });

    it("judges generatedResource for data and for clones from clusterResources", async () => {
      const files = {
        "t/generate.yaml": GENERATE,
        "t/namespace.yaml": NAMESPACE,
        "t/cluster/secret.yaml": SECRET,
        "t/generated-cm.yaml": GENERATED_CM,
        "t/generated-secret.yaml": GENERATED_SECRET,
        "t/kyverno-test.yaml": GENERATE_TEST,
      };
      const ok = await cli(["test", "t", "-o", "json"], tree(files));
      const out = JSON.parse(ok.stdout) as { results: Array<Record<string, unknown>> };
      expect(out.results.map((r) => [r.rule, r.ok, r.reason])).toEqual([
        ["settings", true, "Ok"],
        ["regcred", true, "Ok"],
      ]);
      expect(ok.code).toBe(0);
      // Without the clone source, the clone rule errors instead of crashing the run.
      const noSource = await cli(
        ["test", "t", "-o", "json", "--detailed-results"],
        tree({ ...files, "t/kyverno-test.yaml": GENERATE_TEST.replace(/clusterResources:\n.*\n/, "") }),
      );
      const failed = JSON.parse(noSource.stdout) as { results: Array<Record<string, unknown>> };
      expect(failed.results[0]).toMatchObject({ rule: "settings", ok: true });
      expect(failed.results[1]).toMatchObject({ rule: "regcred", ok: false, actual: "error" });
      expect(String(failed.results[1]?.message)).toContain("v1/Secret default/regcred not found");
      expect(noSource.code).toBe(1);
    });

    it("judges mutate-existing targets from targetResources", async () => {
      const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata:
  name: mutate-existing
policies: [policy.yaml]
resources: [trigger.yaml]
targetResources: [target.yaml]
results:
  - policy: mutate-existing-secret
    rule: label-secrets
    resources: [secret-1]
    patchedResources: patched.yaml
    result: pass
`;
      const patched = TARGET.replace("  namespace: staging", "  namespace: staging\n  labels:\n    foo: bar");
      const dir = tree({
        "t/policy.yaml": MUTATE_EXISTING,
        "t/trigger.yaml": TRIGGER,
        "t/target.yaml": TARGET,
        "t/patched.yaml": patched,
        "t/kyverno-test.yaml": test,
      });
      const run = await cli(["test", "t"], dir);
      expect(run.stdout).toMatch(
        /│ 1 +│ mutate-existing-secret +│ label-secrets +│ secret-1 +│ Pass +│ Ok +│/,
      );
      expect(run.code).toBe(0);
    });
  });

  describe("apply", () => {
    it("prints the mutated resource and validates it after mutation", async () => {
      const dir = tree({
        "add-labels.yaml": ADD_LABELS,
        "require-team.yaml": REQUIRE_TEAM,
        "pods.yaml": PODS,
      });
      const run = await cli(["apply", "add-labels.yaml", "require-team.yaml", "-r", "pods.yaml"], dir);
      expect(run.stdout).toContain(
        "mutate policy add-labels applied to default/Pod/good:\napiVersion: v1\nkind: Pod\n",
      );
      expect(run.stdout).toContain("    team: platform\n");
      expect(run.stdout).toContain("pass: 4, fail: 0, warn: 0, error: 0, skip: 0");
      expect(run.code).toBe(0);
    });

    it("writes mutated resources into a directory with -o <dir>, one file per resource", async () => {
      const dir = tree({ "add-labels.yaml": ADD_LABELS, "pods.yaml": PODS });
      const run = await cli(["apply", "add-labels.yaml", "-r", "pods.yaml", "-o", "out"], dir);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("2 mutated/generated resources written to out");
      expect(run.stdout).not.toContain("apiVersion:");
      expect(readdirSync(join(dir, "out")).sort()).toEqual(["bad-mutated.yaml", "good-mutated.yaml"]);
      const good = parse(readFileSync(join(dir, "out", "good-mutated.yaml"), "utf8"));
      expect(good.metadata.labels).toEqual({ app: "web", team: "platform" });
    });

    it("writes one multi-document file with -o <file>.yaml, and keeps -o json as machine output", async () => {
      const dir = tree({ "add-labels.yaml": ADD_LABELS, "pods.yaml": PODS });
      await cli(["apply", "add-labels.yaml", "-r", "pods.yaml", "-o", "mutated.yaml"], dir);
      const docs = parseAllDocuments(readFileSync(join(dir, "mutated.yaml"), "utf8"));
      expect(Array.isArray(docs) ? docs.map((d) => d.toJS().metadata.name) : []).toEqual(["good", "bad"]);
      const json = await cli(["apply", "add-labels.yaml", "-r", "pods.yaml", "-o", "json"], dir);
      expect(JSON.parse(json.stdout)).toMatchObject({ kind: "ClusterPolicyReport" });
      expect(existsSync(join(dir, "json"))).toBe(false);
    });

    it("prints generated resources, cloning from --cluster-resource", async () => {
      const dir = tree({ "generate.yaml": GENERATE, "ns.yaml": NAMESPACE, "secret.yaml": SECRET });
      const run = await cli(
        ["apply", "generate.yaml", "-r", "ns.yaml", "--cluster-resource", "secret.yaml"],
        dir,
      );
      expect(run.stdout).toContain("generate policy namespace-defaults applied to /Namespace/team-a:");
      expect(run.stdout).toContain("generate.kyverno.io/clone-source: default/regcred");
      expect(run.stdout).not.toContain("resourceVersion");
      expect(run.stdout).toContain("pass: 2, fail: 0, warn: 0, error: 0, skip: 0");
      expect(run.code).toBe(0);
    });

    it("prints the patched targets of mutate-existing rules from --target-resource", async () => {
      const dir = tree({ "policy.yaml": MUTATE_EXISTING, "trigger.yaml": TRIGGER, "target.yaml": TARGET });
      const run = await cli(
        ["apply", "policy.yaml", "-r", "trigger.yaml", "--target-resource", "target.yaml"],
        dir,
      );
      expect(run.stdout).toContain(
        "mutate policy mutate-existing-secret applied to staging/ConfigMap/dictionary-1:",
      );
      expect(run.stdout).toContain("patched targets:\n\napiVersion: v1\nkind: Secret\n");
      expect(run.stdout).toContain("    foo: bar\n");
      expect(run.stdout).toContain("pass: 1, fail: 0");
      expect(run.code).toBe(0);
    });

    it("reports a patch that cannot apply as a rule error with its reason, exit 1, other policies still run", async () => {
      const dir = tree({ "bad.yaml": BAD_PATCH, "add-labels.yaml": ADD_LABELS, "pods.yaml": PODS });
      const run = await cli(["apply", "bad.yaml", "add-labels.yaml", "-r", "pods.yaml"], dir);
      expect(run.stdout).toContain("policy bad-patch -> resource default/Pod/good error: ");
      expect(run.stdout).toMatch(/1\. clash: failed to apply patchStrategicMerge: .*\/spec\/containers/);
      expect(run.stdout).toMatch(/2\. replace-missing: failed to apply patchesJson6902: /);
      expect(run.stdout).toContain("mutate policy add-labels applied to default/Pod/good:");
      expect(run.stdout).toContain("pass: 2, fail: 0, warn: 0, error: 4, skip: 0");
      expect(run.stderr).not.toContain("internal error");
      expect(run.code).toBe(1);
    });

    it("skips a rule excepted by -e, and warns about exceptions outside --exception-namespace", async () => {
      const dir = tree({
        "policy.yaml": REQUIRE_APP_LABEL,
        "pods.yaml": PODS,
        "exception.yaml": EXCEPTION("team-a"),
      });
      const applied = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "-e", "exception.yaml"], dir);
      expect(applied.stdout).toContain("pass: 1, fail: 0, warn: 0, error: 0, skip: 1");
      expect(applied.stderr).not.toContain("Warning");
      expect(applied.code).toBe(0);
      const ignored = await cli(
        [
          "apply",
          "policy.yaml",
          "-r",
          "pods.yaml",
          "-e",
          "exception.yaml",
          "--exception-namespace",
          "kyverno,team-b*",
        ],
        dir,
      );
      expect(ignored.stderr).toContain(
        'Warning: PolicyException team-a/bad-pod-exception ignored: namespace "team-a" is not accepted by --exception-namespace kyverno,team-b*',
      );
      expect(ignored.stdout).toContain("pass: 1, fail: 1, warn: 0, error: 0, skip: 0");
      expect(ignored.code).toBe(1);
      const wildcard = await cli(
        [
          "apply",
          "policy.yaml",
          "-r",
          "pods.yaml",
          "-e",
          "exception.yaml",
          "--exception-namespace",
          "team-*",
        ],
        dir,
      );
      expect(wildcard.stdout).toContain("skip: 1");
    });

    it("warns about an exception naming a policy that is not loaded", async () => {
      const dir = tree({
        "policy.yaml": REQUIRE_APP_LABEL,
        "pods.yaml": PODS,
        "exception.yaml": EXCEPTION("default", "no-such-policy"),
      });
      const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml", "-e", "exception.yaml"], dir);
      expect(run.stderr).toContain(
        'Warning: PolicyException default/bad-pod-exception names policy "no-such-policy", which is not loaded',
      );
      expect(run.stdout).toContain("pass: 1, fail: 1");
      expect(run.code).toBe(1);
    });
  });
});

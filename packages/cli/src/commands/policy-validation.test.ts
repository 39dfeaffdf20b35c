import { afterEach, describe, expect, it } from "vitest";
import { cli, PODS, tempTree } from "../testing/harness.js";

/** A ClusterPolicy with one rule (YAML lines indented under `rules:`) and extra spec lines. */
function policy(rule: string, spec = ""): string {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: p
spec:
${spec}  rules:
${rule}`;
}

const WHO = `    - name: who
      match:
        any:
          - resources:
              kinds: [Pod]
      validate:
        message: "{{ request.userInfo.username }} may not do this"
        deny: {}
`;

const SYNC_CLONE = `    - name: sync
      match:
        any:
          - resources:
              kinds: [Namespace]
      generate:
        apiVersion: v1
        kind: Secret
        name: regcred
        namespace: "{{request.object.metadata.name}}"
        synchronize: true
        clone:
          namespace: "{{request.object.metadata.labels.\\"secret-source\\"}}"
          name: regcred
`;

const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels:
    secret-source: shared
`;

const SECRET = `apiVersion: v1
kind: Secret
metadata:
  name: regcred
  namespace: shared
data:
  token: dG9rZW4=
`;

describe("policies upstream rejects at admission are input errors of apply", () => {
  const trees: Array<() => void> = [];
  const tree = (files: Record<string, string>) => {
    const t = tempTree(files);
    trees.push(t.cleanup);
    return t.dir;
  };
  afterEach(() => {
    for (const cleanup of trees.splice(0)) cleanup();
  });

  it("rejects requester variables in a background policy, naming the field", async () => {
    const dir = tree({ "policy.yaml": policy(WHO), "pods.yaml": PODS });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "spec.rules[0].validate.message: only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: variable {{ request.userInfo.username }} is not allowed",
    );
    const admissionOnly = tree({ "policy.yaml": policy(WHO, "  background: false\n"), "pods.yaml": PODS });
    const ok = await cli(["apply", "policy.yaml", "-r", "pods.yaml"], admissionOnly);
    expect(ok.stderr).not.toContain("spec.rules");
    expect(ok.code).toBe(1);
  });

  it("rejects a policy with admission and background both off", async () => {
    const spec = "  admission: false\n  background: false\n";
    const dir = tree({ "policy.yaml": policy(WHO, spec), "pods.yaml": PODS });
    const run = await cli(["apply", "policy.yaml", "-r", "pods.yaml"], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "spec.admission: disabling both admission and background processing is not allowed",
    );
  });

  it("accepts a synchronized clone whose source namespace is a variable, and clones from it", async () => {
    const dir = tree({ "policy.yaml": policy(SYNC_CLONE), "ns.yaml": NAMESPACE, "secret.yaml": SECRET });
    const run = await cli(
      ["apply", "policy.yaml", "-r", "ns.yaml", "--cluster-resource", "secret.yaml"],
      dir,
    );
    expect(run.stderr).not.toContain("spec.rules");
    expect(run.stdout).toContain("generate.kyverno.io/clone-source: shared/regcred");
    expect(run.stdout).toContain("  namespace: team-a\n");
    expect(run.stdout).toContain("pass: 1, fail: 0");
    expect(run.code).toBe(0);
  });
});

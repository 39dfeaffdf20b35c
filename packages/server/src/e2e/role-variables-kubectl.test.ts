/**
 * Role variables at admission (issue #18), through kubectl: `request.roles` (`namespace:name` of the
 * Roles bound to the requester) and `request.clusterRoles` are the requester's RBAC bindings, as
 * upstream builds them from RoleBindings and ClusterRoleBindings; a policy that reads them must not
 * run in background mode (rejected at apply, naming the field).
 */
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policyReady } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the role variables e2e suite: kubectl is not installed");

const RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: editor, namespace: team}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, create, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: jane-editor, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: editor}
subjects:
- {kind: User, name: jane, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: configmap-reader}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: devs-configmap-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: configmap-reader}
subjects:
- {kind: Group, name: devs, apiGroup: rbac.authorization.k8s.io}
`;

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: who-may}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
  - name: editors-only
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [team]}}]}
    validate:
      message: "roles={{ request.roles }} clusterRoles={{ request.clusterRoles }}"
      deny:
        conditions:
          all:
          - {key: "team:editor", operator: AnyNotIn, value: "{{ request.roles }}"}
`;

describe.skipIf(!hasKubectl)("role variables at admission, through kubectl", { timeout: 60_000 }, () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];
  let jane: ReturnType<typeof kubectlFor>;
  const configMap = (name: string) => `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}, namespace: team}
data: {a: "1"}
`;

  beforeAll(async () => {
    cluster = await startE2eCluster({
      sandbox: { users: [{ username: "jane", groups: ["devs"] }] },
      namespaces: ["kyverno", "team"],
      // The requesters' bindings exist before the admission controller starts.
      manifests: [RBAC],
      inProcess: {},
    });
    ({ client, kubectl } = cluster);
    jane = kubectlFor(cluster.sandbox.kubeconfigPath, "jane");
    const applied = await kubectl(["apply", "-f", "-"], POLICY);
    expect(applied.stderr).toBe("");
    await policyReady(client, "who-may");
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("admits a requester bound to the Role the rule names (request.roles is namespace:name)", async () => {
    const created = await jane(["apply", "-f", "-"], configMap("by-jane"));
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
  });

  it("denies another requester, the message showing its roles and cluster roles", async () => {
    const denied = await kubectl(["apply", "-f", "-"], configMap("by-admin"));
    expect(denied.code).toBe(1);
    // kubernetes-admin is in system:masters: bound to cluster-admin by the bootstrap binding (and,
    // as every authenticated user, to system:basic-user and friends).
    expect(denied.stderr).toMatch(/editors-only: roles=\[\] clusterRoles=\[[^\]]*"cluster-admin"/);
  });

  it("rejects role variables in a background policy at kubectl apply, naming the field", async () => {
    const rejected = await kubectl(
      ["apply", "-f", "-"],
      POLICY.replace("name: who-may", "name: who-may-background").replace(
        "background: false",
        "background: true",
      ),
    );
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('admission webhook "validate-policy.kyverno.svc" denied the request');
    for (const variable of ["{{ request.roles }}", "{{ request.clusterRoles }}"])
      expect(rejected.stderr).toContain(
        `only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: variable ${variable} is not allowed`,
      );
    expect(rejected.stderr).toContain("spec.rules[0].validate.message");
  });
});

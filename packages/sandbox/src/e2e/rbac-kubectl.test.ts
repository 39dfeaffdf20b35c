import { kubectlAvailable, kubectlFor, NO_KUBECTL } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../index.js";
import { raw } from "./raw.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn(`skipping kubectl RBAC e2e tests: ${NO_KUBECTL}`);

const BOT = "system:serviceaccount:team-a:bot";

describe.skipIf(!hasKubectl)("RBAC, tokens and access reviews with kubectl", () => {
  let sandbox: Sandbox;
  let kubectl: ReturnType<typeof kubectlFor>;
  let jane: ReturnType<typeof kubectlFor>;

  beforeAll(async () => {
    sandbox = await startSandbox({ users: [{ username: "jane", groups: ["devs"] }] });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    jane = kubectlFor(sandbox.kubeconfigPath, "jane");
    await sandbox.settled();
    for (const args of [
      ["create", "namespace", "team-a"],
      ["create", "serviceaccount", "bot", "-n", "team-a"],
      [
        "create",
        "rolebinding",
        "bot-view",
        "--clusterrole=view",
        "--serviceaccount=team-a:bot",
        "-n",
        "team-a",
      ],
    ])
      expect((await kubectl(args)).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("names the default admin kubernetes-admin in system:masters (kubectl auth whoami)", async () => {
    const whoami = await kubectl(["auth", "whoami"]);
    expect(whoami.stdout).toMatch(/Username\s+kubernetes-admin\n/);
    expect(whoami.stdout).toMatch(/Groups\s+\[system:masters system:authenticated\]/);
    expect((await kubectl(["config", "current-context"])).stdout).toBe("kubernetes-admin\n");
  });

  it("answers kubectl auth can-i for a service account bound through a RoleBinding to a ClusterRole", async () => {
    const can = (args: string[]) => kubectl(["auth", "can-i", ...args, "--as", BOT]);
    expect(await can(["list", "pods", "-n", "team-a"])).toMatchObject({ code: 0, stdout: "yes\n" });
    expect(await can(["get", "deployments.apps/scale", "-n", "team-a"])).toMatchObject({ stdout: "yes\n" });
    expect(await can(["create", "pods", "-n", "team-a"])).toMatchObject({ code: 1, stdout: "no\n" });
    expect(await can(["get", "secrets", "-n", "team-a"])).toMatchObject({ code: 1, stdout: "no\n" });
    expect(await can(["list", "pods", "-n", "default"])).toMatchObject({ code: 1, stdout: "no\n" });
    expect(await can(["list", "pods", "--all-namespaces"])).toMatchObject({ code: 1, stdout: "no\n" });
    const list = await kubectl(["auth", "can-i", "--list", "-n", "team-a", "--as", BOT]);
    expect(list.stdout).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
    expect(list.stdout).toMatch(/\n\s*deployments\.apps\/scale\s+\[\]\s+\[\]\s+\[get list watch\]/);
    expect(list.stdout).toMatch(
      /\n\s*selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/,
    );
  });

  it("refuses with a 403 naming the user, verb, resource, group and scope", async () => {
    const token = (await kubectl(["create", "token", "bot", "-n", "team-a"])).stdout.trim();
    const asBot = (args: string[]) => kubectl(["--token", token, ...args]);
    expect((await asBot(["get", "pods", "-n", "team-a"])).code).toBe(0);
    const denied = await asBot(["create", "configmap", "x", "-n", "team-a"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      `error: failed to create configmap: configmaps is forbidden: User "${BOT}" cannot create resource "configmaps" in API group "" in the namespace "team-a"`,
    );
    const cluster = await asBot(["get", "deployments.apps", "-A"]);
    expect(cluster.stderr).toBe(
      `Error from server (Forbidden): deployments.apps is forbidden: User "${BOT}" cannot list resource "deployments" in API group "apps" at the cluster scope\n`,
    );
    const path = await asBot(["get", "--raw", "/metrics"]);
    expect(path.stderr).toContain(
      `Error from server (Forbidden): forbidden: User "${BOT}" cannot get path "/metrics"`,
    );
    const scale = await raw(sandbox, "PUT", "/apis/apps/v1/namespaces/team-a/deployments/web/scale", {
      token,
      contentType: "application/json",
      body: "{}",
    });
    expect(scale.status).toBe(403);
    expect(JSON.parse(scale.body)).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `deployments.apps "web" is forbidden: User "${BOT}" cannot update resource "deployments/scale" in API group "apps" in the namespace "team-a"`,
      reason: "Forbidden",
      details: { name: "web", group: "apps", kind: "deployments" },
      code: 403,
    });
  });

  it("issues tokens with kubectl create token that authenticate until the service account is recreated", async () => {
    const token = (
      await kubectl(["create", "token", "bot", "-n", "team-a", "--duration", "15m"])
    ).stdout.trim();
    expect(token.split(".")).toHaveLength(3);
    const whoami = await kubectl(["--token", token, "auth", "whoami"]);
    expect(whoami.stdout).toMatch(new RegExp(`Username\\s+${BOT}\\n`));
    expect(whoami.stdout).toMatch(
      /Groups\s+\[system:serviceaccounts system:serviceaccounts:team-a system:authenticated\]/,
    );
    const short = await kubectl(["create", "token", "bot", "-n", "team-a", "--duration", "1m"]);
    expect(short.stderr).toContain("may not specify a duration less than 10 minutes");
    expect((await kubectl(["delete", "sa", "bot", "-n", "team-a"])).code).toBe(0);
    expect((await kubectl(["create", "sa", "bot", "-n", "team-a"])).code).toBe(0);
    const stale = await kubectl(["--token", token, "get", "pods", "-n", "team-a"]);
    expect(stale.stderr).toContain("error: You must be logged in to the server (Unauthorized)");
    const review = await kubectl(
      ["create", "-o", "json", "-f", "-"],
      JSON.stringify({
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenReview",
        spec: { token },
      }),
    );
    expect(JSON.parse(review.stdout).status).toMatchObject({
      user: {},
      error: expect.stringContaining("does not match claim"),
    });
  });

  it("fills legacy service account token Secrets that then authenticate, and deletes them with their service account", async () => {
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      type: "kubernetes.io/service-account-token",
      metadata: {
        name: "bot-token",
        namespace: "team-a",
        annotations: { "kubernetes.io/service-account.name": "bot" },
      },
    };
    expect((await kubectl(["apply", "-f", "-"], JSON.stringify(secret))).code).toBe(0);
    await sandbox.settled();
    const data = JSON.parse(
      (await kubectl(["get", "secret", "bot-token", "-n", "team-a", "-o", "json"])).stdout,
    ).data;
    expect(Buffer.from(data.namespace, "base64").toString()).toBe("team-a");
    expect(Buffer.from(data["ca.crt"], "base64").toString()).toBe(sandbox.caCertPem);
    const token = Buffer.from(data.token, "base64").toString();
    expect((await kubectl(["--token", token, "auth", "whoami"])).stdout).toContain(BOT);
    expect((await kubectl(["delete", "sa", "bot", "-n", "team-a"])).code).toBe(0);
    await sandbox.settled();
    expect((await kubectl(["get", "secret", "bot-token", "-n", "team-a"])).stderr).toContain(
      'Error from server (NotFound): secrets "bot-token" not found',
    );
    expect((await kubectl(["--token", token, "auth", "whoami"])).stderr).toContain("Unauthorized");
    expect((await kubectl(["create", "sa", "bot", "-n", "team-a"])).code).toBe(0);
  });

  it("shows aggregated rules in kubectl get clusterrole admin and follows new labelled roles", async () => {
    const admin = await kubectl(["get", "clusterrole", "admin", "-o", "yaml"]);
    expect(admin.stdout).toContain('rbac.authorization.k8s.io/aggregate-to-admin: "true"');
    expect(admin.stdout).toContain("- rolebindings");
    expect(admin.stdout).toContain("- deployments/scale");
    expect(admin.stdout).toContain("kubernetes.io/bootstrapping: rbac-defaults");
    const extra = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "secrets-get", labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: ["shared"] }],
    };
    expect((await kubectl(["apply", "-f", "-"], JSON.stringify(extra))).code).toBe(0);
    await sandbox.settled();
    for (const role of ["view", "edit", "admin"])
      expect((await kubectl(["get", "clusterrole", role, "-o", "yaml"])).stdout).toContain("- shared");
    const can = (name: string) =>
      kubectl(["auth", "can-i", "get", `secrets/${name}`, "-n", "team-a", "--as", BOT]);
    expect((await can("shared")).stdout).toBe("yes\n");
    expect((await can("other")).stdout).toBe("no\n");
  });

  it("impersonates with --as when allowed, and refuses users without the impersonate verb", async () => {
    expect((await kubectl(["auth", "whoami", "--as", "alice", "--as-group", "qa"])).stdout).toMatch(
      /Username\s+alice\nGroups\s+\[qa system:authenticated\]/,
    );
    const denied = await jane(["get", "--raw", "/api/v1/namespaces/default/pods", "--as", "alice"]);
    expect(denied.stderr).toBe(
      'Error from server (Forbidden): users "alice" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope\n',
    );
    const group = await jane([
      "get",
      "--raw",
      "/api/v1/namespaces/default/pods",
      "--as",
      "jane",
      "--as-group",
      "system:masters",
    ]);
    expect(group.stderr).toContain('users "jane" is forbidden');
    expect((await jane(["auth", "can-i", "list", "pods"])).stdout).toBe("no\n");
    expect(
      (await kubectl(["create", "clusterrolebinding", "jane-admin", "--clusterrole=admin", "--user=jane"]))
        .code,
    ).toBe(0);
    expect((await jane(["auth", "can-i", "list", "pods"])).stdout).toBe("yes\n");
    expect((await jane(["get", "pods", "-n", "team-a", "--as", BOT])).code).toBe(0);
    expect((await jane(["get", "secrets", "-n", "team-a", "--as", BOT])).stderr).toContain(
      `User "${BOT}" cannot list resource "secrets"`,
    );
  });

  it("refuses to grant permissions the granter does not hold (escalation prevention)", async () => {
    // jane holds ClusterRole admin everywhere (bound in the test above), not cluster-admin.
    const role = await jane([
      "create",
      "role",
      "node-reader",
      "--verb=get",
      "--resource=nodes",
      "-n",
      "team-a",
    ]);
    expect(role.code).toBe(1);
    expect(role.stderr).toContain(
      'roles.rbac.authorization.k8s.io "node-reader" is forbidden: user "jane" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}',
    );
    const bind = [
      "create",
      "rolebinding",
      "bob-admin",
      "--clusterrole=cluster-admin",
      "--user=bob",
      "-n",
      "team-a",
    ];
    expect((await jane(bind)).stderr).toContain(
      'rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: user "jane"',
    );
    expect(
      (await jane(["create", "role", "pod-reader", "--verb=get,list", "--resource=pods", "-n", "team-a"]))
        .code,
    ).toBe(0);
    expect(
      (await jane(["create", "rolebinding", "bob-view", "--clusterrole=view", "--user=bob", "-n", "team-a"]))
        .code,
    ).toBe(0);
    expect((await kubectl(bind)).code).toBe(0);
  });

  it("lets anonymous requests read /version and health only", async () => {
    expect((await raw(sandbox, "GET", "/version")).status).toBe(200);
    expect((await raw(sandbox, "GET", "/readyz")).status).toBe(200);
    const denied = await raw(sandbox, "GET", "/api/v1/namespaces");
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body).message).toBe(
      'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    expect((await raw(sandbox, "GET", "/api/v1/namespaces", { token: "wrong" })).status).toBe(401);
  });
});

describe.skipIf(!hasKubectl)("authorization mode AlwaysAllow", () => {
  it("lets every authenticated user do everything, and anonymous users nothing", async () => {
    const sandbox = await startSandbox({ authorization: "AlwaysAllow", users: [{ username: "jane" }] });
    try {
      const jane = kubectlFor(sandbox.kubeconfigPath, "jane");
      expect((await jane(["create", "namespace", "free"])).code).toBe(0);
      expect((await jane(["auth", "can-i", "delete", "nodes"])).stdout).toBe("yes\n");
      expect((await raw(sandbox, "GET", "/api/v1/namespaces")).status).toBe(401);
      expect((await raw(sandbox, "GET", "/version")).status).toBe(200);
    } finally {
      await sandbox.stop();
    }
  });
});

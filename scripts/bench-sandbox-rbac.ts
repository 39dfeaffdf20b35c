// Sandbox authorization benchmark (not a test): what RBAC costs per request. In-process, the RBAC
// authorizer's decision time through a RoleBinding behind N ClusterRoleBindings (allowed and denied);
// over HTTPS, the CPU per request (client and server, one process) of a service account listing
// ConfigMaps under RBAC, against the same request under AlwaysAllow and by system:masters (the floor:
// no RBAC walk), in alternating rounds, as medians.
// Usage: node scripts/bench-sandbox-rbac.ts [--bindings 50] [--rounds 12] [--requests 500]
import { Agent, request } from "node:https";
import { type Sandbox, startSandbox } from "../packages/sandbox/dist/index.js";
import { createRbacAuthorizer } from "../packages/sandbox/dist/rbac/authorizer.js";
import { createStore } from "../packages/sandbox/dist/store/store.js";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const BINDINGS = flag("bindings", 50);
const ROUNDS = flag("rounds", 12);
const REQUESTS = flag("requests", 500);
const RBAC = "rbac.authorization.k8s.io";
const BOT = "system:serviceaccount:team-a:bot";
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function micro(): void {
  const store = createStore();
  store.create(`${RBAC}/clusterroles`, {
    metadata: { name: "view" },
    rules: [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["configmaps", "pods"] }],
  });
  for (let i = 0; i < BINDINGS; i++)
    store.create(`${RBAC}/clusterrolebindings`, {
      metadata: { name: `crb-${i}` },
      roleRef: { kind: "ClusterRole", name: "view" },
      subjects: [{ kind: "User", name: `user-${i}` }],
    });
  store.create(`${RBAC}/rolebindings`, {
    metadata: { name: "bot", namespace: "team-a" },
    roleRef: { kind: "ClusterRole", name: "view" },
    subjects: [{ kind: "ServiceAccount", name: "bot" }],
  });
  const authorizer = createRbacAuthorizer(store);
  const user = {
    username: BOT,
    groups: ["system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated"],
  };
  const attrs = {
    kind: "resource" as const,
    verb: "list",
    group: "",
    version: "v1",
    resource: "configmaps",
    subresource: "",
    namespace: "team-a",
    name: "",
  };
  for (const [what, a] of [
    ["allowed", attrs],
    ["denied", { ...attrs, namespace: "other" }],
  ] as const) {
    const times: number[] = [];
    for (let r = 0; r < 5; r++) {
      const n = 100_000;
      const t = process.hrtime.bigint();
      for (let i = 0; i < n; i++) authorizer.authorize(user, a);
      times.push(Number(process.hrtime.bigint() - t) / n / 1000);
    }
    console.log(
      `authorize(), ${what}, behind ${BINDINGS} ClusterRoleBindings: ${median(times).toFixed(2)} us/decision`,
    );
  }
}

async function prepare(mode: "RBAC" | "AlwaysAllow"): Promise<{ sandbox: Sandbox; agent: Agent }> {
  const sandbox = await startSandbox({ authorization: mode, users: [{ username: BOT }] });
  const agent = new Agent({ keepAlive: true, ca: sandbox.caCertPem, maxSockets: 8 });
  const admin = sandbox.users["kubernetes-admin"] ?? "";
  const post = (path: string, body: object) =>
    call(sandbox, agent, "POST", path, admin, JSON.stringify(body));
  await post("/api/v1/namespaces", { metadata: { name: "team-a" } });
  for (let i = 0; i < BINDINGS; i++)
    await post(`/apis/${RBAC}/v1/clusterrolebindings`, {
      metadata: { name: `crb-${i}` },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "view" },
      subjects: [{ kind: "User", name: `user-${i}` }],
    });
  await post(`/apis/${RBAC}/v1/namespaces/team-a/rolebindings`, {
    metadata: { name: "bot" },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "view" },
    subjects: [{ kind: "ServiceAccount", name: "bot" }],
  });
  await sandbox.settled();
  return { sandbox, agent };
}

function call(
  sandbox: Sandbox,
  agent: Agent,
  method: string,
  path: string,
  token: string,
  body?: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${sandbox.url}${path}`,
      { method, agent, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function round(s: { sandbox: Sandbox; agent: Agent }, token: string): Promise<number> {
  const cpu = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i += 8)
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const code = await call(s.sandbox, s.agent, "GET", "/api/v1/namespaces/team-a/configmaps", token);
        if (code !== 200) throw new Error(`status ${code}`);
      }),
    );
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / REQUESTS;
}

micro();
const rbac = await prepare("RBAC");
const allow = await prepare("AlwaysAllow");
const cases = [
  ["AlwaysAllow, service account", allow, allow.sandbox.users[BOT] ?? ""],
  ["RBAC, system:masters (floor)", rbac, rbac.sandbox.users["kubernetes-admin"] ?? ""],
  ["RBAC, service account via RoleBinding", rbac, rbac.sandbox.users[BOT] ?? ""],
] as const;
const results = new Map<string, number[]>(cases.map(([name]) => [name, []]));
for (const [, s, token] of cases) await round(s, token);
for (let r = 0; r < ROUNDS; r++)
  for (const [name, s, token] of cases) results.get(name)?.push(await round(s, token));
for (const [name, values] of results)
  console.log(
    `${name}: ${median(values).toFixed(0)} us CPU/request (median of ${ROUNDS} rounds of ${REQUESTS})`,
  );
for (const s of [rbac, allow]) {
  s.agent.destroy();
  await s.sandbox.stop();
}

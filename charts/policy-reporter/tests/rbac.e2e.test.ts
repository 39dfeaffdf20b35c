/**
 * End to end, against the sandbox API server with RBAC: the chart's rendered ClusterRole, Role and
 * bindings are applied, and `kyverno-ts reporter` runs as the chart's ServiceAccount with the rendered
 * configuration file and the Deployment's arguments (two replicas' worth of leader election, basic
 * auth from a secretRef, metrics). It must list and watch the reports and policies, read the report's
 * owner, read its Secret and hold its Lease, all without a single 403, and get nothing more.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type ReporterReadyInfo, runReporterCommand } from "@kyverno-ts/reporter";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  liveResult,
  openReportsCrds,
  POLICY_REPORT_CRDS,
  policyReport,
} from "../../../packages/reporter/src/testing/cluster.ts";
import { find, type RenderedObject, render } from "../../../scripts/charts/helm-render.ts";

const NAMESPACE = "platform";
const SERVICE_ACCOUNT = `system:serviceaccount:${NAMESPACE}:policy-reporter`;
const KYVERNO_CRDS = new URL("../../../../shared/reference/kyverno-crds/kyverno/", import.meta.url).pathname;

const objects = render("charts/policy-reporter", {
  namespace: NAMESPACE,
  set: {
    replicaCount: "2",
    "basicAuth.secretRef": "reporter-auth",
    "metrics.enabled": "true",
    "logging.encoding": "json",
  },
});

function output() {
  const chunks: string[] = [];
  return { write: (text: string) => chunks.push(text), text: () => chunks.join("") };
}

/** `args` of the rendered container, with the paths of this machine and free ports. */
function reporterArgs(
  rendered: readonly RenderedObject[],
  config: string,
  dir: string,
  kubeconfig: string,
): string[] {
  const spec = find(rendered, "Deployment").spec as {
    template: { spec: { containers: { args: string[] }[] } };
  };
  const args = [...(spec.template.spec.containers[0]?.args ?? [])];
  expect(args.slice(0, 3)).toEqual(["reporter", "--config", "/app/config.yaml"]);
  const replace = (flag: string, value: string) => {
    const at = args.indexOf(flag);
    expect(at, `${flag} in the container args`).toBeGreaterThan(0);
    args[at + 1] = value;
  };
  replace("--config", config);
  replace("--port", "0");
  replace("--metrics-port", "0");
  replace("--sqlite", join(dir, "reporter.db"));
  return [...args.slice(1), "--kubeconfig", kubeconfig];
}

describe("the chart's RBAC is what kyverno-ts reporter needs", { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  let admin: KubeClient;
  let asReporter: KubeClient;
  let dir: string;
  const stop = new AbortController();
  const stderr = output();
  let exit: Promise<number> | undefined;
  let info: ReporterReadyInfo | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "policy-reporter-rbac-"));
    sandbox = await startSandbox({
      crds: [
        ...POLICY_REPORT_CRDS,
        ...openReportsCrds(),
        `${KYVERNO_CRDS}kyverno.io_clusterpolicies.yaml`,
        `${KYVERNO_CRDS}kyverno.io_policies.yaml`,
      ],
      admission: false,
      authorization: "RBAC",
      users: [{ username: SERVICE_ACCOUNT }],
    });
    admin = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    const create = async (object: JsonObject) => {
      const created = await admin.create(object);
      if (!created.ok)
        throw new Error(`creating ${String(object.kind)}: ${created.status} ${created.message}`);
    };
    for (const name of [NAMESPACE, "team-a"])
      await create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
    for (const kind of ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]) {
      await create(find(objects, kind) as unknown as JsonObject);
    }
    await create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "reporter-auth", namespace: NAMESPACE },
      stringData: { username: "ops", password: "from-secret" },
    });
    await create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "other", namespace: NAMESPACE },
      stringData: { k: "v" },
    });
    await create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web", namespace: "team-a" },
      spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
    });

    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [
          {
            name: "sandbox",
            cluster: {
              server: sandbox.url,
              "certificate-authority-data": Buffer.from(sandbox.caCertPem).toString("base64"),
            },
          },
        ],
        users: [{ name: "reporter", user: { token: sandbox.users[SERVICE_ACCOUNT] } }],
        contexts: [{ name: "reporter", context: { cluster: "sandbox", user: "reporter" } }],
        "current-context": "reporter",
      }),
    );
    asReporter = createKubeClient({ kubeconfigPath: kubeconfig, qps: 0 });
    const secret = find(objects, "Secret", "policy-reporter-config") as RenderedObject & {
      stringData: Record<string, string>;
    };
    const config = join(dir, "config.yaml");
    writeFileSync(config, secret.stringData["config.yaml"] ?? "");

    let started: (value: ReporterReadyInfo) => void = () => undefined;
    const ready = new Promise<ReporterReadyInfo>((resolve) => {
      started = resolve;
    });
    exit = runReporterCommand({
      args: reporterArgs(objects, config, dir, kubeconfig),
      stdout: output(),
      stderr,
      signal: stop.signal,
      env: { POD_NAME: "policy-reporter-0", POD_NAMESPACE: NAMESPACE },
      onStarted: started,
    });
    info = await Promise.race([
      ready,
      exit.then((code) => Promise.reject(new Error(`reporter exited ${code}: ${stderr.text()}`))),
    ]);
    await info.reporter.synced;
  }, 60_000);

  afterAll(async () => {
    stop.abort();
    await exit;
    asReporter?.close();
    admin?.close();
    await sandbox?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("syncs, reads the report's owner, and serves it behind the basic auth of the Secret", async () => {
    const created = await admin.create(
      policyReport({ name: "web", namespace: "team-a", results: [liveResult()] }),
    );
    expect(created.ok).toBe(true);
    const url = `${info?.url}/v1/policy-reports`;
    const auth = { authorization: `Basic ${Buffer.from("ops:from-secret").toString("base64")}` };
    const items = await eventually(
      async () => {
        const body = (await (await fetch(url, { headers: auth })).json()) as { items: { name: string }[] };
        return body.items.length > 0 ? body.items : undefined;
      },
      10_000,
      "the report in the API",
    );
    expect(items.map((i) => i.name)).toEqual(["web"]);
    expect((await fetch(url)).status).toBe(401);
  });

  it("holds the Lease named after the release", async () => {
    const lease = await eventually(
      async () => {
        const got = await admin.get<{ metadata?: { name?: string }; spec: { holderIdentity?: string } }>({
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          namespace: NAMESPACE,
          name: "policy-reporter",
        });
        return got.ok && got.value.spec.holderIdentity ? got.value : undefined;
      },
      10_000,
      "the Lease",
    );
    expect(lease.spec.holderIdentity).toBe("policy-reporter-0");
    expect(info?.reporter.isLeader()).toBe(true);
  });

  it("was refused nothing it asked for", () => {
    expect(stderr.text()).not.toMatch(/\b403\b|forbidden/i);
  });

  it("gets nothing more: no other Secret, no Secret list, no writes to reports", async () => {
    const other = await asReporter.get({
      apiVersion: "v1",
      kind: "Secret",
      namespace: NAMESPACE,
      name: "other",
    });
    expect(other.ok ? 200 : other.status).toBe(403);
    const list = await asReporter.list({ apiVersion: "v1", kind: "Secret", namespace: NAMESPACE });
    expect(list.ok ? 200 : list.status).toBe(403);
    const write = await asReporter.create(
      policyReport({ name: "forged", namespace: "team-a", results: [liveResult()] }),
    );
    expect(write.ok ? 201 : write.status).toBe(403);
  });
});

/**
 * The policy-reporter chart: `helm lint --strict` and `helm template` with the default values, the
 * production example (PostgreSQL, Redis, two replicas, OIDC, monitoring) and upstream's own values
 * file; assertions on the rendered objects, and the rendered configuration read by the reporter's own
 * configuration loader.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadReporterConfig } from "@kyverno-ts/reporter";
import { afterAll, describe, expect, it } from "vitest";
import { outdatedFiles, REPO_ROOT } from "../../../scripts/charts/generate.ts";
import {
  find,
  helm,
  lint,
  type RenderedObject,
  render,
  renderError,
} from "../../../scripts/charts/helm-render.ts";

const CHART = "charts/policy-reporter";
const HA = "examples/helm/values-policy-reporter.yaml";
const UPSTREAM = "../shared/reference/policy-reporter/charts/policy-reporter/values.yaml";

type Container = {
  args: string[];
  env: { name: string; valueFrom?: unknown }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string }[];
};
type PodSpec = {
  containers: Container[];
  securityContext: Record<string, unknown>;
  volumes: { name: string; emptyDir?: unknown; secret?: { secretName: string } }[];
  serviceAccountName: string;
};
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

const work = mkdtempSync(join(tmpdir(), "policy-reporter-chart-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function values(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

function podSpec(objects: RenderedObject[]): PodSpec {
  return (find(objects, "Deployment").spec as { template: { spec: PodSpec } }).template.spec;
}
const container = (objects: RenderedObject[]): Container => podSpec(objects).containers[0] as Container;
const rules = (o: RenderedObject): Rule[] => o.rules as Rule[];

/** The configuration file of the rendered Secret, loaded as `kyverno-ts reporter --config` loads it. */
function loadedConfig(objects: RenderedObject[], env: Record<string, string> = {}) {
  const secret = find(objects, "Secret", "policy-reporter-config") as RenderedObject & {
    stringData: { "config.yaml": string };
  };
  const file = join(work, `config-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, secret.stringData["config.yaml"]);
  return loadReporterConfig({
    file,
    env: { POD_NAMESPACE: "platform", POD_NAME: "policy-reporter-0", ...env },
  });
}

describe("helm lint --strict", { timeout: 30_000 }, () => {
  it.each([
    ["the default values", []],
    ["the production example (PostgreSQL, Redis, two replicas)", [HA]],
    ["upstream Policy Reporter's values file", [UPSTREAM]],
  ])("passes with %s", (_name, files) => {
    const out = lint(CHART, files);
    expect(out.stdout + out.stderr).toContain("0 chart(s) failed");
    expect(out.status).toBe(0);
  });

  it("values.schema.json is up to date with scripts/charts/policy-reporter-schema.ts", () => {
    expect(outdatedFiles().filter((p) => p.startsWith(CHART))).toEqual([]);
  });
});

describe("default values: one replica on SQLite", { timeout: 30_000 }, () => {
  const objects = render(CHART);

  it("runs our CLI's reporter with the configuration file, the API port and the SQLite file", () => {
    const c = container(objects) as Container & { image: string };
    expect(c.image).toBe("kyverno-ts:0.1.0");
    expect(c.args).toEqual([
      "reporter",
      "--config",
      "/app/config.yaml",
      "--port",
      "8080",
      "--sqlite",
      "/sqlite/database.db",
    ]);
    expect(c.env.map((e) => e.name)).toEqual(["POD_NAME", "POD_NAMESPACE"]);
    expect(find(objects, "Deployment").spec).toMatchObject({ replicas: 1 });
  });

  it("is locked down: user 65532, read-only root, no capabilities, RuntimeDefault seccomp, emptyDirs for /tmp and SQLite", () => {
    const spec = podSpec(objects);
    expect(spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container(objects).securityContext).toMatchObject({
      runAsUser: 65532,
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    const mounts = Object.fromEntries(container(objects).volumeMounts.map((m) => [m.name, m.mountPath]));
    expect(mounts).toEqual({ config: "/app/config.yaml", tmp: "/tmp", sqlite: "/sqlite" });
    const volumes = Object.fromEntries(spec.volumes.map((v) => [v.name, v]));
    expect(volumes.tmp?.emptyDir).toEqual({});
    expect(volumes.sqlite?.emptyDir).toEqual({});
    expect(volumes.config?.secret).toEqual({ secretName: "policy-reporter-config" });
  });

  it("probes /healthz (liveness) and /ready (readiness) on the http port; the Service names it http", () => {
    const c = container(objects);
    expect(c.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(c.readinessProbe.httpGet).toEqual({ path: "/ready", port: "http" });
    expect(c.ports).toEqual([{ name: "http", containerPort: 8080, protocol: "TCP" }]);
    expect((find(objects, "Service").spec as { ports: unknown[] }).ports).toEqual([
      { name: "http", port: 8080, targetPort: "http", protocol: "TCP" },
    ]);
  });

  it("grants list/watch of reports and policies, GET of report owners, and nothing namespaced", () => {
    expect(rules(find(objects, "ClusterRole"))).toEqual([
      {
        apiGroups: ["wgpolicyk8s.io"],
        resources: ["policyreports", "clusterpolicyreports"],
        verbs: ["list", "watch"],
      },
      { apiGroups: ["openreports.io"], resources: ["reports", "clusterreports"], verbs: ["list", "watch"] },
      { apiGroups: ["kyverno.io"], resources: ["clusterpolicies", "policies"], verbs: ["list", "watch"] },
      { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
      { apiGroups: ["apps"], resources: ["replicasets"], verbs: ["get"] },
      { apiGroups: ["batch"], resources: ["jobs"], verbs: ["get"] },
    ]);
    expect(objects.map((o) => o.kind)).not.toContain("Role");
    expect(objects.map((o) => o.kind)).not.toContain("PodDisruptionBudget");
    expect(find(objects, "ClusterRoleBinding").subjects).toEqual([
      { kind: "ServiceAccount", name: "policy-reporter", namespace: "platform" },
    ]);
  });

  it("renders a configuration the reporter accepts without a warning: SQLite, no leader election, no metrics", () => {
    const { config, warnings } = loadedConfig(objects);
    expect(warnings).toEqual([]);
    expect(config.database.type).toBe("sqlite");
    expect(config.leaderElection).toMatchObject({ enabled: false, lockName: "policy-reporter" });
    expect(config.metrics.enabled).toBe(false);
    expect(config.ui.enabled).toBe(false);
    expect(config.namespace).toBe("platform");
  });
});

describe("the production example: PostgreSQL, Redis, two replicas, OIDC, monitoring", {
  timeout: 30_000,
}, () => {
  const objects = render(CHART, { valuesFiles: [HA], namespace: "policy-reporter" });

  it("runs two replicas with leader election on the Lease named after the release, and a PDB", () => {
    expect(find(objects, "Deployment").spec).toMatchObject({ replicas: 2 });
    expect(find(objects, "PodDisruptionBudget").spec).toMatchObject({ minAvailable: 1 });
    const { config, warnings } = loadedConfig(objects);
    expect(warnings).toEqual([]);
    expect(config.leaderElection).toMatchObject({
      enabled: true,
      lockName: "policy-reporter",
      podName: "policy-reporter-0",
    });
    expect(config.database).toMatchObject({
      type: "postgres",
      host: "postgres.databases.svc:5432",
      secretRef: "policy-reporter-postgres",
    });
    expect(config.redis).toMatchObject({
      enabled: true,
      address: "redis.databases.svc:6379",
      secretRef: "policy-reporter-redis",
    });
    expect(config.ui.openIDConnect).toMatchObject({ enabled: true, secretRef: "policy-reporter-oidc" });
    expect(config.target.slack).toMatchObject({
      secretRef: "policy-reporter-slack",
      minimumSeverity: "high",
    });
  });

  it("uses no SQLite volume with an external database", () => {
    expect(container(objects).args).not.toContain("--sqlite");
    expect(podSpec(objects).volumes.map((v) => v.name)).toEqual(["config", "tmp"]);
  });

  it("lets the Role read exactly the Lease and the Secrets the values name", () => {
    expect(rules(find(objects, "Role"))).toEqual([
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: ["coordination.k8s.io"],
        resources: ["leases"],
        resourceNames: ["policy-reporter"],
        verbs: ["get", "update"],
      },
      {
        apiGroups: [""],
        resources: ["secrets"],
        resourceNames: [
          "policy-reporter-oidc",
          "policy-reporter-postgres",
          "policy-reporter-redis",
          "policy-reporter-slack",
        ],
        verbs: ["get"],
      },
    ]);
    expect(find(objects, "Role").metadata.namespace).toBe("policy-reporter");
  });

  it("serves metrics on their own port, scraped by the ServiceMonitor", () => {
    const c = container(objects);
    expect(c.args).toEqual(expect.arrayContaining(["--metrics-port", "8081"]));
    expect(c.ports.map((p) => p.name)).toEqual(["http", "metrics"]);
    const service = find(objects, "Service").spec as { ports: { name: string; port: number }[] };
    expect(service.ports.map((p) => [p.name, p.port])).toEqual([
      ["http", 8080],
      ["metrics", 8081],
    ]);
    const monitor = find(objects, "ServiceMonitor");
    expect(monitor.metadata.labels?.release).toBe("prometheus");
    expect(monitor.spec).toMatchObject({ endpoints: [{ port: "metrics", path: "/metrics" }] });
    expect(loadedConfig(objects).config.metrics.enabled).toBe(true);
  });

  it("shares one session key between the replicas and routes ui.ingress to the reporter's Service", () => {
    const session = find(objects, "Secret", "policy-reporter-ui-session") as RenderedObject & {
      data: { secret: string };
    };
    expect(Buffer.from(session.data.secret, "base64").toString()).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(container(objects).env).toContainEqual({
      name: "UI_SERVER_SESSIONS_SECRET",
      valueFrom: { secretKeyRef: { name: "policy-reporter-ui-session", key: "secret" } },
    });
    const ingress = find(objects, "Ingress", "policy-reporter-ui");
    expect(ingress.spec).toMatchObject({
      ingressClassName: "nginx",
      rules: [
        {
          host: "policy-reporter.example.com",
          http: {
            paths: [
              {
                path: "/",
                pathType: "Prefix",
                backend: { service: { name: "policy-reporter", port: { name: "http" } } },
              },
            ],
          },
        },
      ],
    });
  });
});

describe("refused values", { timeout: 30_000 }, () => {
  it("a key the chart does not know, naming it", () => {
    const file = values("typo.yaml", "replicas: 2\n");
    expect(renderError(CHART, { valuesFiles: [file] })).toContain(
      "additional properties 'replicas' not allowed",
    );
  });

  it("features we do not have, naming the key", () => {
    const cases: [string, string][] = [
      ["target:\n  s3:\n    bucket: reports\n", "/target/s3/bucket"],
      ["ui:\n  oauth:\n    enabled: true\n", "/ui/oauth/enabled"],
      ["plugin:\n  trivy:\n    enabled: true\n", "/plugin/trivy/enabled"],
      ["emailReports:\n  graphAPI:\n    enabled: true\n", "/emailReports/graphAPI/enabled"],
      ["ui:\n  clusters:\n    - name: remote\n      host: http://other:8080\n", "'host' not allowed"],
      [
        "monitoring:\n  enabled: true\n  grafana:\n    grafanaDashboard:\n      enabled: true\n",
        "/monitoring/grafana/grafanaDashboard/enabled",
      ],
    ];
    cases.forEach(([text, expected], i) => {
      expect(renderError(CHART, { valuesFiles: [values(`unsupported-${i}.yaml`, text)] })).toContain(
        expected,
      );
    });
  });

  it("several replicas without leader election", () => {
    const message = renderError(CHART, { set: { replicaCount: "3", "leaderElection.enabled": "false" } });
    expect(message).toContain("replicaCount is 3: several replicas need leader election");
  });

  it("an external database without an address", () => {
    expect(renderError(CHART, { set: { "database.type": "postgres" } })).toContain(
      "database.type is postgres: set database.host, database.dsn or database.secretRef",
    );
  });
});

describe("accepted values without effect", { timeout: 30_000 }, () => {
  it("the Kyverno plugin switches and the separate UI deployment keys change nothing but are accepted", () => {
    const base = render(CHART, { set: { "ui.enabled": "true" } });
    const file = values(
      "no-effect.yaml",
      "ui:\n  enabled: true\n  image: {repository: x}\n  replicaCount: 3\nplugin:\n  kyverno:\n    enabled: true\nkyvernoPlugin:\n  enabled: true\nrest:\n  enabled: true\n",
    );
    const rendered = render(CHART, { valuesFiles: [file] });
    expect(JSON.stringify(rendered)).toBe(JSON.stringify(base));
  });

  it("takes the registry of the kyverno-ts chart (global.image.registry) over its own", () => {
    const objects = render(CHART, {
      set: { "global.image.registry": "registry.example.com", "image.registry": "other.example.com" },
    });
    const c = container(objects) as Container & { image: string };
    expect(c.image).toBe("registry.example.com/kyverno-ts:0.1.0");
  });

  it("installs as a dependency of another chart under policyReporter, switched by policyReporter.enabled", () => {
    // The kyverno-ts chart's way: alias policyReporter, condition policyReporter.enabled, global.image.registry.
    const parent = join(work, "parent");
    mkdirSync(join(parent, "templates"), { recursive: true });
    writeFileSync(
      join(parent, "Chart.yaml"),
      [
        "apiVersion: v2",
        "name: parent",
        "version: 0.1.0",
        "dependencies:",
        "  - name: policy-reporter",
        "    version: 0.1.0",
        `    repository: file://${join(REPO_ROOT, CHART)}`,
        "    alias: policyReporter",
        "    condition: policyReporter.enabled",
      ].join("\n"),
    );
    writeFileSync(
      join(parent, "values.yaml"),
      "global:\n  image:\n    registry: registry.example.com\npolicyReporter:\n  enabled: false\n",
    );
    const built = helm(["dependency", "build", parent]);
    expect(built.status, built.stderr).toBe(0);
    expect(render(parent)).toEqual([]);
    const objects = render(parent, {
      set: { "policyReporter.enabled": "true", "policyReporter.ui.enabled": "true" },
    });
    expect((container(objects) as Container & { image: string }).image).toBe(
      "registry.example.com/kyverno-ts:0.1.0",
    );
    expect(find(objects, "Deployment").metadata.labels?.["app.kubernetes.io/name"]).toBe("policy-reporter");
    expect(loadedConfig(objects).config.ui.enabled).toBe(true);
    const refused = renderError(parent, {
      set: { "policyReporter.enabled": "true", "policyReporter.replicas": "2" },
    });
    expect(refused).toContain("additional properties 'replicas' not allowed");
  });
});

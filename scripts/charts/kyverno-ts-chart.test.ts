/**
 * The kyverno-ts Helm chart, rendered by the real Helm v4 binary: `helm lint --strict` and
 * `helm template` for the default values, the production example and the minimal profile, with
 * assertions on the objects; rejected values; the RBAC each controller gets; the CRDs; the size of
 * the release Secret; and that the generated files are up to date.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CRD_SOURCE, SERVED } from "./kyverno-ts-crds.ts";
import { CHART_DIR, find, helm, type Obj, PROFILES, render } from "./kyverno-ts-helm.ts";

type Container = Record<string, unknown> & {
  args: string[];
  securityContext: Record<string, unknown>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
};
type PodSpec = Record<string, unknown> & { containers: Container[]; volumes: Array<Record<string, unknown>> };

const deployment = (objects: readonly Obj[], name: string): Obj => {
  const found = find(objects, "Deployment", name);
  if (found === undefined) throw new Error(`no Deployment ${name}`);
  return found;
};
const podSpec = (d: Obj): PodSpec => (d.spec as { template: { spec: PodSpec } }).template.spec;
const container = (d: Obj): Container => podSpec(d).containers[0] as Container;
const spec = (o: Obj): Record<string, unknown> => o.spec as Record<string, unknown>;

const ADMISSION = "kyverno-admission-controller";
const REPORTS = "kyverno-reports-controller";
const CLEANUP = "kyverno-cleanup-controller";
const BACKGROUND = "kyverno-background-controller";

describe("helm lint --strict", { timeout: 60_000 }, () => {
  for (const [profile, files] of Object.entries(PROFILES))
    it(`passes with the ${profile} values`, () => {
      const run = helm(["lint", "--strict", CHART_DIR, ...files.flatMap((f) => ["-f", f])]);
      expect(run.stderr + run.stdout).toContain("0 chart(s) failed");
      expect(run.status).toBe(0);
    });
});

describe("default values", { timeout: 60_000 }, () => {
  const objects = render();

  it("deploys the admission, background, cleanup and reports controllers, one replica each", () => {
    const deployments = objects.filter((o) => o.kind === "Deployment").map((o) => o.metadata.name);
    expect(deployments.sort()).toEqual([ADMISSION, BACKGROUND, CLEANUP, REPORTS]);
    expect(spec(deployment(objects, ADMISSION)).replicas).toBe(1);
    expect(spec(deployment(objects, BACKGROUND)).replicas).toBe(1);
    expect(spec(deployment(objects, CLEANUP)).replicas).toBe(1);
    expect(spec(deployment(objects, REPORTS)).replicas).toBe(1);
    expect(objects.filter((o) => o.kind === "PodDisruptionBudget")).toEqual([]);
  });

  it("runs the kyverno-ts image's CLI with each controller's command and upstream's flags", () => {
    const admission = container(deployment(objects, ADMISSION));
    expect(admission.image).toBe("kyverno-ts:0.1.0");
    expect(admission.args).toEqual([
      "admission",
      "--webhookServerPort=9443",
      "--metricsPort=8000",
      "--serviceName=kyverno-svc",
      "--servicePort=443",
      "--configMap=kyverno",
      "--metricsConfigMap=kyverno-metrics",
      "--webhookTimeout=10",
      "--loggingFormat=json",
      "--v=2",
      "--omitEvents=PolicyApplied,PolicySkipped",
      "--enableReporting=validate,mutate,mutateExisting,generate,imageVerify",
      // generate and mutate-existing policies are checked against the background controller's permissions
      "--backgroundServiceAccountName=system:serviceaccount:kyverno:kyverno-background-controller",
    ]);
    const reports = container(deployment(objects, REPORTS));
    expect(reports.args).toEqual([
      "reports",
      "--metricsPort=8000",
      "--metricsConfigMap=kyverno-metrics",
      "--backgroundScanInterval=1h",
      "--backgroundScanWorkers=2",
      "--loggingFormat=json",
      "--v=2",
      "--omitEvents=PolicyApplied,PolicySkipped",
      "--enableReporting=validate,mutate,mutateExisting,generate,imageVerify",
    ]);
    const cleanup = container(deployment(objects, CLEANUP));
    expect(cleanup.args).toEqual([
      "cleanup",
      "--cleanupServerPort=9443",
      "--metricsPort=8000",
      "--servicePort=443",
      "--metricsConfigMap=kyverno-metrics",
      "--ttlReconciliationInterval=1m",
      "--loggingFormat=json",
      "--v=2",
    ]);
    // The cleanup webhooks' Service, as upstream's chart sets it for the cleanup controller.
    expect(cleanup.env).toContainEqual({ name: "KYVERNO_SVC", value: CLEANUP });
    expect(find(objects, "Service", CLEANUP)).toBeDefined();
    const background = container(deployment(objects, BACKGROUND));
    expect(background.args).toEqual([
      "background",
      "--metricsPort=8000",
      "--metricsConfigMap=kyverno-metrics",
      // generateSuccessEvents of the success Events; upstream's default omitted Event types.
      "--configMap=kyverno",
      "--loggingFormat=json",
      "--v=2",
      "--omitEvents=PolicyApplied,PolicySkipped",
      "--enableReporting=validate,mutate,mutateExisting,generate,imageVerify",
    ]);
    // Named in its permission failures, as the admission controller's auth check expects it.
    expect(background.env).toContainEqual({ name: "KYVERNO_SERVICEACCOUNT_NAME", value: BACKGROUND });
    for (const c of [admission, reports, cleanup, background])
      expect(c.env).toEqual(
        expect.arrayContaining([
          { name: "KYVERNO_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        ]),
      );
  });

  it("runs every container as 65532, non-root, read-only, without capabilities, RuntimeDefault seccomp, /tmp an emptyDir", () => {
    for (const name of [ADMISSION, BACKGROUND, CLEANUP, REPORTS]) {
      const d = deployment(objects, name);
      expect(container(d).securityContext).toMatchObject({
        runAsUser: 65532,
        runAsGroup: 65532,
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        privileged: false,
        capabilities: { drop: ["ALL"] },
        seccompProfile: { type: "RuntimeDefault" },
      });
      expect(container(d).volumeMounts).toContainEqual({ name: "tmp", mountPath: "/tmp" });
      expect(podSpec(d).volumes).toContainEqual({ name: "tmp", emptyDir: { sizeLimit: "64Mi" } });
      expect(podSpec(d).serviceAccountName).toBe(name);
    }
  });

  it("probes each binary's health endpoints: the webhook port (HTTPS) of admission and cleanup, the metrics port of reports and background", () => {
    const https = (path: string) => ({ path, port: "https", scheme: "HTTPS" });
    for (const name of [ADMISSION, CLEANUP]) {
      const c = container(deployment(objects, name));
      expect(c.ports).toEqual([
        { name: "https", containerPort: 9443, protocol: "TCP" },
        { name: "metrics", containerPort: 8000, protocol: "TCP" },
      ]);
      expect(c.startupProbe).toMatchObject({ httpGet: https("/health/liveness") });
      expect(c.livenessProbe).toMatchObject({ httpGet: https("/health/liveness") });
      expect(c.readinessProbe).toMatchObject({ httpGet: https("/health/readiness") });
    }
    const http = (path: string) => ({ path, port: "metrics", scheme: "HTTP" });
    for (const name of [REPORTS, BACKGROUND]) {
      const c = container(deployment(objects, name));
      expect(c.ports).toContainEqual({ name: "metrics", containerPort: 8000, protocol: "TCP" });
      expect(c.startupProbe).toMatchObject({ httpGet: http("/health/liveness") });
      expect(c.livenessProbe).toMatchObject({ httpGet: http("/health/liveness") });
      expect(c.readinessProbe).toMatchObject({ httpGet: http("/health/readiness") });
    }
  });

  it("lets in-flight reviews finish: a preStop sleep, then a grace period longer than sleep plus webhook timeout", () => {
    const d = deployment(objects, ADMISSION);
    expect(container(d).lifecycle).toEqual({ preStop: { sleep: { seconds: 5 } } });
    expect(podSpec(d).terminationGracePeriodSeconds).toBeGreaterThan(5 + 10);
    expect(spec(d).strategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: 1, maxUnavailable: "40%" },
    });
  });

  it("names Services and labels as upstream: kyverno-svc, a metrics port named metrics on 8000 per controller", () => {
    const svc = find(objects, "Service", "kyverno-svc");
    expect(spec(svc as Obj).ports).toEqual([
      { name: "https", port: 443, targetPort: "https", protocol: "TCP" },
    ]);
    for (const [name, component] of [
      ["kyverno-svc-metrics", "admission-controller"],
      ["kyverno-reports-controller-metrics", "reports-controller"],
    ] as const) {
      const metrics = find(objects, "Service", name) as Obj;
      expect(spec(metrics).ports).toEqual([
        { name: "metrics", port: 8000, targetPort: "metrics", protocol: "TCP" },
      ]);
      expect(spec(metrics).selector).toEqual({
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/instance": "kyverno",
        "app.kubernetes.io/part-of": "kyverno",
      });
    }
    for (const name of [ADMISSION, REPORTS]) {
      const d = deployment(objects, name);
      const podLabels = (spec(d).template as { metadata: { labels: Record<string, string> } }).metadata
        .labels;
      expect(podLabels).toMatchObject({
        "app.kubernetes.io/name": "kyverno",
        "app.kubernetes.io/instance": "kyverno",
        "app.kubernetes.io/part-of": "kyverno",
        "app.kubernetes.io/version": "0.1.0",
        "app.kubernetes.io/component": name.replace("kyverno-", ""),
      });
    }
    for (const o of objects)
      expect(Object.keys((o.metadata.labels ?? {}) as object), `${o.kind} ${o.metadata.name}`).toEqual(
        expect.arrayContaining([
          "app.kubernetes.io/instance",
          "app.kubernetes.io/part-of",
          "app.kubernetes.io/version",
        ]),
      );
  });

  it("writes Kyverno's ConfigMap with the release namespace and the chart's own objects filtered", () => {
    const data = (find(objects, "ConfigMap", "kyverno") as Obj).data as Record<string, string>;
    expect(data.resourceFilters).toMatch(/^\[\*\/\*,kyverno,\*\]\[Event,\*,\*\]/);
    expect(data.resourceFilters).toContain("[ClusterRole,*,kyverno:admission-controller:core]");
    expect(data.excludeGroups).toBe("system:nodes");
    expect(JSON.parse(data.webhooks as string)).toEqual([
      {
        namespaceSelector: {
          matchExpressions: [
            { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
          ],
        },
      },
    ]);
  });

  it("installs the CRDs of the kinds served, with upstream's short names and printer columns", () => {
    const crds = objects.filter((o) => o.kind === "CustomResourceDefinition");
    expect(crds.map((c) => c.metadata.name).sort()).toEqual([
      "cleanuppolicies.kyverno.io",
      "clustercleanuppolicies.kyverno.io",
      "clusterephemeralreports.reports.kyverno.io",
      "clusterpolicies.kyverno.io",
      "clusterpolicyreports.wgpolicyk8s.io",
      "ephemeralreports.reports.kyverno.io",
      "globalcontextentries.kyverno.io",
      "policies.kyverno.io",
      "policyexceptions.kyverno.io",
      "policyreports.wgpolicyk8s.io",
      "updaterequests.kyverno.io",
    ]);
    const cpol = find(objects, "CustomResourceDefinition", "clusterpolicies.kyverno.io") as Obj;
    const names = spec(cpol).names as { shortNames: string[] };
    expect(names.shortNames).toEqual(["cpol"]);
    const versions = spec(cpol).versions as Array<{ name: string; additionalPrinterColumns?: unknown[] }>;
    expect(versions.find((v) => v.name === "v1")?.additionalPrinterColumns?.length).toBeGreaterThan(3);
    expect(render([], ["crds.install=false"]).filter((o) => o.kind === "CustomResourceDefinition")).toEqual(
      [],
    );
  });

  it.skipIf(!existsSync(CRD_SOURCE))(
    "renders each CRD identical to upstream's besides the chart's labels (skipped without ../shared/reference/kyverno-crds)",
    () => {
      for (const served of SERVED) {
        const upstream = parse(readFileSync(join(CRD_SOURCE, served.source), "utf8")) as Obj;
        const name = upstream.metadata.name as string;
        const rendered = structuredClone(find(objects, "CustomResourceDefinition", name) as Obj);
        delete rendered.metadata.labels;
        expect(rendered, name).toEqual(upstream);
      }
    },
  );

  it("removes the admission controller's webhook configurations on helm uninstall (pre-delete hook)", () => {
    const job = find(objects, "Job", "kyverno-hook-pre-delete") as Obj;
    expect((job.metadata.annotations as Record<string, string>)["helm.sh/hook"]).toBe("pre-delete");
    const pod = (spec(job).template as { spec: PodSpec & { initContainers: Container[] } }).spec;
    expect(pod.initContainers[0]?.args).toEqual([
      "delete",
      "clusterrolebinding",
      "kyverno:admission-controller",
      "--ignore-not-found",
      "--wait",
    ]);
    expect(pod.containers[0]?.args).toContain("--selector=webhook.kyverno.io/managed-by=kyverno");
  });
});

describe("production example", { timeout: 60_000 }, () => {
  const objects = render(PROFILES.production);
  const admission = deployment(objects, ADMISSION);
  const reports = deployment(objects, REPORTS);

  it("runs admission 3, reports 2, background 2 and cleanup 2 replicas", () => {
    expect(spec(admission).replicas).toBe(3);
    expect(spec(reports).replicas).toBe(2);
    expect(spec(deployment(objects, BACKGROUND)).replicas).toBe(2);
    expect(container(deployment(objects, BACKGROUND)).resources).toEqual({
      requests: { cpu: "100m", memory: "128Mi" },
      limits: { memory: "256Mi" },
    });
    expect(spec(deployment(objects, CLEANUP)).replicas).toBe(2);
    expect(objects.filter((o) => o.kind === "Deployment")).toHaveLength(4);
  });

  it("spreads every controller's replicas over nodes, selecting the controller's own Pods", () => {
    for (const d of [admission, reports, deployment(objects, BACKGROUND), deployment(objects, CLEANUP)]) {
      const selector = (spec(d).selector as { matchLabels: Record<string, string> }).matchLabels;
      const [constraint] = podSpec(d).topologySpreadConstraints as Array<Record<string, unknown>>;
      expect(constraint).toMatchObject({ maxSkew: 1, topologyKey: "kubernetes.io/hostname" });
      expect(constraint?.labelSelector).toEqual({ matchLabels: selector });
    }
  });

  it("keeps two admission replicas through voluntary disruptions and rollouts", () => {
    const pdb = find(objects, "PodDisruptionBudget", ADMISSION) as Obj;
    expect(spec(pdb).minAvailable).toBe(2);
    expect(spec(pdb).selector).toEqual(spec(admission).selector);
    // A rollout takes down at most floor(40 % of 3) = 1 replica: never below the budget.
    const { maxUnavailable } = (spec(admission).strategy as { rollingUpdate: { maxUnavailable: string } })
      .rollingUpdate;
    const down = Math.floor((Number.parseInt(maxUnavailable, 10) / 100) * 3);
    expect(3 - down).toBeGreaterThanOrEqual(2);
    expect(spec(find(objects, "PodDisruptionBudget", REPORTS) as Obj).minAvailable).toBe(1);
  });

  it("carries the values into the flags: webhook timeout, hourly scans, PolicyExceptions from one namespace", () => {
    expect(container(admission).args).toEqual(
      expect.arrayContaining([
        "--webhookTimeout=15",
        "--enablePolicyException",
        "--exceptionNamespace=kyverno-exceptions",
      ]),
    );
    expect(container(reports).args).toEqual(
      expect.arrayContaining([
        "--backgroundScanInterval=1h",
        "--backgroundScanWorkers=2",
        "--enablePolicyException",
        "--exceptionNamespace=kyverno-exceptions",
      ]),
    );
    // In-flight reviews (up to the 15 s timeout) finish after the preStop sleep.
    expect(podSpec(admission).terminationGracePeriodSeconds).toBeGreaterThan(5 + 15);
  });

  it("sets the resources", () => {
    expect(container(admission).resources).toEqual({
      requests: { cpu: "500m", memory: "256Mi" },
      limits: { memory: "512Mi" },
    });
    expect(container(reports).resources).toEqual({
      requests: { cpu: "200m", memory: "256Mi" },
      limits: { memory: "1Gi" },
    });
  });
});

describe("minimal profile", { timeout: 60_000 }, () => {
  const objects = render(PROFILES.minimal);

  it("runs one replica of each controller without PDB or anti-affinity", () => {
    for (const name of [ADMISSION, REPORTS]) {
      const d = deployment(objects, name);
      expect(spec(d).replicas).toBe(1);
      expect(podSpec(d).affinity).toBeUndefined();
      expect((container(d).resources as { requests: unknown }).requests).toEqual({
        cpu: "50m",
        memory: "96Mi",
      });
    }
    expect(objects.filter((o) => o.kind === "PodDisruptionBudget")).toEqual([]);
  });
});

/**
 * Realistic PolicyReports for the demo server and the browser tests: Kyverno per-resource reports
 * for the bundled policies (Deployments with autogen rules, their Pods, StatefulSets, CronJobs),
 * Trivy vulnerability reports on ReplicaSets, and cluster reports on Namespaces and
 * ClusterRoleBindings. Deterministic: the same options give the same reports.
 */

/** Options of {@link demoReports}. */
export interface DemoDataOptions {
  /** Extra generated namespaces beyond the named ones (for load); default 0. */
  extraNamespaces?: number;
  /** Apps per generated namespace; default 6. */
  appsPerNamespace?: number;
}

type Ref = { apiVersion: string; kind: string; name: string; namespace?: string; uid: string };
type RawResult = Record<string, unknown>;
/** A demo Kyverno policy: its rules, annotations and failure message. */
export type DemoPolicy = {
  policy: string;
  rules: string[];
  category: string;
  severity: string;
  fail: string;
};
type Policy = DemoPolicy;

const BASE_SECONDS = 1_767_600_000;

/** The Kyverno policies the demo reports name. */
export const DEMO_POLICIES: readonly DemoPolicy[] = [
  {
    policy: "disallow-latest-tag",
    rules: ["require-image-tag", "validate-image-tag"],
    category: "Best Practices",
    severity: "medium",
    fail: "validation error: Using a mutable image tag e.g. 'latest' is not allowed. rule {rule} failed at path /spec/containers/0/image/",
  },
  {
    policy: "disallow-privileged-containers",
    rules: ["privileged-containers"],
    category: "Pod Security Standards (Baseline)",
    severity: "high",
    fail: "validation error: Privileged mode is disallowed. The fields spec.containers[*].securityContext.privileged and spec.initContainers[*].securityContext.privileged must be unset or set to `false`. rule {rule} failed at path /spec/containers/0/securityContext/privileged/",
  },
  {
    policy: "require-probes",
    rules: ["validate-probes"],
    category: "Best Practices",
    severity: "medium",
    fail: "validation error: Liveness, readiness or startup probes are required for all containers. rule {rule} failed at path /spec/containers/0/readinessProbe/",
  },
  {
    policy: "require-requests-limits",
    rules: ["validate-resources"],
    category: "Best Practices",
    severity: "medium",
    fail: "validation error: CPU and memory resource requests and memory limits are required for containers. rule {rule} failed at path /spec/containers/0/resources/limits/memory/",
  },
  {
    policy: "require-standard-labels",
    rules: ["check-standard-labels"],
    category: "Best Practices",
    severity: "low",
    fail: "validation error: The labels app.kubernetes.io/name, app.kubernetes.io/instance, app.kubernetes.io/version, app.kubernetes.io/part-of and app.kubernetes.io/managed-by are required. rule {rule} failed at path /metadata/labels/app.kubernetes.io/part-of/",
  },
  {
    policy: "require-argocd-management",
    rules: ["require-argocd-tracking"],
    category: "GitOps",
    severity: "medium",
    fail: "validation error: Workloads must be deployed by Argo CD: the argocd.argoproj.io/tracking-id annotation is missing. rule {rule} failed at path /metadata/annotations/argocd.argoproj.io/tracking-id/",
  },
];

const NAMED: Record<string, string[]> = {
  shop: ["checkout", "cart", "catalog", "frontend", "recommendations"],
  payments: ["payments-api", "ledger", "fraud-detector"],
  monitoring: ["prometheus", "grafana", "alertmanager"],
  "kube-system": ["coredns", "metrics-server"],
  data: ["postgres", "redis"],
  staging: ["checkout", "cart"],
};

const CVES = [
  {
    id: "CVE-2024-6387",
    pkg: "openssh-client",
    severity: "critical",
    installed: "1:9.2p1-2",
    fixed: "1:9.2p1-2+deb12u3",
  },
  { id: "CVE-2023-44487", pkg: "golang.org/x/net", severity: "high", installed: "v0.15.0", fixed: "0.17.0" },
  {
    id: "CVE-2024-2961",
    pkg: "libc6",
    severity: "high",
    installed: "2.36-9+deb12u4",
    fixed: "2.36-9+deb12u7",
  },
  {
    id: "CVE-2023-5678",
    pkg: "libssl3",
    severity: "medium",
    installed: "3.0.11-1~deb12u1",
    fixed: "3.0.13-1~deb12u1",
  },
  {
    id: "CVE-2024-0727",
    pkg: "openssl",
    severity: "low",
    installed: "3.0.11-1~deb12u1",
    fixed: "3.0.13-1~deb12u1",
  },
];

/** A small deterministic hash in [0, 1). */
function chance(...parts: string[]): number {
  let h = 2166136261;
  for (const c of parts.join("|")) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return ((h >>> 0) % 10_000) / 10_000;
}

const uid = (...parts: string[]) => {
  const hex = [0, 1, 2, 3].map((i) =>
    Math.floor(chance(...parts, String(i)) * 0xffff)
      .toString(16)
      .padStart(4, "0"),
  );
  return `${hex[0]}${hex[1]}-${hex[2]}-4${hex[3]?.slice(1)}-8${hex[0]?.slice(1)}-${hex[1]}${hex[2]}${hex[3]}`;
};

function kyvernoResult(p: Policy, rule: string, status: string, seconds: number): RawResult {
  const message = status === "pass" ? `validation rule '${rule}' passed.` : p.fail.replaceAll("{rule}", rule);
  return {
    source: "kyverno",
    policy: p.policy,
    rule,
    result: status,
    severity: p.severity,
    category: p.category,
    message,
    scored: true,
    timestamp: { seconds, nanos: 0 },
    properties: { process: "background scan" },
  };
}

/** One Kyverno per-resource report (named after the resource's uid, as Kyverno does). */
function kyvernoReport(ref: Ref, rulePrefix: string, seconds: number, failBias: number) {
  const results: RawResult[] = [];
  for (const p of DEMO_POLICIES) {
    for (const base of p.rules) {
      const rule = `${rulePrefix}${base}`;
      const roll = chance(ref.namespace ?? "", ref.kind, ref.name, p.policy, base);
      const privileged = p.policy === "disallow-privileged-containers";
      const status = roll < failBias * (privileged ? 0.3 : 1) ? "fail" : roll > 0.985 ? "warn" : "pass";
      results.push(kyvernoResult(p, rule, status, seconds));
    }
  }
  return {
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport",
    metadata: {
      name: ref.uid,
      namespace: ref.namespace,
      labels: { "app.kubernetes.io/managed-by": "kyverno" },
      creationTimestamp: new Date(seconds * 1000).toISOString(),
    },
    scope: ref,
    results,
  };
}

function trivyReport(ref: Ref, seconds: number) {
  const results = CVES.filter((cve) => chance(ref.name, cve.id) < 0.55).map((cve) => ({
    source: "trivy",
    policy: cve.id,
    rule: cve.pkg,
    result: "fail",
    severity: cve.severity,
    category: "Vulnerability Scan",
    message: `${cve.pkg} ${cve.installed} is affected by ${cve.id}; fixed in ${cve.fixed}`,
    scored: false,
    timestamp: { seconds, nanos: 0 },
    properties: {
      installedVersion: cve.installed,
      fixedVersion: cve.fixed,
      primaryURL: `https://avd.aquasec.com/nvd/${cve.id.toLowerCase()}`,
      resultID: `${ref.uid}-${cve.id}`,
    },
  }));
  return {
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport",
    metadata: {
      name: `trivy-vuln-replicaset-${ref.name}`,
      namespace: ref.namespace,
      labels: {
        "app.kubernetes.io/managed-by": "trivy-operator",
        "trivy-operator.source": "VulnerabilityReport",
      },
    },
    scope: ref,
    results,
  };
}

function clusterReports(namespaces: string[], seconds: number) {
  const nsResults = namespaces.map((name) => {
    const ok = chance("owner", name) > 0.35;
    return {
      source: "kyverno",
      policy: "require-namespace-owner",
      rule: "check-owner-label",
      result: ok ? "pass" : "fail",
      severity: "medium",
      category: "Multi-Tenancy",
      message: ok
        ? "validation rule 'check-owner-label' passed."
        : "validation error: The label `owner` is required on every Namespace. rule check-owner-label failed at path /metadata/labels/owner/",
      timestamp: { seconds, nanos: 0 },
      resources: [{ apiVersion: "v1", kind: "Namespace", name, uid: uid("ns", name) }],
    };
  });
  const bindings = ["ci-deployer", "legacy-admin", "monitoring-reader"].map((name) => ({
    source: "kyverno",
    policy: "restrict-cluster-admin",
    rule: "deny-cluster-admin-binding",
    result: name === "monitoring-reader" ? "pass" : "fail",
    severity: "high",
    category: "Security",
    message:
      name === "monitoring-reader"
        ? "validation rule 'deny-cluster-admin-binding' passed."
        : "validation error: Binding the cluster-admin ClusterRole is not allowed outside kube-system. rule deny-cluster-admin-binding failed at path /roleRef/name/",
    timestamp: { seconds, nanos: 0 },
    resources: [
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", name, uid: uid("crb", name) },
    ],
  }));
  return [
    {
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "ClusterPolicyReport",
      metadata: {
        name: "cpol-require-namespace-owner",
        labels: { "app.kubernetes.io/managed-by": "kyverno" },
      },
      results: nsResults,
    },
    {
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind: "ClusterPolicyReport",
      metadata: {
        name: "cpol-restrict-cluster-admin",
        labels: { "app.kubernetes.io/managed-by": "kyverno" },
      },
      results: bindings,
    },
  ];
}

/** The raw report objects (PolicyReport and ClusterPolicyReport) to feed to the ingest. */
export function demoReports(options: DemoDataOptions = {}): unknown[] {
  const perNs = options.appsPerNamespace ?? 6;
  const apps: Record<string, string[]> = { ...NAMED };
  for (let i = 0; i < (options.extraNamespaces ?? 0); i++) {
    apps[`team-${String(i + 1).padStart(3, "0")}`] = Array.from({ length: perNs }, (_, j) => `svc-${j + 1}`);
  }
  const reports: unknown[] = [];
  let n = 0;
  for (const [namespace, names] of Object.entries(apps)) {
    const bias = namespace === "kube-system" ? 0.08 : namespace === "staging" ? 0.45 : 0.28;
    for (const name of names) {
      const seconds = BASE_SECONDS + (n++ % 3600) * 7;
      const stateful = ["postgres", "redis", "prometheus", "alertmanager", "ledger"].includes(name);
      const kind = stateful ? "StatefulSet" : "Deployment";
      const owner: Ref = { apiVersion: "apps/v1", kind, name, namespace, uid: uid(namespace, kind, name) };
      // The showcase resource the browser tests open: always fails two policies.
      const bias2 = namespace === "shop" && name === "checkout" ? 0.9 : bias;
      reports.push(kyvernoReport(owner, "autogen-", seconds, bias2));
      const hash = Math.floor(chance(namespace, name, "rs") * 0xfffff).toString(36);
      for (const suffix of stateful ? ["0", "1"] : [`${hash}-x7k2p`]) {
        const podName = stateful ? `${name}-${suffix}` : `${name}-${suffix}`;
        const pod: Ref = {
          apiVersion: "v1",
          kind: "Pod",
          name: podName,
          namespace,
          uid: uid(namespace, "Pod", podName),
        };
        reports.push(kyvernoReport(pod, "", seconds, bias2));
      }
      if (!stateful) {
        const rs: Ref = {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: `${name}-${hash}`,
          namespace,
          uid: uid(namespace, "rs", name),
        };
        reports.push(trivyReport(rs, seconds));
      }
    }
    if (namespace === "payments" || namespace === "data") {
      const name = `${namespace}-nightly-backup`;
      const cron: Ref = {
        apiVersion: "batch/v1",
        kind: "CronJob",
        name,
        namespace,
        uid: uid(namespace, "CronJob", name),
      };
      reports.push(kyvernoReport(cron, "autogen-cronjob-", BASE_SECONDS, 0.5));
    }
  }
  reports.push(...clusterReports(Object.keys(apps), BASE_SECONDS));
  return reports;
}

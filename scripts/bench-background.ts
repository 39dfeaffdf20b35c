// Background controller benchmark (not a test): N Namespaces created at once through the admission
// controller, with a ClusterPolicy generating 3 resources for each (NetworkPolicy, ResourceQuota,
// ConfigMap). Runs the local API server in this process, `kyverno-ts admission` and
// `kyverno-ts background` as their own processes (from the sources), and prints the time from the
// first create until all 3N generated objects exist, the UpdateRequests processed (the background
// controller's kyverno_updaterequest_processed_total) and created (the admission intake's merging
// makes them ≤ N), the background controller's peak RSS (VmHWM) and, as the floor measured in the
// same run, the time to create 3N small objects directly with the same concurrency.
// Then the flood: every Namespace is updated `--flood` times at once (flood × N admission requests
// that each trigger the generate rules again); the admission controller's create calls, the
// UpdateRequests processed, the most that existed at once (sampled) and the time until none is left show the bound
// (one UpdateRequest per policy and trigger, whatever the number of requests). The peak RSS is given
// before the flood (the goal's figure) and after it; the writes by kind count the whole run. The CPU
// seconds of the first phase (background, admission, API server with this script) show the work's own
// cost beside its wall time on a shared machine. The background client's API calls of the first phase,
// by verb and kind, per UpdateRequest and per second, are the load-independent figure: at the default
// --clientRateLimitQPS=300 (burst 300) the phase takes at least (calls - 300) / 300 seconds.
// Usage: node scripts/bench-background.ts [--namespaces 1000] [--workers 10] [--concurrency 50] [--flood 5]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createKubeClient } from "../packages/kube/dist/index.js";
import { startSandbox } from "../packages/sandbox/dist/index.js";
import { startBackground } from "../packages/server/src/testing/background.ts";
import { startReplica } from "../packages/server/src/testing/replicas.ts";

const CRDS = fileURLToPath(new URL("../../shared/reference/kyverno-crds/kyverno/", import.meta.url));

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const N = flag("namespaces", 1000);
const WORKERS = flag("workers", 10);
const CONCURRENCY = flag("concurrency", 50);
const FLOOD = flag("flood", 5);

const POLICY = {
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "namespace-defaults" },
  spec: {
    rules: ["netpol", "quota", "settings"].map((name) => ({
      name,
      match: { any: [{ resources: { kinds: ["Namespace"], names: ["bench-*"] } }] },
      generate: {
        synchronize: true,
        namespace: "{{request.object.metadata.name}}",
        ...(name === "netpol"
          ? {
              apiVersion: "networking.k8s.io/v1",
              kind: "NetworkPolicy",
              name: "default-deny",
              data: { spec: { podSelector: {}, policyTypes: ["Ingress"] } },
            }
          : name === "quota"
            ? {
                apiVersion: "v1",
                kind: "ResourceQuota",
                name: "quota",
                data: { spec: { hard: { pods: "10" } } },
              }
            : {
                apiVersion: "v1",
                kind: "ConfigMap",
                name: "settings",
                data: { data: { owner: "{{request.object.metadata.name}}" } },
              }),
      },
    })),
  },
};

async function inParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** The API calls of a process's client by `operation kind` (kyverno_client_queries_total, every verb). */
async function callsByKind(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const calls: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m =
      /^kyverno_client_queries_total\{operation="([^"]*)",client_type="[^"]*",resource_kind="([^"]*)"/.exec(
        line,
      );
    if (m)
      calls[`${m[1]} ${m[2]}`] =
        (calls[`${m[1]} ${m[2]}`] ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return calls;
}

const sum = (calls: Record<string, number>): number => Object.values(calls).reduce((a, b) => a + b, 0);

async function metric(port: number, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = pattern.exec(line);
    if (m) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

const sandbox = await startSandbox({
  watchHistorySize: 200_000,
  crds: [
    `${CRDS}kyverno.io_clusterpolicies.yaml`,
    `${CRDS}kyverno.io_policies.yaml`,
    `${CRDS}kyverno.io_policyexceptions.yaml`,
    `${CRDS}kyverno.io_updaterequests.yaml`,
    `${CRDS}../reports/reports.kyverno.io_ephemeralreports.yaml`,
    `${CRDS}../reports/reports.kyverno.io_clusterephemeralreports.yaml`,
  ],
});
const client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
const must = (r: { ok: boolean; message?: string }) => {
  if (!r.ok) throw new Error(r.message);
};
must(await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kyverno" } }));
must(await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "floor" } }));

// Floor: 3N small objects created directly, same concurrency, no webhook.
const floorStart = performance.now();
await inParallel(
  Array.from({ length: 3 * N }, (_, i) => i),
  CONCURRENCY,
  async (i) =>
    must(
      await client.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `c-${i}`, namespace: "floor" },
      }),
    ),
);
const floorMs = performance.now() - floorStart;

const replica = await startReplica({
  kubeconfig: sandbox.kubeconfigPath,
  identity: "bench-admission",
  args: ["--serverIP", "127.0.0.1", "--log-level", "warn"],
  startTimeoutMs: 60_000,
});
const background = await startBackground({
  // The built controller (dist), as the image runs it; the sources' TypeScript hooks cost ~100 MiB.
  entry: fileURLToPath(new URL("./bench/background-entry.ts", import.meta.url)),
  kubeconfig: sandbox.kubeconfigPath,
  identity: "bench-background",
  args: ["--genWorkers", String(WORKERS), "--log-level", "warn"],
});
try {
  // The background controller's permissions (the policy validation webhook checks them).
  must(
    await client.create({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "kyverno:background-controller" },
      rules: [
        {
          apiGroups: ["", "networking.k8s.io"],
          resources: ["configmaps", "resourcequotas", "networkpolicies"],
          verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
        },
      ],
    }),
  );
  must(
    await client.create({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "kyverno:background-controller" },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "kyverno:background-controller",
      },
      subjects: [{ kind: "ServiceAccount", name: "kyverno-background-controller", namespace: "kyverno" }],
    }),
  );
  must(await client.create(POLICY));
  // Wait for the webhook to cover Namespaces.
  for (;;) {
    const cfg = await client.get({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      name: "kyverno-resource-validating-webhook-cfg",
    });
    if (cfg.ok && JSON.stringify(cfg.value).includes('"namespaces"')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const rssBefore = peakRssMiB(background.pid);
  // CPU seconds of the three parties (the API server runs in this process), for a loaded machine's
  // wall times: the work's own cost beside the time it took.
  const cpu = async () => ({
    background: await metric(background.metricsPort, /^process_cpu_seconds_total /),
    admission: await metric(replica.metricsPort, /^process_cpu_seconds_total /),
    apiServerAndBench: ((u) => (u.user + u.system) / 1e6)(process.cpuUsage()),
  });
  const cpuBefore = await cpu();
  const callsBefore = await callsByKind(background.metricsPort);
  // The admission controller's UpdateRequest create calls (those answered AlreadyExists included: a
  // pending UpdateRequest for the same policy and trigger absorbs the request).
  const urCreates = () =>
    metric(
      replica.metricsPort,
      /^kyverno_client_queries_total\{operation="create",client_type="[^"]*",resource_kind="UpdateRequest"/,
    );
  // The background client's calls per second while it works: is the rate limiter (QPS) kept busy?
  const perSecond: number[] = [];
  // And the UpdateRequests the admission controller created per second: the work's arrival.
  const createdPerSecond: number[] = [];
  let sampleCalls = true;
  const callSampler = (async () => {
    let last = sum(callsBefore);
    let lastCreated = await urCreates();
    while (sampleCalls) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = sum(await callsByKind(background.metricsPort));
      const created = await urCreates();
      perSecond.push(now - last);
      createdPerSecond.push(created - lastCreated);
      last = now;
      lastCreated = created;
    }
  })();
  const start = performance.now();
  await inParallel(
    Array.from({ length: N }, (_, i) => `bench-${i}`),
    CONCURRENCY,
    async (name) => must(await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } })),
  );
  const createdMs = performance.now() - start;
  const count = async (apiVersion: string, kind: string) => {
    const listed = await client.list({
      apiVersion,
      kind,
      labelSelector: "generate.kyverno.io/policy-name=namespace-defaults",
    });
    return listed.ok ? listed.value.items.length : 0;
  };
  let total = 0;
  for (;;) {
    total =
      (await count("networking.k8s.io/v1", "NetworkPolicy")) +
      (await count("v1", "ResourceQuota")) +
      (await count("v1", "ConfigMap"));
    if (total >= 3 * N || performance.now() - start > 300_000) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const allMs = performance.now() - start;
  sampleCalls = false;
  await callSampler;
  const callsAfter = await callsByKind(background.metricsPort);
  const firstCalls: Record<string, number> = {};
  for (const [k, v] of Object.entries(callsAfter))
    if (v - (callsBefore[k] ?? 0) > 0) firstCalls[k] = v - (callsBefore[k] ?? 0);
  // UpdateRequests left to process (a Skip one is kept, as upstream, and has nothing left to do).
  const urCount = async () => {
    const listed = await client.list({
      apiVersion: "kyverno.io/v2",
      kind: "UpdateRequest",
      namespace: "kyverno",
    });
    if (!listed.ok) return 0;
    return listed.value.items.filter((o) => (o.status as { state?: string } | undefined)?.state !== "Skip")
      .length;
  };
  const createdFirst = await urCreates();
  const cpuAfter = await cpu();
  const cpuSeconds = Object.fromEntries(
    (Object.keys(cpuAfter) as Array<keyof typeof cpuAfter>).map((k) => [
      k,
      +(cpuAfter[k] - cpuBefore[k]).toFixed(2),
    ]),
  );
  const processedFirst = await metric(background.metricsPort, /^kyverno_updaterequest_processed_total\{/);
  const rssFirst = peakRssMiB(background.pid);
  // The flood: FLOOD label updates of every Namespace, all at once, while UpdateRequests are sampled.
  let floodMax = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      floodMax = Math.max(floodMax, await urCount());
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const floodStart = performance.now();
  await inParallel(
    Array.from({ length: FLOOD * N }, (_, i) => i),
    CONCURRENCY,
    async (i) => {
      const name = `bench-${i % N}`;
      must(
        await client.patch(
          { apiVersion: "v1", kind: "Namespace", name },
          { type: "merge", patch: { metadata: { labels: { round: String(Math.floor(i / N)) } } } },
        ),
      );
    },
  );
  const floodRequestsMs = performance.now() - floodStart;
  while ((await urCount()) > 0 && performance.now() - floodStart < 300_000)
    await new Promise((r) => setTimeout(r, 250));
  const floodDrainedMs = performance.now() - floodStart;
  sampling = false;
  await sampler;
  const floodCreated = (await urCreates()) - createdFirst;
  const afterFlood =
    (await count("networking.k8s.io/v1", "NetworkPolicy")) +
    (await count("v1", "ResourceQuota")) +
    (await count("v1", "ConfigMap"));
  const processed = await metric(background.metricsPort, /^kyverno_updaterequest_processed_total\{/);
  const writes = await metric(
    background.metricsPort,
    /^kyverno_client_queries_total\{operation="(create|update|update_status|delete|patch)"/,
  );
  // Writes by operation and kind (what the controller spends its API calls on).
  const text = await (await fetch(`http://127.0.0.1:${background.metricsPort}/metrics`)).text();
  const writesByKind: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m =
      /^kyverno_client_queries_total\{operation="(create|update|update_status|delete|patch)",client_type="[^"]*",resource_kind="([^"]*)"/.exec(
        line,
      );
    if (m)
      writesByKind[`${m[1]} ${m[2]}`] =
        (writesByKind[`${m[1]} ${m[2]}`] ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  const result = {
    namespaces: N,
    generated: total,
    namespacesCreatedSeconds: +(createdMs / 1000).toFixed(2),
    allGeneratedSeconds: +(allMs / 1000).toFixed(2),
    floorCreate3NSeconds: +(floorMs / 1000).toFixed(2),
    updateRequestCreateCalls: createdFirst,
    cpuSeconds,
    updateRequestsProcessed: processedFirst,
    backgroundPeakRssMiB: rssFirst,
    // Load-independent: the background controller's API calls (all verbs) until all were generated.
    backgroundCalls: sum(firstCalls),
    backgroundCallsPerUpdateRequest: +(sum(firstCalls) / Math.max(1, processedFirst)).toFixed(2),
    backgroundCallsByKind: firstCalls,
    // The least time those calls take through the default token bucket (300 QPS, burst 300).
    rateLimitFloorSeconds: +(Math.max(0, sum(firstCalls) - 300) / 300).toFixed(2),
    // Calls per second of the background client (its limiter: --clientRateLimitQPS, 300 by default).
    backgroundCallsPerSecond: perSecond,
    updateRequestsCreatedPerSecond: createdPerSecond,
    flood: {
      updateRequests: FLOOD * N,
      updateRequestCreateCalls: floodCreated,
      mostUpdateRequestsAtOnce: floodMax,
      requestsSeconds: +(floodRequestsMs / 1000).toFixed(2),
      allProcessedSeconds: +(floodDrainedMs / 1000).toFixed(2),
      generatedAfter: afterFlood,
      updateRequestsProcessed: processed - processedFirst,
      backgroundPeakRssMiB: peakRssMiB(background.pid),
    },
    backgroundWrites: writes,
    writesByKind,
    backgroundRssBeforeMiB: rssBefore,
    goal: "all generated ≤ 30 s, RSS ≤ 250 MiB",
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await background.stop();
  await replica.stop();
  client.close();
  await sandbox.stop();
}

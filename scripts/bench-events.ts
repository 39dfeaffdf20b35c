// Kubernetes Events benchmark (not a test): how many Event objects and API writes 10,000 policy
// violations in a minute turn into, through the admission controller's path (PolicyEvents → the kube
// event recorder with upstream's defaults: --maxQueuedEvents 1000, --eventsRateLimitQPS 1000 / burst
// 2000, client-go's spam filter and series) against the sandbox API server. Each violation is an
// audited rule failure (a PolicyViolation on the Pod and on the policy). Scenarios: one noisy Pod,
// 100 Pods, 10,000 Pods (all spread over --seconds), and the 10,000 Pods at once (a burst). The floor,
// measured in the same run, is how fast the sandbox creates Events written directly (3 writers).
// Also reported: what record() costs the caller (the admission request path), in microseconds.
// Usage: npm run build && node scripts/bench-events.ts [--violations 10000] [--seconds 60]

import type { PolicyResponse } from "../packages/engine/dist/index.js";
import { createEventRecorder, createKubeClient, type KubeClient } from "../packages/kube/dist/index.js";
import { startSandbox } from "../packages/sandbox/dist/index.js";
import { createPolicyEvents, policyRefFrom } from "../packages/server/dist/events/policy-events.js";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const VIOLATIONS = flag("violations", 10_000);
const SECONDS = flag("seconds", 60);
const TICK_MS = 50;

const response = (namespace: string, pod: string): PolicyResponse => ({
  policy: { kind: "ClusterPolicy", name: "require-team-label" },
  resource: { apiVersion: "v1", kind: "Pod", namespace, name: pod, uid: `uid-${namespace}-${pod}` },
  rules: [
    {
      name: "team-label",
      type: "Validation",
      status: "fail",
      message:
        "validation error: the label team is required. rule team-label failed at path /metadata/labels/team/",
      failureAction: "Audit",
    },
  ],
  background: true,
  timestamp: Date.now(),
});

async function count(client: KubeClient, namespace: string): Promise<number> {
  const listed = await client.list({ apiVersion: "v1", kind: "Event", namespace });
  if (!listed.ok) throw new Error(listed.message);
  return listed.value.items.length;
}

async function floor(client: KubeClient, n: number): Promise<number> {
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "floor" } });
  let next = 0;
  const start = performance.now();
  const writer = async () => {
    while (next < n) {
      const i = next++;
      const made = await client.create({
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: `floor.${i}`, namespace: "floor" },
        involvedObject: { apiVersion: "v1", kind: "Pod", name: `p${i}`, namespace: "floor" },
        reason: "PolicyViolation",
        message: "floor",
        type: "Warning",
      });
      if (!made.ok) throw new Error(made.message);
    }
  };
  await Promise.all([writer(), writer(), writer()]);
  return n / ((performance.now() - start) / 1000);
}

interface Scenario {
  name: string;
  /** The Pod of the i-th violation. */
  pod: (i: number) => string;
  /** Spread over --seconds, or all at once. */
  spread: boolean;
}

async function run(kubeconfigPath: string, client: KubeClient, scenario: Scenario, namespace: string) {
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  const eventsClient = createKubeClient({ kubeconfigPath, qps: 0 });
  const recorder = createEventRecorder({ client: eventsClient, identity: "bench" });
  recorder.start();
  const events = createPolicyEvents({
    recorder,
    policyRef: policyRefFrom(() => ({ apiVersion: "kyverno.io/v1", metadata: { uid: "policy-uid" } })),
  });
  const policyEventsBefore = await count(client, "default");
  const responses = Array.from({ length: VIOLATIONS }, (_, i) => [response(namespace, scenario.pod(i))]);
  let recordNs = 0n;
  const emit = (from: number, to: number) => {
    const t = process.hrtime.bigint();
    for (let i = from; i < to; i++) events.admission(responses[i] as PolicyResponse[], false);
    recordNs += process.hrtime.bigint() - t;
  };
  const start = performance.now();
  if (!scenario.spread) emit(0, VIOLATIONS);
  else {
    const ticks = Math.max(1, Math.round((SECONDS * 1000) / TICK_MS));
    let done = 0;
    for (let tick = 1; tick <= ticks; tick++) {
      const due = Math.round((VIOLATIONS * tick) / ticks);
      emit(done, due);
      done = due;
      const wait = start + tick * TICK_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  const emitted = performance.now();
  await recorder.flush();
  const drained = performance.now();
  const stats = recorder.stats();
  await recorder.stop();
  eventsClient.close();
  const onPods = await count(client, namespace);
  const onPolicy = (await count(client, "default")) - policyEventsBefore;
  console.log(
    `${scenario.name.padEnd(28)} ${String(onPods + onPolicy).padStart(6)} Events (${onPods} on Pods, ${onPolicy} on the policy), ` +
      `${stats.created + stats.patched} API writes (${stats.patched} series patches), ` +
      `${stats.aggregated} folded, ${stats.spamFiltered} spam-filtered, ${stats.queueFull} dropped (queue full); ` +
      `${((emitted - start) / 1000).toFixed(1)} s emitting + ${((drained - emitted) / 1000).toFixed(1)} s draining; ` +
      `caller ${(Number(recordNs) / 1000 / VIOLATIONS).toFixed(1)} us/violation`,
  );
}

/**
 * What the admission path pays per violation (policy and resource Events built and recorded), with
 * an in-memory API that answers at once, in batches of 500 per event-loop turn: distinct Pods (each
 * a new Event, queued) and one Pod (each folded into a series). Medians of 5 rounds.
 */
async function callerCost(): Promise<void> {
  const ok = { ok: true as const, status: 201, value: {} };
  const memory = { create: async () => ok, patch: async () => ok } as unknown as KubeClient;
  for (const [what, podOf] of [
    ["distinct Pods", (i: number) => `pod-${i}`],
    ["one Pod", () => "noisy"],
  ] as const) {
    const rounds: number[] = [];
    for (let round = 0; round < 5; round++) {
      const recorder = createEventRecorder({ client: memory, identity: "bench", qps: 0, spamBurst: 1e9 });
      const events = createPolicyEvents({
        recorder,
        policyRef: policyRefFrom(() => ({ apiVersion: "kyverno.io/v1", metadata: { uid: "policy-uid" } })),
      });
      const responses = Array.from({ length: 20_000 }, (_, i) => [response(`r${round}`, podOf(i))]);
      let ns = 0n;
      for (let i = 0; i < responses.length; i += 500) {
        const t = process.hrtime.bigint();
        for (let j = i; j < i + 500; j++) events.admission(responses[j] as PolicyResponse[], false);
        ns += process.hrtime.bigint() - t;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await recorder.flush();
      await recorder.stop();
      rounds.push(Number(ns) / 1000 / responses.length);
    }
    rounds.sort((a, b) => a - b);
    console.log(`caller cost, ${what}: ${rounds[2]?.toFixed(2)} us per violation (2 Events), median of 5`);
  }
}

await callerCost();
const sandbox = await startSandbox({});
const client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
try {
  const rate = await floor(client, 2000);
  console.log(
    `floor: the sandbox creates ${rate.toFixed(0)} Events/s written directly (3 writers): ${Math.round(rate * 60)} a minute`,
  );
  console.log(`${VIOLATIONS} audited violations (2 Events each: on the Pod and on the policy):`);
  const perPod = Math.max(1, Math.round(VIOLATIONS / 100));
  const scenarios: Scenario[] = [
    { name: `one noisy Pod, ${SECONDS} s`, pod: () => "noisy", spread: true },
    { name: `100 Pods, ${SECONDS} s`, pod: (i) => `pod-${Math.floor(i / perPod)}`, spread: true },
    { name: `${VIOLATIONS} Pods, ${SECONDS} s`, pod: (i) => `pod-${i}`, spread: true },
    { name: `${VIOLATIONS} Pods at once`, pod: (i) => `pod-${i}`, spread: false },
  ];
  let n = 0;
  for (const scenario of scenarios) await run(sandbox.kubeconfigPath, client, scenario, `bench-${n++}`);
} finally {
  client.close();
  await sandbox.stop();
}

/**
 * End to end, several replicas behind the webhook Service (the sandbox resolves it through a router
 * that plays the part of the Service's endpoints): leader handover on a graceful stop and on a crash
 * with requests checked throughout, the webhook down under Fail and Ignore, a restart that finds its
 * configuration intact, and a slow policy hitting its configured timeout.
 */
import { get } from "node:http";
import { type JsonValue, type KubeObject, loadPolicy, parseDocuments } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient, type WatchEvent, type WatchStream } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KYVERNO_CRDS, read, until } from "../testing/cluster.js";
import { createServiceRouter, type Replica, startReplica } from "../testing/replicas.js";

const hasKubectl = kubectlAvailable();
/** Short leader election timings (lease 4 s, renew deadline 3 s, retry 0.5 s) so a crash is taken over quickly. */
const FAST = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };
const WEBHOOK_KINDS = ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"];

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: deny-privileged}
spec:
  validationFailureAction: Enforce
  failurePolicy: Fail
  rules:
  - name: privileged
    match: {any: [{resources: {kinds: [Pod], namespaces: [apps]}}]}
    validate:
      message: privileged mode is not allowed
      pattern: {spec: {containers: [{=(securityContext): {=(privileged): "false"}}]}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: audit-open-secrets}
spec:
  validationFailureAction: Audit
  failurePolicy: Ignore
  rules:
  - name: anything
    match: {any: [{resources: {kinds: [Secret], namespaces: [open]}}]}
    validate:
      message: audited
      pattern: {metadata: {name: "?*"}}
`;

const privilegedPod = (name: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "apps" },
  spec: { containers: [{ name: "app", image: "nginx:1.27", securityContext: { privileged: true } }] },
});

/** How one request ended: evaluated and denied by the policy, refused because no webhook answered, or admitted. */
type Outcome = "denied-by-policy" | "webhook-unreachable" | "admitted" | "other";

/**
 * Items that make the slow policy take about `targetMs` on this machine: its cost grows with the cube
 * of the item count, measured here with the same engine the replicas run.
 */
function slowItems(policyYaml: string, targetMs: number): string[] {
  const items = (n: number) => Array.from({ length: n }, (_, i) => `x${i}`);
  const doc = parseDocuments(policyYaml, "slow.yaml").documents[0]?.value as JsonValue;
  const loaded = loadPolicy(doc, { file: "slow.yaml" });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join("; "));
  const engine = createEngine({});
  const compiled = engine.compile(loaded.value);
  if (!compiled.ok) throw new Error("the slow policy does not compile");
  const run = (n: number): number => {
    const resource = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "x" },
      data: { items: items(n).join(",") },
    };
    const start = performance.now();
    engine.validate(compiled.policy, { resource });
    return performance.now() - start;
  };
  // Warm the JIT first and keep the faster of two timings: a cold or disturbed measurement (other test files
  // share the CPU) overestimates the cost, which would make the real request too fast to hit the timeout.
  const sample = 100;
  run(sample);
  const ms = Math.max(1, Math.min(run(sample), run(sample)));
  return items(Math.max(sample, Math.round(sample * Math.cbrt(targetMs / ms))));
}

function metrics(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: "/metrics" }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => {
        text += c.toString();
      });
      res.on("end", () => resolve(text));
    }).on("error", reject);
  });
}

const admissionRequests = async (replica: Replica): Promise<number> =>
  (await metrics(replica.metricsPort))
    .split("\n")
    .filter((l) => l.startsWith("kyverno_admission_requests_total{") && l.includes('resource_kind="Pod"'))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);

describe.skipIf(!hasKubectl)("admission controller replicas", () => {
  const router = createServiceRouter();
  const replicas: Replica[] = [];
  /** The replica leading after the previous test. */
  let current: Replica;
  let sandbox: Sandbox;
  let client: KubeClient;
  let kubectl: ReturnType<typeof kubectlFor>;

  const start = async (identity: string): Promise<Replica> => {
    const replica = await startReplica({ kubeconfig: sandbox.kubeconfigPath, identity, leaderTimings: FAST });
    replicas.push(replica);
    router.add(replica.port);
    return replica;
  };
  const holder = async (): Promise<string | undefined> => {
    const lease = await read(client, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      namespace: "kyverno",
      name: "kyverno",
    });
    return (lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
  };
  let attempt = 0;
  const tryPrivileged = async (): Promise<Outcome> => {
    const result = await client.create(privilegedPod(`probe-${attempt++}`), { dryRun: true });
    if (result.ok) return "admitted";
    if (result.message.includes("deny-privileged:\n  privileged:")) return "denied-by-policy";
    if (result.message.includes("failed calling webhook")) return "webhook-unreachable";
    return "other";
  };
  /** Sends requests one after the other until `stop` resolves; returns every outcome. */
  const probe = (stop: Promise<unknown>): Promise<Outcome[]> => {
    let done = false;
    void stop.finally(() => {
      done = true;
    });
    return (async () => {
      const outcomes: Outcome[] = [];
      while (!done) outcomes.push(await tryPrivileged());
      outcomes.push(await tryPrivileged());
      return outcomes;
    })();
  };
  /** The webhook configurations and certificate Secrets, by name, with their resourceVersions. */
  const snapshot = async (): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    for (const kind of WEBHOOK_KINDS) {
      const list = await client.list({ apiVersion: "admissionregistration.k8s.io/v1", kind });
      if (list.ok)
        for (const o of list.value.items)
          out[`${kind}/${o.metadata?.name}`] = String(o.metadata?.resourceVersion ?? "");
    }
    const secrets = await client.list({ apiVersion: "v1", kind: "Secret", namespace: "kyverno" });
    if (secrets.ok)
      for (const o of secrets.value.items)
        out[`Secret/${o.metadata?.name}`] = String(o.metadata?.resourceVersion ?? "");
    return out;
  };
  /** Records every event on webhook configurations until the returned function is called. */
  const recordWebhookEvents = async (): Promise<() => Array<{ type: string; webhooks: number }>> => {
    const events: Array<{ type: string; webhooks: number }> = [];
    const streams: WatchStream[] = [];
    for (const kind of WEBHOOK_KINDS) {
      const list = await client.list({ apiVersion: "admissionregistration.k8s.io/v1", kind });
      if (!list.ok) throw new Error(list.message);
      const opened = await client.watch(
        {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind,
          resourceVersion: list.value.metadata.resourceVersion,
        },
        (e: WatchEvent<KubeObject>) => {
          if (e.type !== "ERROR" && e.type !== "BOOKMARK")
            events.push({
              type: e.type,
              webhooks: Array.isArray(e.object.webhooks) ? e.object.webhooks.length : 0,
            });
        },
      );
      if (!opened.ok) throw new Error(opened.message);
      streams.push(opened.value);
    }
    return () => {
      for (const s of streams) s.stop();
      return events;
    };
  };

  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: KYVERNO_CRDS,
      resolveService: (ns, name, port) => router.resolve(ns, name, port),
    });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    for (const name of ["kyverno", "apps", "open", "slow-fail", "slow-ignore"])
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
    await Promise.all([start("replica-a"), start("replica-b")]);
    expect((await kubectl(["apply", "-f", "-"], POLICIES)).code).toBe(0);
    const ready = await kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=20s",
      "clusterpolicy/deny-privileged",
      "clusterpolicy/audit-open-secrets",
    ]);
    expect(ready.code, ready.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled(replicas.map((r) => r.kill()));
    client?.close();
    await sandbox?.stop();
  });

  it("elects one leader on the kyverno Lease while every replica serves requests", async () => {
    const leaders = await Promise.all(replicas.map((r) => r.isLeader()));
    expect(leaders.filter(Boolean)).toHaveLength(1);
    expect(await holder()).toBe(replicas[leaders.indexOf(true)]?.identity);
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => tryPrivileged()));
    expect(outcomes).toEqual(Array(6).fill("denied-by-policy"));
    for (const replica of replicas) expect(await admissionRequests(replica)).toBeGreaterThan(0);
    const webhook = await read(client, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      name: "kyverno-resource-validating-webhook-cfg",
    });
    const hooks = webhook?.webhooks as Array<{ name: string; clientConfig: { service?: object } }>;
    expect(hooks.map((h) => h.name)).toEqual(["validate.kyverno.svc-fail", "validate.kyverno.svc-ignore"]);
    expect(hooks[0]?.clientConfig.service).toEqual({
      namespace: "kyverno",
      name: "kyverno-svc",
      port: 443,
      path: "/validate/fail",
    });
  });

  it("hands over on a graceful stop of the leader with every request checked and nothing rewritten", async () => {
    const leader = replicas[(await Promise.all(replicas.map((r) => r.isLeader()))).indexOf(true)] as Replica;
    const follower = replicas.find((r) => r !== leader) as Replica;
    const before = await snapshot();
    const stopRecording = await recordWebhookEvents();
    const handedOver = (async () => {
      router.remove(leader.port); // the terminating Pod leaves the Service's endpoints
      expect(await leader.stop()).toBe(0);
      await until(
        async () => (await holder()) === follower.identity && (await follower.isLeader()),
        10_000,
        "takeover",
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
    })();
    const outcomes = await probe(handedOver);
    await handedOver;
    expect(outcomes.length).toBeGreaterThan(10);
    expect(outcomes.filter((o) => o !== "denied-by-policy")).toEqual([]);
    expect(stopRecording()).toEqual([]);
    expect(await snapshot()).toEqual(before);
    current = follower;

    // The new leader keeps the configurations in sync and writes statuses.
    const labelPolicy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: Enforce
  rules:
  - name: team
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [apps]}}]}
    validate: {message: "label team is required", pattern: {metadata: {labels: {team: "?*"}}}}
`;
    expect((await kubectl(["apply", "-f", "-"], labelPolicy)).code).toBe(0);
    expect(
      (await kubectl(["wait", "--for=condition=Ready", "--timeout=15s", "clusterpolicy/require-team"])).code,
    ).toBe(0);
    const refused = await kubectl(["create", "configmap", "unlabelled", "-n", "apps"]);
    expect(refused.stderr).toContain("label team is required");

    // ...and the certificates: a serving pair deleted by hand is reissued, and served without a restart.
    const pairRef = {
      apiVersion: "v1",
      kind: "Secret",
      namespace: "kyverno",
      name: "kyverno-svc.kyverno.svc.kyverno-tls-pair",
    };
    const oldPair = await read(client, pairRef);
    expect((await client.delete(pairRef)).ok).toBe(true);
    await until(
      async () => {
        const pair = await read(client, pairRef);
        return pair !== undefined && pair.metadata?.uid !== oldPair?.metadata?.uid;
      },
      10_000,
      "pair reissued by the new leader",
    );
    await until(
      async () => (await tryPrivileged()) === "denied-by-policy",
      10_000,
      "served with the new pair",
    );
  }, 30_000);

  it("survives a crash of the leader: nothing is admitted unchecked, the survivor takes over", async () => {
    const third = await start("replica-c");
    const crashed = current;
    expect(await crashed.isLeader()).toBe(true);
    const takenOver = (async () => {
      await crashed.kill(); // SIGKILL: no step-down, the Lease must expire
      await new Promise((resolve) => setTimeout(resolve, 300));
      router.remove(crashed.port); // the endpoints controller notices the dead Pod
      await until(async () => (await holder()) === third.identity, 15_000, "takeover after a crash");
    })();
    current = third;
    const outcomes = await probe(takenOver);
    await takenOver;
    expect(outcomes.filter((o) => o === "admitted" || o === "other")).toEqual([]);
    expect(outcomes.at(-1)).toBe("denied-by-policy");
    // The survivor manages the webhooks: deleting a policy stops its enforcement.
    expect((await kubectl(["delete", "clusterpolicy", "require-team"])).code).toBe(0);
    await until(
      async () => (await kubectl(["create", "configmap", "after-delete", "-n", "apps"])).code === 0,
      10_000,
    );
  }, 30_000);

  it("with the webhook down, refuses under failurePolicy Fail and admits under Ignore; a restart finds the configuration intact", async () => {
    const last = current;
    await last.kill();
    router.remove(last.port);
    const before = await snapshot();
    const refused = await kubectl(["apply", "-f", "-"], JSON.stringify(privilegedPod("while-down")));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('failed calling webhook "validate.kyverno.svc-fail"');
    expect(refused.stderr).toContain("connection refused");
    const admitted = await kubectl(["create", "secret", "generic", "while-down", "-n", "open"]);
    expect(admitted.code, admitted.stderr).toBe(0);

    // A fresh replica computes the same configuration: nothing is written.
    const stopRecording = await recordWebhookEvents();
    const restarted = await start("replica-d");
    current = restarted;
    await until(() => restarted.isLeader(), 20_000, "the restarted replica leads");
    expect(await tryPrivileged()).toBe("denied-by-policy");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stopRecording()).toEqual([]);
    expect(await snapshot()).toEqual(before);
  }, 40_000);

  it("answers per failure policy when a slow policy hits its configured timeout", async () => {
    await kubectl(["delete", "clusterpolicy", "deny-privileged", "audit-open-secrets"]);
    const slow = (name: string, failurePolicy: string, namespace: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ${name}}
spec:
  validationFailureAction: Enforce
  failurePolicy: ${failurePolicy}
  webhookTimeoutSeconds: 1
  rules:
  - name: slow
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [${namespace}]}}]}
    validate:
      message: never fails
      foreach:
      - list: "request.object.data.items | split(@, ',')"
        foreach:
        - list: "request.object.data.items | split(@, ',')"
          deny:
            conditions:
              any:
              - {key: "{{ length(sort(split(request.object.data.items, ','))) }}", operator: LessThan, value: 0}
`;
    const policies = `${slow("slow-fail", "Fail", "slow-fail")}---\n${slow("slow-ignore", "Ignore", "slow-ignore")}`;
    expect((await kubectl(["apply", "-f", "-"], policies)).code).toBe(0);
    const ready = await kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=15s",
      "clusterpolicy/slow-fail",
      "clusterpolicy/slow-ignore",
    ]);
    expect(ready.code, ready.stderr).toBe(0);
    const webhook = await read(client, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      name: "kyverno-resource-validating-webhook-cfg",
    });
    const hooks = webhook?.webhooks as Array<{ name: string; timeoutSeconds: number }>;
    expect(hooks.map((h) => [h.name, h.timeoutSeconds])).toEqual([
      ["validate.kyverno.svc-fail", 1],
      ["validate.kyverno.svc-ignore", 1],
    ]);
    const items = `--from-literal=items=${slowItems(slow("calibration", "Fail", "x"), 4000).join(",")}`;
    const started = Date.now();
    const failed = await kubectl(["create", "configmap", "big", "-n", "slow-fail", items]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('failed calling webhook "validate.kyverno.svc-fail"');
    expect(failed.stderr).toContain("context deadline exceeded");
    expect(Date.now() - started).toBeLessThan(8000);
    // The API server gave up after 1 s; the replica is still evaluating. Wait until it answers again.
    await metrics(current.metricsPort);
    const ignored = await kubectl(["create", "configmap", "big", "-n", "slow-ignore", items]);
    expect(ignored.code, ignored.stderr).toBe(0);
  }, 40_000);
});

/**
 * Kubernetes Events end to end: the admission controller (cluster mode, in process) with upstream's
 * default `--omitEvents` against the sandbox; the real kubectl shows why a Pod was audited
 * (`kubectl get events`, `kubectl describe pod`) and why one was blocked (the policy's Event).
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_EVENT_SETTINGS } from "../events/cluster-events.js";
import { policyReady, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the events e2e suite: kubectl is not installed");

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team-label}
spec:
  validationFailureAction: Audit
  rules:
  - name: team-label
    match: {any: [{resources: {kinds: [Pod], namespaces: [team-a]}}]}
    validate:
      message: the label team is required
      pattern: {metadata: {labels: {team: "?*"}}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: disallow-privileged}
spec:
  validationFailureAction: Enforce
  rules:
  - name: privileged
    match: {any: [{resources: {kinds: [Pod], namespaces: [team-a]}}]}
    validate:
      message: privileged mode is not allowed
      pattern: {spec: {containers: [{=(securityContext): {=(privileged): "false"}}]}}
`;

const pod = (name: string, privileged: boolean) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: team-a, labels: {app: ${name}}}
spec:
  containers:
  - name: app
    image: nginx:1.27
    securityContext: {privileged: ${privileged}}
`;

describe.skipIf(!hasKubectl)("Kubernetes Events, through kubectl", { timeout: 30_000 }, () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];

  const events = async (namespace: string): Promise<KubeObject[]> => {
    const listed = await client.list({ apiVersion: "v1", kind: "Event", namespace });
    if (!listed.ok) throw new Error(listed.message);
    return listed.value.items;
  };

  beforeAll(async () => {
    cluster = await startE2eCluster({
      namespaces: ["kyverno", "team-a"],
      inProcess: { admission: { events: DEFAULT_EVENT_SETTINGS } },
    });
    ({ client, kubectl } = cluster);
    const applied = await kubectl(["apply", "-f", "-"], POLICIES);
    expect(applied.stderr).toBe("");
    await policyReady(client, "require-team-label");
    await policyReady(client, "disallow-privileged");
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("an audited violation: a PolicyViolation Event on the Pod that kubectl get events and describe pod show", async () => {
    const created = await kubectl(["apply", "-f", "-"], pod("web", false));
    expect(created.stderr).toBe("");
    await until(
      async () => (await events("team-a")).some((e) => e.reason === "PolicyViolation"),
      10_000,
      "the Pod's PolicyViolation Event",
    );
    const [event] = (await events("team-a")).filter((e) => e.reason === "PolicyViolation");
    const uid = (await kubectl(["get", "pod", "web", "-n", "team-a", "-o", "jsonpath={.metadata.uid}"]))
      .stdout;
    expect(event).toMatchObject({
      type: "Warning",
      action: "Resource Passed",
      reportingComponent: "kyverno-admission",
      reportingInstance: "kyverno-admission-kyverno-admission-controller-0",
      involvedObject: { apiVersion: "v1", kind: "Pod", namespace: "team-a", name: "web", uid },
      related: { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "require-team-label" },
      message: expect.stringMatching(
        /^policy require-team-label\/team-label fail: validation error: the label team is required/,
      ),
    });
    // Written through events.k8s.io/v1, read here through core/v1 (one storage): no legacy fields.
    expect(event?.count).toBeUndefined();
    expect(event?.series).toBeUndefined();

    const listed = await kubectl(["get", "events", "-n", "team-a"]);
    expect(listed.stderr).toBe("");
    expect(listed.stdout).toMatch(
      /Warning\s+PolicyViolation\s+pod\/web\s+policy require-team-label\/team-label fail/,
    );

    const described = await kubectl(["describe", "pod", "web", "-n", "team-a"]);
    expect(described.stderr).toBe("");
    const section = described.stdout.slice(described.stdout.indexOf("Events:"));
    expect(section).toMatch(
      /Warning\s+PolicyViolation\s+\S+\s+kyverno-admission\s+policy require-team-label\/team-label fail: validation error: the label team is required/,
    );

    // The policy's side: the same violation, the Pod as related object (ClusterPolicy Events live in default).
    const onPolicy = (await events("default")).filter(
      (e) => (e.involvedObject as { name?: string }).name === "require-team-label",
    );
    expect(onPolicy.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^Pod team-a\/web: \[team-label\] fail; validation error: the label team is required/,
      ),
    ]);
    // PolicyApplied is omitted by default: disallow-privileged passed and wrote nothing.
    expect((await events("default")).filter((e) => e.reason === "PolicyApplied")).toEqual([]);
  });

  it("a blocked request: the policy's Event says (blocked); the Pod, which does not exist, gets none", async () => {
    const refused = await kubectl(["apply", "-f", "-"], pod("root", true));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("privileged mode is not allowed");
    await until(
      async () => (await events("default")).some((e) => e.action === "Resource Blocked"),
      10_000,
      "the policy's blocked Event",
    );
    const listed = await kubectl([
      "get",
      "events",
      "-n",
      "default",
      "--field-selector",
      "involvedObject.kind=ClusterPolicy,involvedObject.name=disallow-privileged",
    ]);
    expect(listed.stderr).toBe("");
    expect(listed.stdout).toMatch(
      /Warning\s+PolicyViolation\s+clusterpolicy\/disallow-privileged\s+Pod team-a\/root: \[privileged\] fail \(blocked\); validation error: privileged mode is not allowed/,
    );
    const described = await kubectl(["describe", "clusterpolicy", "disallow-privileged"]);
    expect(described.stdout.slice(described.stdout.indexOf("Events:"))).toMatch(
      /Warning\s+PolicyViolation\s+\S+\s+kyverno-admission\s+Pod team-a\/root: \[privileged\] fail \(blocked\)/,
    );
    expect(
      (await events("team-a")).filter((e) => (e.involvedObject as { name?: string }).name === "root"),
    ).toEqual([]);
  });

  it("the same violation again (an UPDATE) folds into the Event's count instead of a new Event", async () => {
    const labelled = await kubectl(["label", "pod", "web", "-n", "team-a", "tier=frontend"]);
    expect(labelled.stderr).toBe("");
    await until(
      async () =>
        (await events("team-a")).some(
          (e) => e.reason === "PolicyViolation" && (e.series as { count?: number } | undefined)?.count === 2,
        ),
      10_000,
      "count 2",
    );
    const violations = (await events("team-a")).filter((e) => e.reason === "PolicyViolation");
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ series: { count: 2 } });
    const described = await kubectl(["describe", "pod", "web", "-n", "team-a"]);
    expect(described.stdout).toMatch(/Warning\s+PolicyViolation\s+\S+ \(x2 over \S+\)\s+kyverno-admission/);
  });
});
